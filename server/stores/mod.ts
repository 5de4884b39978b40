/**
 * Storage selection for the server: which backend keeps specs, state, audit
 * trails and blobs, from the `svc.storage.*` keys.
 *
 * - `svc.storage.type`: `memory` or `kv` (default `kv`: Deno KV under `svc.persistence-dir`).
 * - `svc.storage.spec-type`, `state-type`, `audit-type`, `blob-type`: per concern,
 *   falling back to `svc.storage.type` (when that is unset, state and audit follow
 *   the spec's backend); `audit-type` also accepts `none`.
 * - `svc.persistence-dir` (default `./data`, created when missing) holds `svc.kv`.
 * - `svc.storage.compaction-threshold` (default 100): log entries folded per compaction.
 *
 * State and audit trails belong to their model, so keeping them in KV needs the
 * spec in KV too. An unknown, unavailable or inconsistent choice throws an error
 * naming the key and value, which aborts startup.
 *
 * @module
 */
import { type ConfigLookup, envName, readInt } from "../../engine/config.ts";
import { MemoryAuditTrail, MemoryBlobStore, MemoryModelStore } from "../../engine/service/memory.ts";
import type { BlobStore, ModelStore } from "../../engine/service/ports.ts";
import { KvBlobStore } from "./kv_blob_store.ts";
import { KvDatabase } from "./kv_database.ts";
import { KvModelStore } from "./kv_model_store.ts";

/** A storage backend kind. */
export type BackendKind = "memory" | "kv";

/** The backend of each concern and where durable data lives. */
export interface StorageSelection {
  spec: BackendKind;
  state: BackendKind;
  audit: BackendKind | "none";
  blob: BackendKind;
  /** `svc.persistence-dir`. */
  dir: string;
  /** `svc.storage.compaction-threshold`. */
  compactionThreshold: number;
}

/** Opened stores, ready for `ModelService.open`. */
export interface Storage {
  store: ModelStore;
  blobs: BlobStore;
  /** For the startup line, e.g. `kv (data/svc.kv)`. */
  description: string;
}

/** Default persistence directory. */
export const DEFAULT_PERSISTENCE_DIR = "./data";
/** Default `svc.storage.compaction-threshold`. */
export const DEFAULT_COMPACTION_THRESHOLD = 100;
/** The database file inside the persistence directory. */
export const KV_FILE = "svc.kv";

/** Backend kinds SPEC.md names that this server has no adapter for. */
const UNAVAILABLE = new Set([
  "filesystem",
  "jdbc",
  "relational",
  "postgres",
  "postgresql",
  "mysql",
  "mongodb",
]);

function describeKey(key: string, value: string): string {
  return `${key} (${envName(key)}) = '${value}'`;
}

function readBackend(
  lookup: ConfigLookup,
  concern: "spec" | "state" | "audit" | "blob",
  fallback: { key: string; value: string },
): { key: string; value: string; kind: BackendKind | "none" } {
  const key = `svc.storage.${concern}-type`;
  const own = lookup(key)?.trim();
  const chosen = own ? { key, value: own } : fallback;
  const kind = chosen.value.toLowerCase();
  if (kind === "memory" || kind === "kv" || (kind === "none" && concern === "audit")) {
    return { ...chosen, kind };
  }
  const options = concern === "audit" ? "memory, kv or none" : "memory or kv";
  throw new Error(
    UNAVAILABLE.has(kind)
      ? `Configuration ${
        describeKey(chosen.key, chosen.value)
      }: that storage backend is not available in this server; use ${options}`
      : `Configuration ${describeKey(chosen.key, chosen.value)}: unknown storage backend; use ${options}`,
  );
}

