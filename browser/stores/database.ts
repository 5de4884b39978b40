/// <reference lib="dom" />
/**
 * The browser's IndexedDB database of the service: one database per app
 * (`svc-playground`, `svc-embed`, …) with two object stores, `models` (specs,
 * states, logs, audit trails) and `blobs`. Reads and writes go through
 * idb-keyval's `UseStore` over a connection opened here, so that a blocked
 * upgrade, a missing IndexedDB and a full quota become clear
 * {@link ServiceError}s instead of silent hangs or bare DOMExceptions.
 *
 * @module
 */
import { promisifyRequest, type UseStore } from "idb-keyval";
import { ServiceError } from "../../engine/mod.ts";

/**
 * Schema version of the database layout: 2 since models' revisions and log
 * bounds moved to heads (idb_model_store.ts; a model of layout 1 is read as
 * it is). A tab still running a layout-1 bundle cannot open a database of
 * layout 2, so it cannot write without the revision checks.
 */
export const DATABASE_VERSION = 2;
/** The object stores of the layout. */
export const OBJECT_STORES = ["models", "blobs"] as const;

/** An open database and a `UseStore` per object store. */
export interface BrowserDatabase {
  readonly name: string;
  readonly models: UseStore;
  readonly blobs: UseStore;
  /** Closes the connection; later calls fail. */
  close(): void;
}

/** Turns an IndexedDB failure into the error a person can act on. */
export function storageError(err: unknown, doing: string, database: string): ServiceError {
  if (err instanceof ServiceError) return err;
  const name = (err as DOMException)?.name ?? "";
  if (name === "QuotaExceededError") {
    return new ServiceError(
      "too_large",
      `Browser storage is full: could not ${doing} (quota exceeded for database '${database}'). ` +
        "Delete models or files you no longer need, or allow this site more storage.",
    );
  }
  const detail = (err as Error)?.message || name || String(err);
  return new ServiceError("internal", `Browser storage failed to ${doing}: ${detail}`);
}

/** Opens (creating or upgrading) the database `name`; rejects with a clear message when blocked. */
export function openDatabase(name: string, factory: IDBFactory | undefined = globalThis.indexedDB): Promise<
  BrowserDatabase
> {
  if (!factory) {
    return Promise.reject(
      new ServiceError(
        "internal",
        "This browser offers no IndexedDB (a private window may disable it): models cannot be kept across reloads here.",
      ),
    );
  }
  return new Promise((resolve, reject) => {
    const request = factory.open(name, DATABASE_VERSION);
    request.onupgradeneeded = () => {
      for (const store of OBJECT_STORES) {
        if (!request.result.objectStoreNames.contains(store)) request.result.createObjectStore(store);
      }
    };
    request.onblocked = () =>
      reject(
        new ServiceError(
          "internal",
          `The browser database '${name}' is blocked: another tab of this page keeps an older version open. ` +
            "Close the other tabs and reload.",
        ),
      );
    request.onerror = () => reject(storageError(request.error, "open its database", name));
    request.onsuccess = () => {
      const db = request.result;
      // Another tab upgrading the layout: step aside rather than block it.
      db.onversionchange = () => db.close();
      const useStore = (store: string): UseStore => (mode, callback) =>
        Promise.resolve().then(() => callback(db.transaction(store, mode).objectStore(store)));
      resolve({ name, models: useStore("models"), blobs: useStore("blobs"), close: () => db.close() });
    };
  });
}

/** One write transaction: puts and deletes (keys or key ranges), all or nothing. */
export interface WriteSet {
  put?: [IDBValidKey, unknown][];
  delete?: (IDBValidKey | IDBKeyRange)[];
}

/**
 * What a write reads and checks inside its own transaction, so that no other
 * tab's write comes between (IndexedDB runs readwrite transactions over one
 * object store one at a time, across tabs too).
 */
export interface WriteCondition {
  /** What is read before anything of the write: a key's value, or how many records a key range holds. */
  read: (IDBValidKey | IDBKeyRange)[];
  /**
   * Given what was read (`undefined` for an absent key): throws to write
   * nothing (the write then rejects with {@link WriteRefused}), or returns
   * writes made after the others.
   */
  check(values: unknown[]): WriteSet | void;
}

