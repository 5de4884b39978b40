/**
 * Storage selection for the server: which backend keeps specs, state, audit
 * trails and blobs, from the `svc.storage.*` keys.
 *
 * - `svc.storage.type`: `memory`, `kv` (default: Deno KV under `svc.persistence-dir`),
 *   `filesystem` (JSON files under `svc.persistence-dir`) or `postgres` (shared by
 *   any number of instances; `svc.storage.postgres.url`, `svc.storage.jdbc.pool-size`,
 *   `svc.storage.postgres.job-lease-ms`).
 * - `svc.storage.spec-type`, `state-type`, `audit-type`, `blob-type`: per concern,
 *   falling back to `svc.storage.type` (when that is unset, state and audit follow
 *   the spec's backend); `audit-type` also accepts `none`; `svc.blob-store` is
 *   SPEC.md's other name of `blob-type`.
 * - `svc.persistence-dir` (default `./data`, created when missing) holds `svc.kv`
 *   or the filesystem store's `models/`; filesystem blobs go to `svc.blob-store-path`
 *   (default `<persistence-dir>/blobs`).
 * - `svc.storage.compaction-threshold` (default 100): log entries folded per compaction.
 *
 * State and audit trails belong to their model, so keeping them durably needs
 * the spec in the same backend; PostgreSQL keeps state with the spec (instances
 * share both). An unknown, unavailable or inconsistent choice throws an error
 * naming the key and value, which aborts startup.
 *
 * @module
 */
import { type ConfigLookup, envName, readInt } from "../../engine/config.ts";
import { MAX_QUOTED_WORD, quoted } from "../../engine/quoted.ts";
import { MemoryAuditTrail, MemoryBlobStore, MemoryModelStore } from "../../engine/service/memory.ts";
import type { BlobStore, ModelStore } from "../../engine/service/ports.ts";
import { describeKey, failureAbout } from "../config_failure.ts";
import { ignoredKeys } from "../config_keys.ts";
import { lockDirectory } from "./dir_lock.ts";
import { DiskFull } from "./disk_full.ts";
import { FsBlobStore } from "./fs_blob_store.ts";
import { exists } from "./fs_files.ts";
import { FsModelStore } from "./fs_model_store.ts";
import { KvBlobStore } from "./kv_blob_store.ts";
import { KvDatabase } from "./kv_database.ts";
import { KvModelStore } from "./kv_model_store.ts";
import { PgBlobStore } from "./pg_blob_store.ts";
import { PgDatabase } from "./pg_database.ts";
import { PgModelStore } from "./pg_model_store.ts";
import { PgOutages } from "./pg_outage.ts";
import { MIGRATIONS } from "./pg_schema.ts";

/** A storage backend kind. */
export type BackendKind = "memory" | "kv" | "filesystem" | "postgres";

/** Where the PostgreSQL backend connects and how it shares work. */
export interface PostgresSettings {
  /** `svc.storage.postgres.url`; required when a concern uses postgres. */
  url: string | null;
  /** `svc.storage.jdbc.pool-size`. */
  poolSize: number;
  /** `svc.storage.postgres.job-lease-ms`. */
  jobLeaseMs: number;
}

/** The backend of each concern and where durable data lives. */
export interface StorageSelection {
  spec: BackendKind;
  state: BackendKind;
  audit: BackendKind | "none";
  blob: BackendKind;
  /** `svc.persistence-dir`. */
  dir: string;
  /** `svc.blob-store-path`: filesystem blobs. */
  blobDir: string;
  /** `svc.storage.compaction-threshold`. */
  compactionThreshold: number;
  postgres: PostgresSettings;
}

/** Opened stores, ready for `ModelService.open`. */
export interface Storage {
  store: ModelStore;
  blobs: BlobStore;
  /** For the startup line, e.g. `kv (data/svc.kv)`. */
  description: string;
  /** Whether writes are refused for a full disk now (Deno KV, filesystem; the others never say so). */
  full?: () => boolean;
  /** Why the storage refuses requests now (a full disk, a database out of reach), or `null`. */
  trouble?: () => string | null;
}

