/**
 * Content-addressed blobs in Deno KV: `["blobs", blobId]` holds
 * `{mediaType, bytes, n}` and the bytes are `n` chunks at `["blob", blobId, i]`.
 * A blob too large for one atomic operation is written chunks first under a
 * `["blob-pending", blobId]` marker that the committing header write removes;
 * a deletion sets the marker with the header's removal. Chunks of a marked blob
 * without header (an interrupted put or delete) are removed at the next open.
 *
 * @module
 */
import type { BlobStore, StoredBlob } from "../../engine/service/ports.ts";
import { fitsOneUnit, type KvDatabase, type KvMutation } from "./kv_database.ts";
import { joinBytes, splitBytes } from "./kv_values.ts";

interface BlobHeader {
  mediaType: string;
  bytes: number;
  /** Number of chunks. */
  n: number;
}

const blobKeys = {
  header: (blobId: string): Deno.KvKey => ["blobs", blobId],
  chunks: (blobId: string): Deno.KvKey => ["blob", blobId],
  pending: (blobId: string): Deno.KvKey => ["blob-pending", blobId],
};

function isBlobHeader(value: unknown): value is BlobHeader {
  const h = value as BlobHeader;
  return h !== null && typeof h === "object" && typeof h.mediaType === "string" &&
    Number.isInteger(h.bytes) &&
    Number.isInteger(h.n) && h.n >= 1;
}

/** The KV blob store; sizes and media types are indexed in memory at open. */
export class KvBlobStore implements BlobStore {
  readonly description: string;
  readonly enumerable = true;
  readonly #db: KvDatabase;
  readonly #index = new Map<string, BlobHeader>();
  readonly #busy = new Map<string, Promise<unknown>>();
  #total = 0;
  #closed: Promise<void> | null = null;

  private constructor(db: KvDatabase) {
    this.#db = db.acquire();
    this.description = `kv (${db.path})`;
  }

  /** Opens the store: finishes interrupted writes and indexes the stored blobs. */
  static async open(db: KvDatabase): Promise<KvBlobStore> {
    const store = new KvBlobStore(db);
    try {
      await store.#recover();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  async #recover(): Promise<void> {
    const kv = this.#db.kv;
    for await (const marker of kv.list({ prefix: ["blob-pending"] })) {
      const blobId = marker.key[1] as string;
      if ((await kv.get(blobKeys.header(blobId))).value === null) await this.#deleteChunks(blobId);
      await this.#db.write([{ key: marker.key }]);
    }
    for await (const entry of kv.list({ prefix: ["blobs"] })) {
      if (!isBlobHeader(entry.value)) continue;
      this.#index.set(entry.key[1] as string, entry.value);
      this.#total += entry.value.bytes;
    }
  }

  /** Runs operations on one blob id one at a time. */
  #exclusive<T>(blobId: string, task: () => Promise<T>): Promise<T> {
    const run = (this.#busy.get(blobId) ?? Promise.resolve()).then(task);
    const settled = run.catch(() => {}).finally(() => {
      if (this.#busy.get(blobId) === settled) this.#busy.delete(blobId);
    });
    this.#busy.set(blobId, settled);
    return run;
  }

  async #deleteChunks(blobId: string): Promise<void> {
    const keys: KvMutation[] = [];
    for await (const entry of this.#db.kv.list({ prefix: blobKeys.chunks(blobId) })) {
      keys.push({ key: entry.key });
    }
    await this.#db.writeAll(keys);
  }

  put(blobId: string, blob: StoredBlob): Promise<void> {
    return this.#exclusive(blobId, async () => {
      if (this.#index.has(blobId)) return;
      const chunks: KvMutation[] = splitBytes(blob.bytes).map((value, i) => ({
        key: [...blobKeys.chunks(blobId), i],
        value,
      }));
      const header: BlobHeader = {
        mediaType: blob.mediaType,
        bytes: blob.bytes.byteLength,
        n: chunks.length,
      };
      const commit: KvMutation = { key: blobKeys.header(blobId), value: header };
      if (fitsOneUnit([...chunks, commit])) {
        await this.#db.write([...chunks, commit]);
      } else {
        await this.#db.writeAll([{ key: blobKeys.pending(blobId), value: true }, ...chunks]);
        await this.#db.write([commit, { key: blobKeys.pending(blobId) }]);
      }
      this.#index.set(blobId, header);
      this.#total += header.bytes;
    });
  }

  async get(blobId: string): Promise<StoredBlob | null> {
    const header = this.#index.get(blobId);
    if (!header) return null;
    const chunks: Uint8Array[] = [];
    for await (const entry of this.#db.kv.list<Uint8Array>({ prefix: blobKeys.chunks(blobId) })) {
      if (entry.key[2] === chunks.length) chunks.push(entry.value);
    }
    const bytes = joinBytes(chunks);
    if (chunks.length !== header.n || bytes.byteLength !== header.bytes) {
      throw new Error(
        `blob '${blobId}' is incomplete in KV storage (${chunks.length} of ${header.n} chunks)`,
      );
    }
    return { bytes, mediaType: header.mediaType };
  }

  has(blobId: string): Promise<boolean> {
    return Promise.resolve(this.#index.has(blobId));
  }

  delete(blobId: string): Promise<void> {
    return this.#exclusive(blobId, async () => {
      const header = this.#index.get(blobId);
      if (!header) return;
      await this.#db.write([{ key: blobKeys.header(blobId) }, {
        key: blobKeys.pending(blobId),
        value: true,
      }]);
      this.#index.delete(blobId);
      this.#total -= header.bytes;
      await this.#deleteChunks(blobId);
      await this.#db.write([{ key: blobKeys.pending(blobId) }]);
    });
  }

  list(): Promise<{ blobId: string; bytes: number }[]> {
    return Promise.resolve([...this.#index].map(([blobId, header]) => ({ blobId, bytes: header.bytes })));
  }

  totalBytes(): Promise<number> {
    return Promise.resolve(this.#total);
  }

  /** Waits for running writes and releases the database; idempotent. */
  close(): Promise<void> {
    this.#closed ??= Promise.all(this.#busy.values()).then(() => this.#db.release());
    return this.#closed;
  }
}
