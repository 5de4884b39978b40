/**
 * In-memory storage: nothing survives the process. Models live in the service's
 * runtimes already, so the model store only keeps the audit trail.
 *
 * @module
 */
import type { AuditRecord } from "../audit/chain.ts";
import type { JobChanges } from "../effects/job.ts";
import type { ModelSpec } from "../model/types.ts";
import type {
  AuditQuery,
  BlobStore,
  LoadedModel,
  ModelStore,
  PersistedState,
  RecoveryRecord,
  RecoverySummary,
  StoredBlob,
} from "./ports.ts";
import { filterAudit } from "./audit_query.ts";

/** Audit trails kept in memory (the `memory` audit backend), oldest record first. */
export class MemoryAuditTrail {
  readonly #trails = new Map<string, AuditRecord[]>();

  /** Appends a committed cycle's record. */
  append(record: AuditRecord): void {
    let list = this.#trails.get(record.modelId);
    if (!list) this.#trails.set(record.modelId, list = []);
    list.push(record);
  }
  /** Drops a model's trail. */
  delete(modelId: string): void {
    this.#trails.delete(modelId);
  }
  /** The newest record of a model. */
  last(modelId: string): AuditRecord | null {
    return this.#trails.get(modelId)?.at(-1) ?? null;
  }
  /** Records matching a query, newest first. */
  list(modelId: string, query: AuditQuery): AuditRecord[] {
    return filterAudit([...(this.#trails.get(modelId) ?? [])].reverse(), query);
  }
  /** Every record of a model in sequence order. */
  all(modelId: string): AuditRecord[] {
    return [...(this.#trails.get(modelId) ?? [])];
  }
}

/**
 * A model store that keeps only audit trails, in memory (`null`: no audit
 * backend, reads are empty). Models and their outstanding effect jobs live in
 * the service already.
 */
export class MemoryModelStore implements ModelStore {
  readonly description: string;
  readonly #audit: MemoryAuditTrail | null;
  #recovery: RecoveryRecord[] = [];

  constructor(audit: MemoryAuditTrail | null = new MemoryAuditTrail()) {
    this.#audit = audit;
    this.description = audit ? "memory" : "memory (no audit trail)";
  }

  load(): Promise<LoadedModel[]> {
    return Promise.resolve([]);
  }
  // The port's parameters are declared, though not all used, so that a test's store can extend this one.
  save(
    spec: ModelSpec,
    _state: PersistedState,
    options?: { created?: boolean; jobs?: JobChanges },
  ): Promise<void> {
    // A created model starts with an empty trail, as in every store: an old one under its id is no record of it.
    if (options?.created) this.#audit?.delete(spec.id);
    return Promise.resolve();
  }
  commit(_modelId: string, _entry: unknown, _states: unknown, audit: AuditRecord | null): Promise<void> {
    if (audit) this.#audit?.append(audit);
    return Promise.resolve();
  }
  delete(modelId: string): Promise<void> {
    this.#audit?.delete(modelId);
    return Promise.resolve();
  }
  lastAudit(modelId: string): Promise<AuditRecord | null> {
    return Promise.resolve(this.#audit?.last(modelId) ?? null);
  }
  listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]> {
    return Promise.resolve(this.#audit?.list(modelId, query) ?? []);
  }
  allAudit(modelId: string): Promise<AuditRecord[]> {
    return Promise.resolve(this.#audit?.all(modelId) ?? []);
  }
  keepForRecovery(record: RecoveryRecord): Promise<void> {
    this.#recovery.push(structuredClone(record));
    return Promise.resolve();
  }
  listRecovery(): Promise<RecoverySummary[]> {
    return Promise.resolve(this.#recovery.map(summarizeRecovery));
  }
  getRecovery(modelId: string): Promise<RecoveryRecord[]> {
    return Promise.resolve(structuredClone(this.#recovery.filter((r) => r.modelId === modelId)));
  }
  deleteRecovery(modelId: string): Promise<number> {
    const before = this.#recovery.length;
    this.#recovery = this.#recovery.filter((r) => r.modelId !== modelId);
    return Promise.resolve(before - this.#recovery.length);
  }
  /** Outstanding effect jobs live in the service, like states: nothing to keep here. */
  updateJobs(_modelId: string, _jobs: JobChanges): Promise<void> {
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Blobs in memory. */
export class MemoryBlobStore implements BlobStore {
  readonly description = "memory";
  readonly enumerable = true;
  readonly #blobs = new Map<string, StoredBlob>();
  #total = 0;

  put(blobId: string, blob: StoredBlob): Promise<void> {
    if (!this.#blobs.has(blobId)) {
      this.#blobs.set(blobId, blob);
      this.#total += blob.bytes.byteLength;
    }
    return Promise.resolve();
  }
  get(blobId: string): Promise<StoredBlob | null> {
    return Promise.resolve(this.#blobs.get(blobId) ?? null);
  }
  has(blobId: string): Promise<boolean> {
    return Promise.resolve(this.#blobs.has(blobId));
  }
  delete(blobId: string): Promise<void> {
    const blob = this.#blobs.get(blobId);
    if (blob) {
      this.#total -= blob.bytes.byteLength;
      this.#blobs.delete(blobId);
    }
    return Promise.resolve();
  }
  list(): Promise<{ blobId: string; bytes: number }[]> {
    return Promise.resolve([...this.#blobs].map(([blobId, b]) => ({ blobId, bytes: b.bytes.byteLength })));
  }
  totalBytes(): Promise<number> {
    return Promise.resolve(this.#total);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** A recovery record's summary. */
export function summarizeRecovery(record: RecoveryRecord): RecoverySummary {
  return {
    modelId: record.modelId,
    detectedAt: record.detectedAt,
    reason: record.reason,
    logEntries: record.log.length,
  };
}
