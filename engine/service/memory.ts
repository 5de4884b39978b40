/**
 * In-memory storage: nothing survives the process. Models live in the service's
 * runtimes already, so the model store only keeps the audit trail.
 *
 * @module
 */
import type { AuditRecord } from "../audit/chain.ts";
import type { AuditQuery, BlobStore, LoadedModel, ModelStore, StoredBlob } from "./ports.ts";
import { filterAudit } from "./audit_query.ts";

/** A model store that keeps only audit trails, in memory. */
export class MemoryModelStore implements ModelStore {
  readonly description = "memory";
  readonly #audit = new Map<string, AuditRecord[]>();

  load(): Promise<LoadedModel[]> {
    return Promise.resolve([]);
  }
  save(): Promise<void> {
    return Promise.resolve();
  }
  commit(modelId: string, _entry: unknown, _state: unknown, audit: AuditRecord | null): Promise<void> {
    if (audit) {
      let list = this.#audit.get(modelId);
      if (!list) this.#audit.set(modelId, list = []);
      list.push(audit);
    }
    return Promise.resolve();
  }
  delete(modelId: string): Promise<void> {
    this.#audit.delete(modelId);
    return Promise.resolve();
  }
  lastAudit(modelId: string): Promise<AuditRecord | null> {
    return Promise.resolve(this.#audit.get(modelId)?.at(-1) ?? null);
  }
  listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]> {
    return Promise.resolve(filterAudit([...(this.#audit.get(modelId) ?? [])].reverse(), query));
  }
  allAudit(modelId: string): Promise<AuditRecord[]> {
    return Promise.resolve([...(this.#audit.get(modelId) ?? [])]);
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
}