/** A write its {@link WriteCondition} refused: nothing was written; `reason` is what `check` threw. */
export class WriteRefused extends Error {
  constructor(readonly reason: unknown) {
    super(`write refused: ${(reason as Error)?.message ?? reason}`);
    this.name = "WriteRefused";
  }
}

/** {@link writeAll} with a failure turned into a {@link storageError} saying what could not be done. */
export async function writeOrExplain(
  db: BrowserDatabase,
  store: UseStore,
  writes: WriteSet,
  doing: string,
  condition?: WriteCondition,
): Promise<void> {
  try {
    await writeAll(store, writes, condition);
  } catch (err) {
    if (err instanceof WriteRefused) throw err.reason;
    throw storageError(err, doing, db.name);
  }
}

function apply(os: IDBObjectStore, writes: WriteSet | void): void {
  for (const key of writes?.delete ?? []) os.delete(key);
  for (const [key, value] of writes?.put ?? []) os.put(value, key);
}

/**
 * Applies a {@link WriteSet} in one transaction; resolves once it is durable.
 * With a condition, its reads go first and every write is issued at once
 * behind them, not after their results: a refusal aborts the transaction,
 * undoing them. (The commit still waits for the check to run in the page.)
 */
export function writeAll(store: UseStore, writes: WriteSet, condition?: WriteCondition): Promise<void> {
  return store("readwrite", (os) =>
    new Promise<void>((resolve, reject) => {
      const tx = os.transaction;
      let refusal: WriteRefused | null = null;
      if (condition) {
        const reads = condition.read.map((key) => key instanceof IDBKeyRange ? os.count(key) : os.get(key));
        reads.at(-1)!.onsuccess = () => {
          try {
            apply(os, condition.check(reads.map((read) => read.result)));
          } catch (err) {
            refusal = new WriteRefused(err);
            tx.abort();
          }
        };
      }
      apply(os, writes);
      tx.oncomplete = () => resolve();
      // A failed request (a full quota) or the abort: the request's error, else the transaction's.
      tx.onabort = tx.onerror = (event) =>
        reject(refusal ?? (event.target as IDBRequest | IDBTransaction).error ?? tx.error);
    }));
}

/** Every key starting with `prefix` (array keys: `[...prefix, anything]`). */
export function prefixRange(prefix: IDBValidKey[]): IDBKeyRange {
  // Arrays sort after every other key type, so `[...prefix, []]` bounds every `[...prefix, x]`.
  return IDBKeyRange.bound(prefix, [...prefix, []]);
}

/** Values under a key prefix, in key order, read in transaction `os`. */
export function valuesUnder<T>(os: IDBObjectStore, prefix: IDBValidKey[]): Promise<T[]> {
  return promisifyRequest(os.getAll(prefixRange(prefix)) as IDBRequest<T[]>);
}

/** Keys under a key prefix, in order, read in transaction `os` (no value is read). */
export function keysUnder(os: IDBObjectStore, prefix: IDBValidKey[]): Promise<IDBValidKey[][]> {
  return promisifyRequest(os.getAllKeys(prefixRange(prefix)) as IDBRequest<IDBValidKey[][]>);
}

/** Keys and values under a key prefix, in key order, read in transaction `os`. */
export async function entriesUnder<T>(
  os: IDBObjectStore,
  prefix: IDBValidKey[],
): Promise<[IDBValidKey[], T][]> {
  const [keys, values] = await Promise.all([keysUnder(os, prefix), valuesUnder<T>(os, prefix)]);
  return keys.map((key, i) => [key, values[i]]);
}

/** The value with the highest key under a prefix, or `null`, read in transaction `os`. */
export function lastUnder<T>(os: IDBObjectStore, prefix: IDBValidKey[]): Promise<T | null> {
  return promisifyRequest(os.openCursor(prefixRange(prefix), "prev")).then((cursor) =>
    cursor ? cursor.value as T : null
  );
}

/** Values under a key prefix, in key order. */
export function readRange<T>(store: UseStore, prefix: IDBValidKey[]): Promise<T[]> {
  return store("readonly", (os) => valuesUnder<T>(os, prefix));
}

/** The value with the highest key under a prefix, or `null`. */
export function readLast<T>(store: UseStore, prefix: IDBValidKey[]): Promise<T | null> {
  return store("readonly", (os) => lastUnder<T>(os, prefix));
}
