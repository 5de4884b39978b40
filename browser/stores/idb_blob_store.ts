/// <reference lib="dom" />
/**
 * Content-addressed blobs in IndexedDB, behind the engine's {@link BlobStore}
 * port. In the `blobs` object store, `["meta", blobId]` holds `{mediaType,
 * bytes}` and `["data", blobId]` the bytes, written in one transaction; the
 * small meta entries are what listing and the size budget read.
 *
 * @module
 */
import { promisifyRequest, type UseStore } from "idb-keyval";
import type { BlobStore, StoredBlob } from "../../engine/mod.ts";
import { type BrowserDatabase, readRange, writeOrExplain, type WriteSet } from "./database.ts";

interface BlobMeta {
  blobId: string;
  mediaType: string;
  bytes: number;
}

/** The IndexedDB blob store. */
export class IdbBlobStore implements BlobStore {
  readonly description: string;
  readonly enumerable = true;
  readonly #db: BrowserDatabase;
  readonly #store: UseStore;
  readonly #onClose?: () => void;
  #closed = false;

  constructor(db: BrowserDatabase, options: { onClose?: () => void } = {}) {
    this.#db = db;
    this.#store = db.blobs;
    this.#onClose = options.onClose;
    this.description = `indexeddb (${db.name})`;
  }

  #write(writes: WriteSet, doing: string): Promise<void> {
    return writeOrExplain(this.#db, this.#store, writes, doing);
  }

  async put(blobId: string, blob: StoredBlob): Promise<void> {
    if (await this.has(blobId)) return;
    const meta: BlobMeta = { blobId, mediaType: blob.mediaType, bytes: blob.bytes.byteLength };
    await this.#write({ put: [[["data", blobId], blob.bytes], [["meta", blobId], meta]] }, `store a file`);
  }

  async get(blobId: string): Promise<StoredBlob | null> {
    const [meta, bytes] = await this.#store("readonly", (os) =>
      Promise.all([
        promisifyRequest<BlobMeta | undefined>(os.get(["meta", blobId])),
        promisifyRequest<Uint8Array | undefined>(os.get(["data", blobId])),
      ]));
    return meta && bytes ? { bytes, mediaType: meta.mediaType } : null;
  }

  async has(blobId: string): Promise<boolean> {
    const key = await this.#store("readonly", (os) => promisifyRequest(os.getKey(["meta", blobId])));
    return key !== undefined;
  }

  async delete(blobId: string): Promise<void> {
    await this.#write({ delete: [["meta", blobId], ["data", blobId]] }, `delete a file`);
  }

  async list(): Promise<{ blobId: string; bytes: number }[]> {
    return (await readRange<BlobMeta>(this.#store, ["meta"])).map(({ blobId, bytes }) => ({ blobId, bytes }));
  }

  async totalBytes(): Promise<number> {
    return (await this.list()).reduce((sum, b) => sum + b.bytes, 0);
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#onClose?.();
    }
    return Promise.resolve();
  }
}
