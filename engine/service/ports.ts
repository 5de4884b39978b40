/**
 * Storage ports of the service: what it persists and reads back. Memory
 * implementations live in `memory.ts`; the server adds Deno KV, a filesystem
 * and PostgreSQL, the browser IndexedDB, behind the same interfaces.
 *
 * A store that several processes share (PostgreSQL; IndexedDB, shared by a
 * browser's tabs) adds a {@link StoreCoordination}: its writes refuse to build
 * on a model another process has changed since ({@link StaleModelError}), and
 * it tells the service what changed and which effect jobs this process may run.
 * A store with one writer has none ({@link SINGLE_WRITER} stands in).
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
  /**
   * The audit record a stored log entry disagreed with (`problem` says how):
   * tampering, kept with the recovery record so verify reports it.
   */
  auditSequence?: number;
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
  /**
   * The audit record a logged write disagreed with, when that was the problem:
   * verify reports the model's trail invalid while this record is kept.
   */
  auditSequence?: number;
}

/** A recovery record without its contents. */
export interface RecoverySummary {
  modelId: string;
  detectedAt: string;
  reason: string;
  logEntries: number;
}

/** What deleting a model's recovery records removed. */
export interface RecoveryDeletion {
  modelId: string;
  /** How many kept records there were. */
  deleted: number;
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

/** One committed cycle as {@link ModelStore.commitMany} takes it (the arguments of `commit`). */
export interface CommitRecord {
  entry: LogEntry;
  states: CommitStates;
  audit: AuditRecord | null;
  jobs?: JobChanges;
}

/** Refusal of {@link ModelStore.commitMany}: the commits do not fit one atomic write (nothing was written). */
export class BatchTooLargeError extends Error {
  constructor(modelId: string, commits: number) {
    super(`the ${commits} commits of model '${modelId}' do not fit one atomic write`);
    this.name = "BatchTooLargeError";
  }
}

/** The states a commit offers its store, built only on demand and valid until `commit` resolves. */
export interface CommitStates {
  /** The state after this commit. */
  current(): PersistedState;
  /**
   * The state to fold the log into, with history as it will be once this commit
   * is applied; the same whenever it is called (a store may fold after later commits).
   */
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
  /** Exclusive upper bound of `sequence`: a page's cursor (commits may share a millisecond). */
  before?: number;
  /** Newest first, at most this many. */
  limit: number;
}

/** Models, their states and audit trails. */
export interface ModelStore {
  /** Human-readable backend description for the startup line. */
  readonly description: string;
  /** How processes sharing this store coordinate; absent for a store with one writer. */
  readonly coordination?: StoreCoordination;
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
   * A shared store throws {@link StaleModelError} (writing nothing) when another
   * process changed the model since this one last read or wrote it, or
   * claimed a job the commit updates since this one last held it (its lease ran
   * out: run again, this one's claim fails); so do `save` (unless `created`)
   * and `delete`.
   */
  commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void>;
  /**
   * Durably records consecutive committed cycles of one model, in order, in
   * one atomic write: all of them or none. Offered by stores with a single
   * writer (no {@link StoreCoordination}), whose writes wait for a durable
   * write each (Deno KV's fsync): a model's queued writes then share one.
   * Throws {@link BatchTooLargeError}, writing nothing, when they do not fit
   * one atomic write; the caller then commits them one by one. Their `jobs`
   * only put new jobs.
   */
  commitMany?(modelId: string, commits: readonly CommitRecord[]): Promise<void>;
  /**
   * Durably changes a model's outbox on its own (an attempt counted, a job
   * dropped). No store brings back a job settled since ({@link JobChanges}
   * `update`); shared stores each their own way: IndexedDB's moves the model's
   * revision, so it throws {@link StaleModelError} as a commit does (and the
   * other tabs refresh); PostgreSQL's moves none and never throws.
   */
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
  /** Removes a model's kept recovery records (an operator's decision); how many there were. */
  deleteRecovery(modelId: string): Promise<number>;
  /** Releases resources. */
  close(): Promise<void>;
}

/** Thrown by a shared store's writes when the model changed under this process: refresh and evaluate again. */
export class StaleModelError extends Error {
  constructor(readonly modelId: string) {
    super(`model '${modelId}' was changed by another process`);
    this.name = "StaleModelError";
  }
}

/** Commits another process made to a model, to replay on the cached runtime. */
export interface StoredCommits {
  kind: "commits";
  /** Oldest first. */
  entries: LogEntry[];
  /** The model's outbox after them. */
  jobs: EffectJob[];
  /** The newest audit record's sequence and hash, `null` when the trail is empty or not kept. */
  auditHead: { sequence: number; hash: string } | null;
}

/** What of a model changed since this process last read or wrote it. */
export type ModelRefresh =
  | { kind: "current" }
  | StoredCommits
  /** Created, evolved, restored or too far behind to replay: load it anew. */
  | { kind: "replaced"; model: LoadedModel }
  | { kind: "deleted" };

/** What a shared store tells the service. */
export type StoreChange =
  /** Another process created, changed or deleted this model. */
  | { type: "model"; modelId: string }
  /** Jobs this process now holds: due ones nobody runs (their process died). */
  | { type: "jobs"; jobs: EffectJob[] };

/** Coordination of the processes sharing one store. */
export interface StoreCoordination {
  /**
   * What changed of a model since this process last read or wrote it; `full`
   * loads it anew whatever changed (after a replay failed, or for a model this
   * process does not have).
   */
  refresh(modelId: string, options?: { full?: boolean }): Promise<ModelRefresh>;
  /**
   * Reports other processes' changes and jobs handed over; resolves, with the
   * unsubscribe function, once every change made after that is sure to be reported.
   */
  watch(listener: (change: StoreChange) => void): Promise<() => void>;
  /**
   * Takes or renews the right to run a job until `holdMs` after it is due, and
   * returns the job as stored: another process may have counted attempts on
   * it or put it off since this one's copy was made. `null` while another live
   * process holds it, or once it is gone (settled elsewhere). Each job so runs
   * in one process at a time, from its latest attempt count.
   */
  claim(job: EffectJob, holdMs: number): Promise<EffectJob | null>;
}

/** The coordination of a store with one writer: nothing changes behind its back, every job is its own. */
export const SINGLE_WRITER: StoreCoordination = {
  refresh: () => Promise.resolve({ kind: "current" }),
  watch: () => Promise.resolve(() => {}),
  claim: (job) => Promise.resolve(job),
};

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
