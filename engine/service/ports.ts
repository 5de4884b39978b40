/**
 * Storage ports of the service: what it persists and reads back. Memory
 * implementations live in `memory.ts`; the server adds Deno KV, the browser
 * IndexedDB, behind the same interfaces.
 *
 * @module
 */
import type { AuditRecord } from "../audit/chain.ts";
import type { EffectJob, JobChanges } from "../effects/job.ts";
import type { Json } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";

/** A persisted state: merged document, meta cache and stale lazy keys. */
export interface PersistedState {
  doc: Json;
  meta: [string, Json][];
  stale: string[];
}

/** One committed write, replayable through the pipeline. */
export interface LogEntry {
  /** Epoch milliseconds of the commit. */
  at: number;
  source: "client" | "patch" | "foldback";
  /** The flat mutation map, or the patch operations. */
  request: Json;
}

/** A model as loaded at startup. */
export interface LoadedModel {
  spec: ModelSpec;
  /**
   * The last full state; `null` when the backend keeps no state (the model
   * starts from its initial state) or when it could not be read (`problem` says why).
   */
  base: PersistedState | null;
  /**
   * Commit time of `base` when `base` is itself a retained history entry (a
   * compacted post-commit state); `null` or absent for a created, restored or
   * evolved state, which history does not hold.
   */
  baseAt?: number | null;
  /** Commits after `base`, oldest first, to replay (rebuilding history too). */
  log: LogEntry[];
  /**
   * Why the stored state cannot be reconstructed; the model then loads spec-only
   * with state reset, and `base` and `log` hold whatever could still be read
   * (kept for recovery, never replayed).
   */
  problem?: string;
  /** The model's outstanding effect jobs (its outbox). */
  jobs?: EffectJob[];
}

/** A state that could not be reconstructed at startup, kept for an operator. */
export interface RecoveryRecord {
  modelId: string;
  /** When the load found it (ISO-8601). */
  detectedAt: string;
  /** Why it could not be reconstructed. */
  reason: string;
  /** The stored spec the model loaded with. */
  spec: ModelSpec;
  /** The stored base state, when it could be read. */
  base: PersistedState | null;
  /** Commit time of the base when it was a history state. */
  baseAt: number | null;
  /** The logged writes after the base that could be read, oldest first. */
  log: LogEntry[];
}

/** A recovery record without its contents. */
export interface RecoverySummary {
  modelId: string;
  detectedAt: string;
  reason: string;
  logEntries: number;
}

/**
 * The state a store may fold its log into (compaction), chosen so that replaying
 * the kept log entries rebuilds the retained history: the oldest retained
 * history state, or the new state itself when history is disabled.
 */
export interface Checkpoint {
  /** Commit time of the state when it is a retained history entry, else `null`. */
  at: number | null;
  /** How many of the newest log entries (the committing one included) follow the state and must be kept. */
  following: number;
  /** The state itself, built only when the store compacts. */
  state(): PersistedState;
}

/** The states a commit offers its store, built only on demand and valid until `commit` resolves. */
export interface CommitStates {
  /** The state after this commit. */
  current(): PersistedState;
  /** The state to fold the log into, with history as it will be once this commit is applied. */
  checkpoint(): Checkpoint;
}

/** Query of an audit read. */
export interface AuditQuery {
  /** Keep records whose mutations or derived paths start with this address. */
  pathPrefix?: string;
  /** Inclusive lower bound, epoch ms. */
  from?: number;
  /** Exclusive upper bound, epoch ms. */
  to?: number;
  /** Newest first, at most this many. */
  limit: number;
}

/** Models, their states and audit trails. */
export interface ModelStore {
  /** Human-readable backend description for the startup line. */
  readonly description: string;
  /** Every stored model. */
  load(): Promise<LoadedModel[]>;
  /**
   * Stores a model's spec and full state, dropping any previous log (create,
   * evolve, restore, reset). `created`: a new model, so anything still stored
   * under its id (an unloadable model's spec, state, audit trail, outbox) is
   * discarded. `jobs`: outbox changes made in the same durable write.
   */
  save(
    spec: ModelSpec,
    state: PersistedState,
    options?: { created?: boolean; jobs?: JobChanges },
  ): Promise<void>;
  /**
   * Durably records one committed cycle (its log entry, audit record and the
   * outbox changes it makes: jobs it fired, the job it settled) in one atomic
   * write before resolving; a store keeping a log folds it into
   * `states.checkpoint()` every `svc.storage.compaction-threshold` entries.
   */
  commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void>;
  /** Durably changes a model's outbox on its own (an attempt counted, a job dropped). */
  updateJobs(modelId: string, jobs: JobChanges): Promise<void>;
  /** Removes a model, its state, its audit trail and its outbox. */
  delete(modelId: string): Promise<void>;
  /** The newest audit record of a model. */
  lastAudit(modelId: string): Promise<AuditRecord | null>;
  /** Audit records, newest first. */
  listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]>;
  /** Every audit record in sequence order, for verification. */
  allAudit(modelId: string): Promise<AuditRecord[]>;
  /**
   * Keeps a state that could not be reconstructed, under its own key, before
   * the model is reset; kept until an operator removes the model's recovery
   * records (deleting or recreating the model does not).
   */
  keepForRecovery(record: RecoveryRecord): Promise<void>;
  /** Every kept recovery record, without contents, oldest first. */
  listRecovery(): Promise<RecoverySummary[]>;
  /** The kept recovery records of a model, oldest first. */
  getRecovery(modelId: string): Promise<RecoveryRecord[]>;
  /** Releases resources. */
  close(): Promise<void>;
}

/** A stored blob. */
export interface StoredBlob {
  bytes: Uint8Array;
  mediaType: string;
}

/** Content-addressed binary storage. */
export interface BlobStore {
  readonly description: string;
  /** Whether blobs can be enumerated (garbage collection sweeps only those). */
  readonly enumerable: boolean;
  put(blobId: string, blob: StoredBlob): Promise<void>;
  get(blobId: string): Promise<StoredBlob | null>;
  has(blobId: string): Promise<boolean>;
  delete(blobId: string): Promise<void>;
  /** Every blob id with its size. */
  list(): Promise<{ blobId: string; bytes: number }[]>;
  /** Sum of stored sizes. */
  totalBytes(): Promise<number>;
  /** Releases resources. */
  close(): Promise<void>;
}
