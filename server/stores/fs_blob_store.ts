/**
 * Content-addressed blobs as files under `svc.blob-store-path`: `<id>` holds
 * the bytes and `<id>.json` `{mediaType, bytes}`. A put writes the description
 * first and the bytes last (atomic rename, flushed), so a blob exists exactly
 * when its bytes file does; a delete removes the bytes first. A description
 * without bytes (an interrupted put or delete) is removed at open.
 *
 * @module
 */
import type { BlobStore, StoredBlob } from "../../engine/service/ports.ts";
import { describeKey, failureAbout } from "../config_failure.ts";
import { type DirectoryLock, lockDirectory } from "./dir_lock.ts";
import type { DiskFull } from "./disk_full.ts";
import { exists, isTemporary, nameOf, writeFileAtomic } from "./fs_files.ts";

const META = ".json";

/** The filesystem blob store; sizes are indexed in memory at open. */
export class FsBlobStore implements BlobStore {
  readonly description: string;
  readonly enumerable = true;
  readonly #dir: string;
  /** Blob id -> size, of every blob whose bytes are stored. */
  readonly #sizes = new Map<string, number>();
  /** The directory's lock, held from open to close. */
  #lock: DirectoryLock | null = null;
  /** Whether puts are refused for a full disk. */
  readonly #disk: DiskFull;

  private constructor(dir: string, disk: DiskFull) {
    this.#dir = dir.replace(/\/+$/, "") || "/";
    this.#disk = disk;
    this.description = `filesystem (${this.#dir})`;
  }

  /** Opens (creating) the directory and indexes what it holds; `disk` watches its puts for a full disk. */
  static async open(dir: string, disk: DiskFull): Promise<FsBlobStore> {
    const store = new FsBlobStore(dir, disk);
    const setting = describeKey("svc.blob-store-path", dir);
    try {
      await Deno.mkdir(store.#dir, { recursive: true });
    } catch (err) {
      throw new Error(`Configuration ${setting}: ${failureAbout(String(err), dir)}`);
    }
    // Another process's garbage collection would delete blobs this one's models use.
    store.#lock = await lockDirectory(store.#dir, setting);
    for await (const entry of Deno.readDir(store.#dir)) {
      const path = `${store.#dir}/${entry.name}`;
      if (isTemporary(entry.name)) await Deno.remove(path);
      else if (entry.name.endsWith(META)) {
        const meta = await readMeta(path);
        const bytesPath = path.slice(0, -META.length);
        if (!meta || !(await exists(bytesPath))) {
          await Deno.remove(path);
          continue;
        }
        store.#sizes.set(meta.blobId, (await Deno.stat(bytesPath)).size);
      }
    }
    return store;
  }

  async #path(blobId: string): Promise<string> {
    return `${this.#dir}/${await nameOf(blobId)}`;
  }

  async put(blobId: string, blob: StoredBlob): Promise<void> {
    if (this.#sizes.has(blobId)) return;
    const path = await this.#path(blobId);
    const meta = { blobId, mediaType: blob.mediaType, bytes: blob.bytes.byteLength };
    await this.#disk.write(async () => {
      await writeFileAtomic(path + META, JSON.stringify(meta, null, 2) + "\n");
      await writeFileAtomic(path, blob.bytes);
    });
    this.#sizes.set(blobId, blob.bytes.byteLength);
  }

  async get(blobId: string): Promise<StoredBlob | null> {
    if (!this.#sizes.has(blobId)) return null;
    const path = await this.#path(blobId);
    const meta = await readMeta(path + META);
    try {
      return { bytes: await Deno.readFile(path), mediaType: meta?.mediaType ?? "application/octet-stream" };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }

  has(blobId: string): Promise<boolean> {
    return Promise.resolve(this.#sizes.has(blobId));
  }

  async delete(blobId: string): Promise<void> {
    if (!this.#sizes.has(blobId)) return;
    const path = await this.#path(blobId);
    this.#sizes.delete(blobId);
    await Deno.remove(path).catch(ignoreMissing);
    await Deno.remove(path + META).catch(ignoreMissing);
  }

  list(): Promise<{ blobId: string; bytes: number }[]> {
    return Promise.resolve([...this.#sizes].map(([blobId, bytes]) => ({ blobId, bytes })));
  }

  totalBytes(): Promise<number> {
    let total = 0;
    for (const size of this.#sizes.values()) total += size;
    return Promise.resolve(total);
  }

  close(): Promise<void> {
    this.#lock?.release();
    return Promise.resolve();
  }
}

async function readMeta(path: string): Promise<{ blobId: string; mediaType: string } | null> {
  try {
    const meta = JSON.parse(await Deno.readTextFile(path));
    return typeof meta?.blobId === "string" && typeof meta.mediaType === "string" ? meta : null;
  } catch {
    return null;
  }
}

function ignoreMissing(err: unknown): void {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}
