/// <reference lib="dom" />
/**
 * Models in IndexedDB, behind the engine's {@link ModelStore} port: the same
 * contract as memory and Deno KV (tests/storage/contract.ts).
 *
 * Keys in the `models` object store:
 * - `["model", id]`: the header `{spec, base, baseAt, logStart, nextLog}`;
 * - `["log", id, seq]`: committed writes after the base, `logStart <= seq < nextLog`;
 * - `["audit", id, sequence]`: the hash-chained audit trail, never compacted;
 * - `["job", id, jobId]`: the outbox, effect jobs fired and not yet settled;
 * - `["recovery", id, n]`: states that could not be reconstructed, kept for an operator.
 *
 * A commit is one IndexedDB transaction holding its log entry, its audit record,
 * its outbox changes, the header and, every `compactionThreshold` entries, the
 * folded base state: it is all there after a reload or none of it is.
 *
 * @module
 */
import type { UseStore } from "idb-keyval";
import {
  type AuditQuery,
  type AuditRecord,
  type CommitStates,
  type LoadedModel,
  type LogEntry,
  type ModelSpec,
  type ModelStore,
  type PersistedState,
  type RecoveryRecord,
  type RecoverySummary,
  summarizeRecovery,
} from "../../engine/mod.ts";
import { type EffectJob, isEffectJob, type JobChanges } from "../../engine/effects/job.ts";
import { filterAudit } from "../../engine/service/audit_query.ts";
import {
  type BrowserDatabase,
  prefixRange,
  readLast,
  readRange,
  writeOrExplain,
  type WriteSet,
} from "./database.ts";

/** The stored header of a model. */
interface Header {
  spec: ModelSpec;
  base: PersistedState | null;
  baseAt: number | null;
  logStart: number;
  nextLog: number;
}

/** Options of {@link IdbModelStore}. */
export interface IdbModelStoreOptions {
  /** Log entries folded into the base state per compaction (default 100). */
  compactionThreshold?: number;
  /** Called when the store is closed (releases the shared database). */
  onClose?: () => void;
}

const keys = {
  header: (id: string) => ["model", id],
  log: (id: string, seq?: number) => seq === undefined ? ["log", id] : ["log", id, seq],
  audit: (id: string, sequence?: number) => sequence === undefined ? ["audit", id] : ["audit", id, sequence],
  jobs: (id: string, jobId?: string) => jobId === undefined ? ["job", id] : ["job", id, jobId],
  recovery: (id?: string, n?: number) =>
    id === undefined ? ["recovery"] : n === undefined ? ["recovery", id] : ["recovery", id, n],
};

/** The puts and deletes of outbox changes. */
function jobWrites(modelId: string, changes: JobChanges | undefined): Required<WriteSet> {
  return {
    put: (changes?.put ?? []).map((job) => [keys.jobs(modelId, job.id), job]),
    delete: (changes?.remove ?? []).map((jobId) => keys.jobs(modelId, jobId)),
  };
}

/** The IndexedDB model store. */
export class IdbModelStore implements ModelStore {
  readonly description: string;
  readonly #db: BrowserDatabase;
  readonly #store: UseStore;
  readonly #threshold: number;
  readonly #onClose?: () => void;
  readonly #headers = new Map<string, Header>();
  #closed = false;

  constructor(db: BrowserDatabase, options: IdbModelStoreOptions = {}) {
    this.#db = db;
    this.#store = db.models;
    this.#threshold = options.compactionThreshold ?? 100;
    this.#onClose = options.onClose;
    this.description = `indexeddb (${db.name})`;
  }

  #write(writes: WriteSet, doing: string): Promise<void> {
    return writeOrExplain(this.#db, this.#store, writes, doing);
  }

