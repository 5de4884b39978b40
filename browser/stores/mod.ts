/// <reference lib="dom" />
/**
 * Storage of the browser host: IndexedDB stores for {@link ModelService.open}.
 * Models, states, history, audit trails and blobs survive a reload and work
 * offline.
 *
 * @module
 */
import type { BlobStore } from "../../engine/mod.ts";
import { openDatabase } from "./database.ts";
import { IdbBlobStore } from "./idb_blob_store.ts";
import { IdbModelStore } from "./idb_model_store.ts";

export { storageError } from "./database.ts";
export { IdbBlobStore } from "./idb_blob_store.ts";
export { IdbModelStore } from "./idb_model_store.ts";

/** Stores over one IndexedDB database; the connection closes once both are closed. */
export interface BrowserStorage {
  store: IdbModelStore;
  blobs: BlobStore;
}

/** Options of {@link openBrowserStorage}. */
export interface BrowserStorageOptions {
  /** Log entries folded per compaction (default 100). */
  compactionThreshold?: number;
  /** How long a job stays with the tab that holds it past its due time, in ms (default 10 000). */
  jobLeaseMs?: number;
  /** The IndexedDB factory (default `globalThis.indexedDB`). */
  indexedDB?: IDBFactory;
  /** Told of stored models not loaded because their records cannot be read (default `console.warn`). */
  warn?: (message: string) => void;
}

/** Opens the IndexedDB database `name` and its model and blob stores. */
export async function openBrowserStorage(
  name: string,
  options: BrowserStorageOptions = {},
): Promise<BrowserStorage> {
  const db = await openDatabase(name, options.indexedDB ?? globalThis.indexedDB);
  let open = 2;
  const release = () => {
    if (--open === 0) db.close();
  };
  return {
    store: new IdbModelStore(db, {
      compactionThreshold: options.compactionThreshold,
      jobLeaseMs: options.jobLeaseMs,
      onClose: release,
      warn: options.warn,
    }),
    blobs: new IdbBlobStore(db, { onClose: release }),
  };
}