/** Default persistence directory. */
export const DEFAULT_PERSISTENCE_DIR = "./data";
/** Default `svc.storage.compaction-threshold`. */
export const DEFAULT_COMPACTION_THRESHOLD = 100;
/** Default `svc.storage.jdbc.pool-size`. */
export const DEFAULT_POOL_SIZE = 8;
/** Default `svc.storage.postgres.job-lease-ms`. */
export const DEFAULT_JOB_LEASE_MS = 30_000;
/** The database file inside the persistence directory. */
export const KV_FILE = "svc.kv";

const KINDS = new Set<string>(["memory", "kv", "filesystem", "postgres"]);
/** Other spellings of a kind. */
const ALIASES: Record<string, BackendKind> = { postgresql: "postgres" };

/** Backend kinds SPEC.md names that this server has no adapter for. */
const UNAVAILABLE = new Set(["jdbc", "relational", "mysql", "mongodb", "s3"]);

/** SPEC.md's other name of `svc.storage.blob-type`. */
const BLOB_STORE_KEY = "svc.blob-store";

/** The kind a written value names (its case and other spellings aside). */
function kindNamed(value: string): string {
  const written = value.toLowerCase();
  return ALIASES[written] ?? written;
}

/**
 * The concern's own key and value, if set: `svc.storage.<concern>-type`, for
 * blobs also `svc.blob-store`; both set, they must name the same kind.
 */
function ownChoice(lookup: ConfigLookup, concern: string): { key: string; value: string } | null {
  const key = `svc.storage.${concern}-type`;
  const own = lookup(key)?.trim();
  const alias = concern === "blob" ? lookup(BLOB_STORE_KEY)?.trim() : undefined;
  if (own && alias && kindNamed(own) !== kindNamed(alias)) {
    throw new Error(
      `Configuration ${describeKey(key, own)} and ${describeKey(BLOB_STORE_KEY, alias)} disagree: ` +
        `both choose the blob store; set one of them`,
    );
  }
  return own ? { key, value: own } : alias ? { key: BLOB_STORE_KEY, value: alias } : null;
}