  async load(): Promise<LoadedModel[]> {
    const headers = await readRange<Header>(this.#store, ["model"]);
    const loaded: LoadedModel[] = [];
    for (const header of headers) {
      const id = header.spec.id;
      this.#headers.set(id, header);
      const log = await readRange<LogEntry>(this.#store, keys.log(id));
      const jobs = (await readRange<EffectJob>(this.#store, keys.jobs(id))).filter(isEffectJob);
      const problem = !header.base
        ? "no state is stored"
        : log.length !== header.nextLog - header.logStart
        ? "its write log has gaps"
        : null;
      // A state that cannot be rebuilt comes with what could be read, for recovery.
      loaded.push({
        spec: header.spec,
        base: header.base,
        baseAt: header.baseAt,
        log,
        jobs,
        ...problem ? { problem } : {},
      });
    }
    return loaded;
  }

  async save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges } = {},
  ): Promise<void> {
    const id = spec.id;
    const previous = options.created ? undefined : this.#headers.get(id);
    const start = previous?.nextLog ?? 0;
    const header: Header = { spec, base: state, baseAt: null, logStart: start, nextLog: start };
    const jobs = jobWrites(id, options.jobs);
    await this.#write({
      // A created model starts clean: leftovers under its id belong to no live model.
      delete: [
        prefixRange(keys.log(id)),
        ...options.created ? [prefixRange(keys.audit(id)), prefixRange(keys.jobs(id))] : jobs.delete,
      ],
      put: [[keys.header(id), header], ...jobs.put],
    }, `save model '${id}'`);
    this.#headers.set(id, header);
  }

  async commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    const stored = this.#headers.get(modelId);
    if (!stored) throw new Error(`model '${modelId}' is not in the IndexedDB store`);
    const header: Header = { ...stored, nextLog: stored.nextLog + 1 };
    const writes = jobWrites(modelId, jobs);
    writes.put.push([keys.log(modelId, stored.nextLog), entry]);
    if (audit) writes.put.push([keys.audit(modelId, audit.sequence), audit]);
    const logLength = header.nextLog - header.logStart;
    if (logLength >= this.#threshold) {
      const point = states.checkpoint();
      const folded = logLength - point.following;
      if (folded >= this.#threshold) {
        header.base = point.state();
        header.baseAt = point.at;
        header.logStart += folded;
        writes.delete.push(
          IDBKeyRange.bound(keys.log(modelId, 0), keys.log(modelId, header.logStart), false, true),
        );
      }
    }
    writes.put.push([keys.header(modelId), header]);
    await this.#write(writes, `record a change of model '${modelId}'`);
    this.#headers.set(modelId, header);
  }

  async updateJobs(modelId: string, jobs: JobChanges): Promise<void> {
    if (!this.#headers.has(modelId)) return;
    await this.#write(jobWrites(modelId, jobs), `record an effect of model '${modelId}'`);
  }

  async delete(modelId: string): Promise<void> {
    await this.#write({
      delete: [
        keys.header(modelId),
        prefixRange(keys.log(modelId)),
        prefixRange(keys.audit(modelId)),
        prefixRange(keys.jobs(modelId)),
      ],
    }, `delete model '${modelId}'`);
    this.#headers.delete(modelId);
  }

  lastAudit(modelId: string): Promise<AuditRecord | null> {
    return readLast<AuditRecord>(this.#store, keys.audit(modelId));
  }

  async listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]> {
    return filterAudit((await this.allAudit(modelId)).reverse(), query);
  }

  allAudit(modelId: string): Promise<AuditRecord[]> {
    return readRange<AuditRecord>(this.#store, keys.audit(modelId));
  }

  async keepForRecovery(record: RecoveryRecord): Promise<void> {
    const kept = await readRange<RecoveryRecord>(this.#store, keys.recovery(record.modelId));
    await this.#write(
      { put: [[keys.recovery(record.modelId, kept.length), record]] },
      `keep the unreadable state of model '${record.modelId}'`,
    );
  }

  async listRecovery(): Promise<RecoverySummary[]> {
    const records = await readRange<RecoveryRecord>(this.#store, keys.recovery());
    return records.sort((a, b) => a.detectedAt.localeCompare(b.detectedAt)).map(summarizeRecovery);
  }

  getRecovery(modelId: string): Promise<RecoveryRecord[]> {
    return readRange<RecoveryRecord>(this.#store, keys.recovery(modelId));
  }

  async deleteRecovery(modelId: string): Promise<number> {
    const kept = await this.getRecovery(modelId);
    if (kept.length) {
      await this.#write(
        { delete: [prefixRange(keys.recovery(modelId))] },
        `delete the recovery records of model '${modelId}'`,
      );
    }
    return kept.length;
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#onClose?.();
    }
    return Promise.resolve();
  }
}