/** Reads the storage keys; throws a message naming the offending key and value. */
export function selectStorage(lookup: ConfigLookup, defaultType: BackendKind = "kv"): StorageSelection {
  const general = lookup("svc.storage.type")?.trim();
  const fallback = general
    ? { key: "svc.storage.type", value: general }
    : { key: "default", value: defaultType };
  const spec = readBackend(lookup, "spec", fallback);
  // Without svc.storage.type, state and audit follow the spec's backend.
  const modelFallback = general ? fallback : { key: spec.key, value: spec.value };
  const state = readBackend(lookup, "state", modelFallback);
  const audit = readBackend(lookup, "audit", modelFallback);
  const blob = readBackend(lookup, "blob", fallback);
  if (spec.kind !== "kv") {
    for (const dependent of [state, audit]) {
      if (dependent.kind === "kv") {
        throw new Error(
          `Configuration ${describeKey(dependent.key, dependent.value)} needs svc.storage.spec-type = 'kv' ` +
            `(it is '${spec.value}'): state and audit trails are kept only for models whose spec is kept`,
        );
      }
    }
  }
  const compactionThreshold = readInt(
    lookup,
    "svc.storage.compaction-threshold",
    DEFAULT_COMPACTION_THRESHOLD,
  );
  if (compactionThreshold < 1) {
    throw new Error(
      `Configuration ${
        describeKey("svc.storage.compaction-threshold", String(compactionThreshold))
      }: must be at least 1`,
    );
  }
  return {
    spec: spec.kind as BackendKind,
    state: state.kind as BackendKind,
    audit: audit.kind,
    blob: blob.kind as BackendKind,
    dir: lookup("svc.persistence-dir")?.trim() || DEFAULT_PERSISTENCE_DIR,
    compactionThreshold,
  };
}

/** The startup-line description of a selection. */
export function describeStorage(selection: StorageSelection, kvPath: string): string {
  const kinds = [selection.spec, selection.state, selection.audit, selection.blob];
  const usesKv = kinds.includes("kv");
  if (kinds.every((kind) => kind === kinds[0])) return usesKv ? `kv (${kvPath})` : kinds[0];
  const parts =
    `spec ${selection.spec}, state ${selection.state}, audit ${selection.audit}, blobs ${selection.blob}`;
  return usesKv ? `${parts} (${kvPath})` : parts;
}

async function openDatabase(dir: string, warn: (message: string) => void): Promise<KvDatabase> {
  if (typeof Deno.openKv !== "function") {
    throw new Error(
      'Storage backend \'kv\' is unavailable: Deno KV needs the --unstable-kv flag (deno.json sets "unstable": ["kv"])',
    );
  }
  try {
    await Deno.mkdir(dir, { recursive: true });
  } catch (err) {
    throw new Error(
      `Configuration ${describeKey("svc.persistence-dir", dir)}: cannot create the directory: ${err}`,
    );
  }
  const path = `${dir.replace(/\/+$/, "") || "/"}/${KV_FILE}`;
  try {
    return await KvDatabase.open(path, warn);
  } catch (err) {
    throw new Error(`Storage backend 'kv': cannot open ${path}: ${(err as Error).message}`);
  }
}

/**
 * Opens the stores the `svc.storage.*` keys select (the server default is
 * `kv`). `warn` receives storage warnings (unloadable models, failed clean-ups).
 * Throws an error naming the key and value for an unknown or unavailable backend.
 */
export async function openStorage(
  lookup: ConfigLookup,
  warn: (message: string) => void,
  defaultType: BackendKind = "kv",
): Promise<Storage> {
  const selection = selectStorage(lookup, defaultType);
  const usesKv = [selection.spec, selection.state, selection.audit, selection.blob].includes("kv");
  const db = usesKv ? await openDatabase(selection.dir, warn) : null;
  const audit = selection.audit === "none" ? null : selection.audit === "kv" ? "kv" : new MemoryAuditTrail();
  const store: ModelStore = db && selection.spec === "kv"
    ? new KvModelStore(db, {
      state: selection.state === "kv",
      audit,
      compactionThreshold: selection.compactionThreshold,
      warn,
    })
    : new MemoryModelStore(audit === "kv" ? null : audit);
  try {
    const blobs: BlobStore = db && selection.blob === "kv"
      ? await KvBlobStore.open(db)
      : new MemoryBlobStore();
    return { store, blobs, description: describeStorage(selection, db?.path ?? "") };
  } catch (err) {
    await store.close();
    throw err;
  }
}