function readBackend(
  lookup: ConfigLookup,
  concern: "spec" | "state" | "audit" | "blob",
  fallback: { key: string; value: string },
): { key: string; value: string; kind: BackendKind | "none" } {
  const chosen = ownChoice(lookup, concern) ?? fallback;
  const kind = kindNamed(chosen.value);
  if (KINDS.has(kind) || (kind === "none" && concern === "audit")) {
    return { ...chosen, kind: kind as BackendKind | "none" };
  }
  const options = concern === "audit"
    ? "memory, kv, filesystem, postgres or none"
    : "memory, kv, filesystem or postgres";
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
  for (const dependent of [state, audit]) {
    if (dependent.kind !== "memory" && dependent.kind !== "none" && dependent.kind !== spec.kind) {
      throw new Error(
        `Configuration ${describeKey(dependent.key, dependent.value)} needs svc.storage.spec-type = ` +
          `'${dependent.kind}' (it is '${spec.value}'): state and audit trails are kept only for models ` +
          `whose spec is kept with them`,
      );
    }
  }
  if (spec.kind === "postgres") {
    for (const dependent of [state, audit]) {
      if (dependent.kind === "memory") {
        throw new Error(
          `Configuration ${describeKey(dependent.key, dependent.value)}: with svc.storage.spec-type = ` +
            `'postgres' the ${dependent === state ? "state" : "audit trail"} is shared by every instance, ` +
            `so it is kept in postgres${dependent === audit ? " (or none)" : ""}`,
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
  const dir = lookup("svc.persistence-dir")?.trim() || DEFAULT_PERSISTENCE_DIR;
  const postgres = readPostgres(lookup);
  if (postgres.url === null && [spec, state, audit, blob].some((c) => c.kind === "postgres")) {
    const user = [spec, state, audit, blob].find((c) => c.kind === "postgres")!;
    throw new Error(
      `Configuration ${describeKey(user.key, user.value)} needs svc.storage.postgres.url ` +
        `(${envName("svc.storage.postgres.url")}), e.g. postgres://user:password@host:5432/database`,
    );
  }
  return {
    spec: spec.kind as BackendKind,
    state: state.kind as BackendKind,
    audit: audit.kind,
    blob: blob.kind as BackendKind,
    dir,
    blobDir: lookup("svc.blob-store-path")?.trim() || `${dir.replace(/\/+$/, "")}/blobs`,
    compactionThreshold,
    postgres,
  };
}

function readPostgres(lookup: ConfigLookup): PostgresSettings {
  const positive = (key: string, fallback: number) => {
    const value = readInt(lookup, key, fallback);
    if (value < 1) throw new Error(`Configuration ${describeKey(key, String(value))}: must be at least 1`);
    return value;
  };
  return {
    url: lookup("svc.storage.postgres.url")?.trim() || null,
    poolSize: positive("svc.storage.jdbc.pool-size", DEFAULT_POOL_SIZE),
    jobLeaseMs: positive("svc.storage.postgres.job-lease-ms", DEFAULT_JOB_LEASE_MS),
  };
}

/**
 * The storage keys set but read by no chosen backend, one warning each: a
 * PostgreSQL URL while `svc.storage.type` is still `kv` was dropped silently,
 * and the server ran on the local database the operator meant to leave.
 */
export function unusedStorageKeys(lookup: ConfigLookup, selection: StorageSelection): string[] {
  const kinds: string[] = [selection.spec, selection.state, selection.audit, selection.blob];
  const storage = `(storage: ${describeStorage(selection, {})})`;
  return [
    ...ignoredKeys(
      lookup,
      ["svc.storage.postgres.url", "svc.storage.jdbc.pool-size", "svc.storage.postgres.job-lease-ms"],
      kinds.includes("postgres"),
      `no store is postgres ${storage}`,
    ),
    ...ignoredKeys(
      lookup,
      ["svc.blob-store-path"],
      selection.blob === "filesystem",
      `no store is filesystem blobs ${storage}`,
    ),
    ...ignoredKeys(
      lookup,
      ["svc.persistence-dir"],
      kinds.includes("kv") || kinds.includes("filesystem"),
      `no store is kv or filesystem ${storage}`,
    ),
  ];
}

/**
 * The startup-line description of a selection; `where` names each durable
 * backend's locations, each cut short as a configured value is in a message
 * (a path may run to the platform's 4 kB).
 */
export function describeStorage(
  selection: StorageSelection,
  where: Partial<Record<BackendKind, string | string[]>>,
): string {
  const kinds = [selection.spec, selection.state, selection.audit, selection.blob];
  const places = [...new Set(kinds)].flatMap((kind) => [where[kind as BackendKind] ?? []].flat())
    .map((place) => quoted(place, MAX_QUOTED_WORD));
  const suffix = places.length ? ` (${places.join(", ")})` : "";
  if (kinds.every((kind) => kind === kinds[0])) return `${kinds[0]}${suffix}`;
  return `spec ${selection.spec}, state ${selection.state}, audit ${selection.audit}, blobs ${selection.blob}${suffix}`;
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
      `Configuration ${describeKey("svc.persistence-dir", dir)}: cannot create the directory: ${
        failureAbout(String(err), dir)
      }`,
    );
  }
  const lock = await lockDirectory(dir, describeKey("svc.persistence-dir", dir));
  const path = `${dir.replace(/\/+$/, "") || "/"}/${KV_FILE}`;
  try {
    return await KvDatabase.open(path, warn, lock);
  } catch (err) {
    lock.release();
    throw new Error(
      `Storage backend 'kv': cannot open ${quoted(path, MAX_QUOTED_WORD)}: ${
        failureAbout((err as Error).message, path)
      }`,
    );
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
  for (const line of unusedStorageKeys(lookup, selection)) warn(line);
  const kinds = [selection.spec, selection.state, selection.audit, selection.blob];
  const created = (kinds.includes("kv") || selection.spec === "filesystem") &&
    // A path that cannot even be looked at fails below, with the key named.
    !(await exists(selection.dir).catch(() => true));
  // This function holds each database while the stores take their own references.
  const kv = kinds.includes("kv") ? (await openDatabase(selection.dir, warn)).acquire() : null;
  const pg = kinds.includes("postgres")
    ? (await PgDatabase.open(selection.postgres.url!, selection.postgres.poolSize).catch(async (err) => {
      await kv?.release();
      throw err;
    })).acquire()
    : null;
  // Older instances still running keep working beside a migrated schema, but a restarted one refuses it.
  if (pg?.migratedFrom) {
    warn(
      `postgres (${pg.description}): migrated the schema from version ${pg.migratedFrom} to ` +
        `${MIGRATIONS.length}; instances of the older build still running keep working, restarted they refuse it`,
    );
  }
  // One database's outage is reported once, whichever store meets it first.
  const outages = pg && new PgOutages(pg.description, warn);
  const memoryAudit = selection.audit === "memory" ? new MemoryAuditTrail() : null;
  const options = { compactionThreshold: selection.compactionThreshold, warn };
  const fsDirs = [
    selection.spec === "filesystem" ? selection.dir : null,
    selection.blob === "filesystem" ? selection.blobDir : null,
  ].filter(Boolean).join(", ");
  // The model and blob directories are usually on one disk: one full state, logged once.
  const fsDisk = fsDirs ? new DiskFull(`filesystem (${fsDirs})`, warn) : null;
  let store: ModelStore;
  try {
    store = selection.spec === "kv"
      ? new KvModelStore(kv!, {
        ...options,
        state: selection.state === "kv",
        audit: selection.audit === "kv" ? "kv" : memoryAudit,
      })
      : selection.spec === "filesystem"
      ? await FsModelStore.open(selection.dir, {
        ...options,
        disk: fsDisk!,
        state: selection.state === "filesystem",
        audit: selection.audit === "filesystem" ? "filesystem" : memoryAudit,
      })
      : selection.spec === "postgres"
      ? outages!.wrap(
        new PgModelStore(pg!, { ...options, audit: selection.audit === "postgres", ...selection.postgres }),
      )
      : new MemoryModelStore(selection.audit === "none" ? null : memoryAudit ?? new MemoryAuditTrail());
  } catch (err) {
    await kv?.release();
    await pg?.release();
    throw err;
  }
  try {
    const blobs: BlobStore = selection.blob === "kv"
      ? await KvBlobStore.open(kv!)
      : selection.blob === "filesystem"
      ? await FsBlobStore.open(selection.blobDir, fsDisk!)
      : selection.blob === "postgres"
      ? outages!.wrap(new PgBlobStore(pg!))
      : new MemoryBlobStore();
    const where = {
      kv: kv?.path,
      filesystem: [
        selection.spec === "filesystem" ? [selection.dir] : [],
        selection.blob === "filesystem" ? [selection.blobDir] : [],
      ].flat(),
      postgres: pg?.description,
    };
    // A directory moved away while the setting still names it starts an empty store there, silently.
    if (created) {
      warn(
        `${describeKey("svc.persistence-dir", selection.dir)} did not exist: created ${await Deno.realPath(
          selection.dir,
        )}, a new, empty store (a moved data directory is named with SVC_PERSISTENCE_DIR)`,
      );
    }
    const database = kv;
    const disks = [database, fsDisk].filter((disk) => disk !== null);
    return {
      store,
      blobs,
      description: describeStorage(selection, where),
      full: disks.length ? () => disks.some((disk) => disk.full) : undefined,
      trouble: () => {
        const disk = disks.map((disk) => disk.trouble).find((trouble) => trouble !== null);
        return disk
          ? `${disk}: writes are refused`
          : outages?.down
          ? `the database cannot be reached (${pg!.description})`
          : null;
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  } finally {
    await kv?.release();
    await pg?.release();
  }
}
