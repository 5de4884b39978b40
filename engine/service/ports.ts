/**
 * Storage ports of the service: what it persists and reads back. Memory
 * implementations live in `memory.ts`; the server adds Deno KV, the browser
 * IndexedDB, behind the same interfaces.
 *
 * @module
 */
import type { AuditRecord } from "../audit/chain.ts";
import type { Json } from "../json/value.ts";
import type { ModelSpec } from "../spec/types.ts";

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
  /** The last full state, or `null` when it could not be read. */
  base: PersistedState | null;
  /** Commits after `base`, oldest first, to replay. */
  log: LogEntry[];
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
  /** Stores a model's spec and full state, dropping any previous log (create, evolve, restore). */
  save(spec: ModelSpec, state: PersistedState): Promise<void>;
  /** Durably records one committed cycle: its log entry, the new state and its audit record. */
  commit(modelId: string, entry: LogEntry, state: () => PersistedState, audit: AuditRecord | null): Promise<void>;
  /** Removes a model, its state and its audit trail. */
  delete(modelId: string): Promise<void>;
  /** The newest audit record of a model. */
  lastAudit(modelId: string): Promise<AuditRecord | null>;
  /** Audit records, newest first. */
  listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]>;
  /** Every audit record in sequence order, for verification. */
  allAudit(modelId: string): Promise<AuditRecord[]>;
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
}
