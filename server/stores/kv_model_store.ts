/**
 * Models in Deno KV: spec, state (a base snapshot plus a mutation log, folded
 * every `svc.storage.compaction-threshold` entries) and the hash-chained audit trail.
 *
 * Keys of a model `id`:
 * - `["models", id]`: the header `{spec, base, baseAt, logStart}`; spec and base
 *   are {@link ValueRef}s to chunks under `["m", id, "v", gen]`.
 * - `["m", id, "log", seq]`: log entries from `logStart` on (replayed at startup).
 * - `["m", id, "audit", sequence]`: audit records, never compacted. The newest `{sequence, hash}`
 *   is kept beside them, so a deleted newest record is noticed too: in the log entry of the
 *   commit that wrote it (`auditHead`) while the state is kept, and at `["m", id, "audit-head"]`
 *   once those entries are folded or when no state is kept (the newer of the two counts).
 * - `["m", id, "job", n]`: the outbox: effect jobs fired and not yet settled, written and
 *   removed in the same atomic operation as the commits that fire and settle them.
 * - `["deleting", id]`: a deletion whose sweep of `["m", id]` has not finished.
 *
 * A commit is one atomic operation holding its log entry and audit record (two
 * keys: the head rides in the log entry), batched with concurrent commits of
 * other models (group commit). Compaction
 * keeps the log entries after the oldest retained history state, so replaying
 * them at startup rebuilds history with its timestamps.
 *
 * @module
 */
import { type AuditRecord, GENESIS_HASH } from "../../engine/audit/chain.ts";
import { type EffectJob, isEffectJob, type JobChanges } from "../../engine/effects/job.ts";
import { filterAudit } from "../../engine/service/audit_query.ts";
import { type MemoryAuditTrail, summarizeRecovery } from "../../engine/service/memory.ts";
import type {
  AuditQuery,
  CommitStates,
  LoadedModel,
  LogEntry,
  ModelStore,
  PersistedState,
  RecoveryRecord,
  RecoverySummary,
} from "../../engine/service/ports.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import { serverHasher } from "../platform.ts";
import { checkStoredId, foldPoint, isLogEntry, isPersistedState } from "./stored_model.ts";
import { type AuditHead, isAuditHead, lastWithHead, parseAudit, trailWithHead } from "./stored_audit.ts";
import type { KvDatabase, KvMutation } from "./kv_database.ts";
import {
  decodeJson,
  encodeJson,
  generationBytes,
  isValueRef,
  readGenerations,
  readRecords,
  recordKeys,
  recordMutations,
  type StoredRecord,
  valueKeys,
  valueMutations,
  type ValueRef,
} from "./kv_values.ts";

/** What a KV model store keeps besides specs. */
export interface KvModelStoreOptions {
  /** Whether state (base and log) is kept; otherwise models restart from their initial state. */
  state: boolean;
  /** Where audit records go: `kv`, a memory trail, or nowhere (`null`). */
  audit: "kv" | MemoryAuditTrail | null;
  /** Log entries folded per compaction. */
  compactionThreshold: number;
  warn(message: string): void;
}

/** The stored header of a model. */
interface ModelHeader {
  spec: ValueRef;
  base: ValueRef | null;
  /** Commit time of the base when it is a retained history state. */
  baseAt: number | null;
  /** Sequence of the first log entry after the base. */
  logStart: number;
}

/** What the store tracks of a stored model (one writer per database). */
interface StoredModel {
  header: ModelHeader;
  /** Log entries after the base, oldest first, with the keys they occupy. */
  log: { seq: number; keys: Deno.KvKey[] }[];
  nextLog: number;
  /** Outbox records by job id, with the keys they occupy. */
  jobs: Map<string, Deno.KvKey[]>;
  nextJob: number;
  /** The newest audit record written, as far as this store knows (the trail's witness). */
  auditHead: AuditHead | null;
}

/** A log entry as stored: the entry, and the audit head of its commit when the trail is in KV. */
interface StoredLogEntry extends LogEntry {
  auditHead?: AuditHead;
}

/** The newer of two heads (by sequence; on a tie the first, the one stored on its own). */
function newerHead(a: AuditHead | null, b: AuditHead | null): AuditHead | null {
  return !a || (b && b.sequence > a.sequence) ? b : a;
}

/** Keys deleted per sweep step, and audit records filtered per page. */
const BATCH = 500;

/** The keys of the KV layout. */
export const kvKeys = {
  header: (id: string): Deno.KvKey => ["models", id],
  deleting: (id: string): Deno.KvKey => ["deleting", id],
  data: (id: string): Deno.KvKey => ["m", id],
  values: (id: string): Deno.KvKey => ["m", id, "v"],
  log: (id: string): Deno.KvKey => ["m", id, "log"],
  audit: (id: string): Deno.KvKey => ["m", id, "audit"],
  auditHead: (id: string): Deno.KvKey => ["m", id, "audit-head"],
  /** A kept unreadable state: `{ref, summary}`, its chunks under {@link kvKeys.recoveryValues}. */
  recovery: (id: string, at: number): Deno.KvKey => ["recovery", id, at],
  recoveryValues: (id: string, at: number): Deno.KvKey => ["recovery-v", id, at],
  jobs: (id: string): Deno.KvKey => ["m", id, "job"],
};

/** What `["recovery", id, at]` holds. */
interface RecoveryHeader {
  ref: ValueRef;
  summary: RecoverySummary;
}

function isHeader(value: unknown): value is ModelHeader {
  const h = value as ModelHeader;
  return h !== null && typeof h === "object" && isValueRef(h.spec) &&
    (h.base === null || isValueRef(h.base)) &&
    (h.baseAt === null || typeof h.baseAt === "number") && Number.isInteger(h.logStart);
}

function deletions(keys: readonly Deno.KvKey[]): KvMutation[] {
  return keys.map((key) => ({ key }));
}

/** An audit record read back (a placeholder with its key's sequence when unreadable). */
function auditOf(modelId: string, record: StoredRecord, prevHash: string): AuditRecord {
  return parseAudit(modelId, record.seq, record.bytes && new TextDecoder().decode(record.bytes), prevHash);
}

/** The KV model store. */
export class KvModelStore implements ModelStore {
  readonly description: string;
  readonly #db: KvDatabase;
  readonly #options: KvModelStoreOptions;
  readonly #models = new Map<string, StoredModel>();
  readonly #sweeps = new Map<string, Promise<void>>();
  #closing = false;
  #closed: Promise<void> | null = null;

  constructor(db: KvDatabase, options: KvModelStoreOptions) {
    this.#db = db.acquire();
    this.#options = options;
    this.description = `kv (${db.path})`;
  }

  get #kv(): Deno.Kv {
    return this.#db.kv;
  }

  async load(): Promise<LoadedModel[]> {
    for await (const entry of this.#kv.list({ prefix: ["deleting"] })) {
      await this.#sweep(entry.key[1] as string);
    }
    const loaded: LoadedModel[] = [];
    for await (const entry of this.#kv.list({ prefix: ["models"] })) {
      const model = await this.#loadModel(entry.key[1] as string, entry.value);
      if (model) loaded.push(model);
    }
    return loaded;
  }

  async #loadModel(id: string, header: unknown): Promise<LoadedModel | null> {
    if (!isHeader(header)) {
      this.#options.warn(`model '${id}' not loaded: its stored header is unreadable`);
      return null;
    }
    const generations = await readGenerations(this.#kv, kvKeys.values(id));
    let spec: ModelSpec;
    try {
      spec = decodeJson(await generationBytes(generations.get(header.spec.gen), header.spec)) as ModelSpec;
    } catch (err) {
      this.#options.warn(
        `model '${id}' not loaded: its stored spec is unreadable (${(err as Error).message})`,
      );
      return null;
    }
    const stored: StoredModel = {
      header,
      log: [],
      nextLog: header.logStart,
      jobs: new Map(),
      nextJob: 0,
      auditHead: await this.#auditHead(id),
    };
    this.#models.set(id, stored);
    const strays: Deno.KvKey[] = [];
    const log: LogEntry[] = [];
    let problem: string | null = null;
    for await (
      const record of readRecords(this.#kv, kvKeys.log(id), { onStray: (key) => strays.push(key) })
    ) {
      if (record.seq < header.logStart) {
        strays.push(...record.keys);
        continue;
      }
      stored.log.push({ seq: record.seq, keys: record.keys });
      stored.nextLog = record.seq + 1;
      if (problem) continue;
      const expected = header.logStart + log.length;
      const entry = record.bytes && record.seq === expected ? this.#decodeLogEntry(record.bytes) : null;
      if (record.seq !== expected) problem = `log entry ${expected} is missing`;
      else if (!entry) problem = `log entry ${record.seq} is unreadable`;
      else {
        log.push(entry.entry);
        stored.auditHead = newerHead(stored.auditHead, entry.auditHead);
      }
    }
    let base: PersistedState | null = null;
    if (!header.base) problem ??= "no state is stored";
    else {
      try {
        const value = decodeJson(await generationBytes(generations.get(header.base.gen), header.base));
        if (!isPersistedState(value)) throw new Error("not a state document");
        base = value;
      } catch (err) {
        problem ??= `its base state is unreadable: ${(err as Error).message}`;
      }
    }
    for (const [gen, chunks] of generations) {
      if (gen !== header.spec.gen && gen !== header.base?.gen) {
        strays.push(...chunks.map((chunk) => chunk.key));
      }
    }
    const jobs = await this.#loadJobs(id, stored, strays);
    if (!this.#options.state) {
      // State is not kept (any more): drop what an earlier configuration stored.
      if (header.base || stored.log.length || stored.jobs.size) await this.#forgetState(id, stored);
      await this.#db.writeAll(deletions(strays));
      return { spec, base: null, log: [] };
    }
    await this.#db.writeAll(deletions(strays));
    // On a problem, what could be read still goes back: the service keeps it for recovery, never replays it.
    return problem
      ? { spec, base, baseAt: header.baseAt, log, problem, jobs }
      : { spec, base, baseAt: header.baseAt, log, jobs };
  }

  /** The outbox of a model; unreadable records are reported and dropped. */
  async #loadJobs(id: string, stored: StoredModel, strays: Deno.KvKey[]): Promise<EffectJob[]> {
    const jobs: EffectJob[] = [];
    for await (
      const record of readRecords(this.#kv, kvKeys.jobs(id), { onStray: (key) => strays.push(key) })
    ) {
      stored.nextJob = record.seq + 1;
      let job: unknown = null;
      try {
        job = record.bytes && decodeJson(record.bytes);
      } catch {
        // reported below
      }
      if (isEffectJob(job) && job.modelId === id) {
        stored.jobs.set(job.id, record.keys);
        jobs.push(job);
      } else {
        this.#options.warn(`model '${id}': effect job record ${record.seq} is unreadable and was dropped`);
        strays.push(...record.keys);
      }
    }
    return jobs;
  }

  /** The mutations of outbox changes; the store's own bookkeeping is updated by `apply`. */
  #jobMutations(modelId: string, stored: StoredModel, changes: JobChanges | undefined) {
    const before: KvMutation[] = [];
    const unit: KvMutation[] = [];
    const added = new Map<string, Deno.KvKey[]>();
    const removed: string[] = [];
    for (const job of changes?.put ?? []) {
      const old = stored.jobs.get(job.id) ?? added.get(job.id);
      if (old) unit.push(...deletions(old));
      const key = [...kvKeys.jobs(modelId), stored.nextJob + added.size];
      const record = recordMutations(key, encodeJson(job));
      before.push(...record.chunks);
      unit.push(record.head);
      added.set(job.id, recordKeys(key, record.chunks.length + 1));
    }
    for (const jobId of changes?.remove ?? []) {
      const keys = stored.jobs.get(jobId);
      if (keys) unit.push(...deletions(keys));
      removed.push(jobId);
    }
    const apply = () => {
      stored.nextJob += added.size;
      for (const [jobId, keys] of added) stored.jobs.set(jobId, keys);
      for (const jobId of removed) stored.jobs.delete(jobId);
    };
    return { before, unit, apply };
  }

  async updateJobs(modelId: string, changes: JobChanges): Promise<void> {
    const stored = this.#models.get(modelId);
    if (!stored || !this.#options.state) return;
    const { before, unit, apply } = this.#jobMutations(modelId, stored, changes);
    if (unit.length) await this.#db.writeStaged({ before, unit });
    apply();
  }

  /** A stored log entry: the entry as it was logged, and the audit head it carries, if any. */
  #decodeLogEntry(bytes: Uint8Array): { entry: LogEntry; auditHead: AuditHead | null } | null {
    try {
      const value = decodeJson(bytes);
      if (!isLogEntry(value)) return null;
      const { at, source, request, auditHead } = value as StoredLogEntry;
      return { entry: { at, source, request }, auditHead: isAuditHead(auditHead) ? auditHead : null };
    } catch {
      return null;
    }
  }

  async #forgetState(id: string, stored: StoredModel): Promise<void> {
    const header: ModelHeader = { ...stored.header, base: null, baseAt: null, logStart: stored.nextLog };
    await this.#db.writeStaged({
      unit: [{ key: kvKeys.header(id), value: header }, ...this.#headMutations(id, stored)],
      after: deletions([
        ...stored.header.base ? valueKeys(kvKeys.values(id), stored.header.base) : [],
        ...stored.log.flatMap((entry) => entry.keys),
        ...[...stored.jobs.values()].flat(),
      ]),
    });
    Object.assign(stored, { header, log: [], jobs: new Map() });
  }

  async keepForRecovery(record: RecoveryRecord): Promise<void> {
    const at = Date.parse(record.detectedAt);
    const bytes = encodeJson(record);
    const written = valueMutations(
      kvKeys.recoveryValues(record.modelId, at),
      bytes,
      await serverHasher.sha256Hex(bytes),
    );
    const header: RecoveryHeader = { ref: written.ref, summary: summarizeRecovery(record) };
    await this.#db.writeStaged({
      before: written.mutations,
      unit: [{ key: kvKeys.recovery(record.modelId, at), value: header }],
    });
  }

  async listRecovery(): Promise<RecoverySummary[]> {
    const out: RecoverySummary[] = [];
    for await (const entry of this.#kv.list<RecoveryHeader>({ prefix: ["recovery"] })) {
      out.push(entry.value.summary);
    }
    return out;
  }

  async getRecovery(modelId: string): Promise<RecoveryRecord[]> {
    const out: RecoveryRecord[] = [];
    for await (const entry of this.#kv.list<RecoveryHeader>({ prefix: ["recovery", modelId] })) {
      const at = entry.key[2] as number;
      const prefix = kvKeys.recoveryValues(modelId, at);
      const generations = await readGenerations(this.#kv, prefix);
      out.push(
        decodeJson(
          await generationBytes(generations.get(entry.value.ref.gen), entry.value.ref),
        ) as RecoveryRecord,
      );
    }
    return out;
  }

  async deleteRecovery(modelId: string): Promise<number> {
    // Headers first: a record is gone once its header is; chunks left by an
    // interrupted call are swept by the next one.
    const headers = await this.#keysUnder(["recovery", modelId]);
    await this.#db.writeAll(deletions(headers));
    await this.#db.writeAll(deletions(await this.#keysUnder(["recovery-v", modelId])));
    return headers.length;
  }

  async #keysUnder(prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
    const keys: Deno.KvKey[] = [];
    for await (const entry of this.#kv.list({ prefix }, { batchSize: BATCH })) keys.push(entry.key);
    return keys;
  }

  async save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges } = {},
  ): Promise<void> {
    const id = spec.id;
    await this.#sweeps.get(id);
    let stored = this.#models.get(id);
    if (options.created || !stored) {
      checkStoredId(id, "Deno KV");
      // Leftovers of an unloadable model with this id belong to no live model.
      await this.#sweepData(id);
      this.#models.delete(id);
      stored = undefined;
    }
    const prefix = kvKeys.values(id);
    const before: KvMutation[] = [];
    const after: KvMutation[] = [];
    const specBytes = encodeJson(spec);
    const specSha = await serverHasher.sha256Hex(specBytes);
    let specRef = stored?.header.spec;
    if (!specRef || specRef.sha256 !== specSha) {
      const written = valueMutations(prefix, specBytes, specSha);
      before.push(...written.mutations);
      if (specRef) after.push(...deletions(valueKeys(prefix, specRef)));
      specRef = written.ref;
    }
    let baseRef: ValueRef | null = null;
    if (this.#options.state) {
      const bytes = encodeJson(state);
      const written = valueMutations(prefix, bytes, await serverHasher.sha256Hex(bytes));
      before.push(...written.mutations);
      baseRef = written.ref;
    }
    if (stored?.header.base) after.push(...deletions(valueKeys(prefix, stored.header.base)));
    if (stored) after.push(...deletions(stored.log.flatMap((entry) => entry.keys)));
    const header: ModelHeader = {
      spec: specRef,
      base: baseRef,
      baseAt: null,
      logStart: stored?.nextLog ?? 0,
    };
    const next: StoredModel = {
      header,
      log: [],
      nextLog: header.logStart,
      jobs: stored?.jobs ?? new Map(),
      nextJob: stored?.nextJob ?? 0,
      auditHead: stored?.auditHead ?? null,
    };
    const jobs = this.#options.state ? this.#jobMutations(id, next, options.jobs) : null;
    await this.#db.writeStaged({
      before: [...before, ...jobs?.before ?? []],
      // The log entries that carried the audit head go: the head is kept on its own.
      unit: [
        { key: kvKeys.header(id), value: header },
        ...this.#headMutations(id, next),
        ...jobs?.unit ?? [],
      ],
      after,
    });
    jobs?.apply();
    this.#models.set(id, next);
  }

  async commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    const stored = this.#models.get(modelId);
    if (!stored) throw new Error(`model '${modelId}' is not in the KV store`);
    const before: KvMutation[] = [];
    const unit: KvMutation[] = [];
    const trail = this.#options.audit;
    const head: AuditHead | null = audit && trail === "kv"
      ? { sequence: audit.sequence, hash: audit.hash }
      : null;
    let logged: { seq: number; keys: Deno.KvKey[] } | null = null;
    if (this.#options.state) {
      const key = [...kvKeys.log(modelId), stored.nextLog];
      // The audit head rides in the log entry: one key less per commit than a head of its own.
      const logEntry: StoredLogEntry = head ? { ...entry, auditHead: head } : entry;
      const record = recordMutations(key, encodeJson(logEntry));
      before.push(...record.chunks);
      unit.push(record.head);
      logged = { seq: stored.nextLog, keys: recordKeys(key, record.chunks.length + 1) };
    }
    if (audit && head) {
      const record = recordMutations([...kvKeys.audit(modelId), audit.sequence], encodeJson(audit));
      before.push(...record.chunks);
      unit.push(record.head);
      if (!logged) unit.push({ key: kvKeys.auditHead(modelId), value: head });
    }
    const outbox = this.#options.state ? this.#jobMutations(modelId, stored, jobs) : null;
    if (outbox) {
      before.push(...outbox.before);
      unit.push(...outbox.unit);
    }
    if (unit.length) await this.#db.writeStaged({ before, unit });
    outbox?.apply();
    stored.auditHead = newerHead(stored.auditHead, head);
    if (audit && trail && trail !== "kv") trail.append(audit);
    if (logged) {
      stored.log.push(logged);
      stored.nextLog++;
      await this.#compact(modelId, stored, states);
    }
  }

  /** Folds the log into the checkpoint once `compactionThreshold` entries can be folded. */
  async #compact(id: string, stored: StoredModel, states: CommitStates): Promise<void> {
    const fold = foldPoint(stored.log.length, this.#options.compactionThreshold, states);
    if (!fold) return;
    const { point, folded } = fold;
    try {
      const prefix = kvKeys.values(id);
      const bytes = encodeJson(point.state());
      const written = valueMutations(prefix, bytes, await serverHasher.sha256Hex(bytes));
      const header: ModelHeader = {
        ...stored.header,
        base: written.ref,
        baseAt: point.at,
        logStart: stored.log[folded]?.seq ?? stored.nextLog,
      };
      await this.#db.writeStaged({
        before: written.mutations,
        // The folded log entries carried the audit head: it is kept on its own first.
        unit: [{ key: kvKeys.header(id), value: header }, ...this.#headMutations(id, stored)],
        after: deletions([
          ...stored.header.base ? valueKeys(prefix, stored.header.base) : [],
          ...stored.log.slice(0, folded).flatMap((entry) => entry.keys),
        ]),
      });
      stored.header = header;
      stored.log = stored.log.slice(folded);
    } catch (err) {
      // The commit itself is durable; a longer log is only slower to load.
      this.#options.warn(
        `model '${id}': log compaction failed, retried at the next commit: ${(err as Error).message}`,
      );
    }
  }

  async delete(modelId: string): Promise<void> {
    await this.#db.write([{ key: kvKeys.header(modelId) }, { key: kvKeys.deleting(modelId), value: true }]);
    this.#models.delete(modelId);
    const trail = this.#options.audit;
    if (trail && trail !== "kv") trail.delete(modelId);
    // The model is gone once its header is; its data is swept in the background (or at the next start).
    const sweep = this.#sweep(modelId).catch((err) =>
      this.#options.warn(
        `model '${modelId}': sweeping deleted data failed, retried at the next start: ${err}`,
      )
    ).finally(() => this.#sweeps.delete(modelId));
    this.#sweeps.set(modelId, sweep);
  }

  /** Removes a deleted model's data, then its deletion marker (kept when interrupted by close). */
  async #sweep(id: string): Promise<void> {
    if (await this.#sweepData(id)) await this.#db.write([{ key: kvKeys.deleting(id) }]);
  }

  /** Deletes every key under `["m", id]`; `false` when stopped by close. */
  async #sweepData(id: string): Promise<boolean> {
    let batch: Deno.KvKey[] = [];
    for await (const entry of this.#kv.list({ prefix: kvKeys.data(id) }, { batchSize: BATCH })) {
      batch.push(entry.key);
      if (batch.length < BATCH) continue;
      if (this.#closing) return false;
      await this.#db.writeAll(deletions(batch));
      batch = [];
    }
    await this.#db.writeAll(deletions(batch));
    return true;
  }

  async lastAudit(modelId: string): Promise<AuditRecord | null> {
    const trail = this.#options.audit;
    if (trail !== "kv") return trail?.last(modelId) ?? null;
    const head = await this.#newestAuditHead(modelId);
    for await (const record of readRecords(this.#kv, kvKeys.audit(modelId), { reverse: true })) {
      // A deleted newest record: continue after the head, so the gap stays visible.
      return lastWithHead(modelId, auditOf(modelId, record, ""), head);
    }
    return lastWithHead(modelId, null, head);
  }

  /** The audit head as stored on its own (the log entries after it may carry newer ones). */
  async #auditHead(modelId: string): Promise<AuditHead | null> {
    const head = (await this.#kv.get<AuditHead>(kvKeys.auditHead(modelId))).value;
    return isAuditHead(head) ? head : null;
  }

  /** The newest audit head: the one stored on its own, or a newer one a log entry carries. */
  async #newestAuditHead(modelId: string): Promise<AuditHead | null> {
    return newerHead(await this.#auditHead(modelId), this.#models.get(modelId)?.auditHead ?? null);
  }

  /** The mutation storing a model's audit head on its own (none when the trail is not in KV). */
  #headMutations(modelId: string, stored: StoredModel): KvMutation[] {
    return this.#options.audit === "kv" && stored.auditHead
      ? [{ key: kvKeys.auditHead(modelId), value: stored.auditHead }]
      : [];
  }

  async listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]> {
    const trail = this.#options.audit;
    if (trail !== "kv") return trail?.list(modelId, query) ?? [];
    const out: AuditRecord[] = [];
    let page: AuditRecord[] = [];
    const flush = () => {
      out.push(...filterAudit(page, { ...query, limit: query.limit - out.length }));
      page = [];
    };
    for await (const record of readRecords(this.#kv, kvKeys.audit(modelId), { reverse: true })) {
      page.push(auditOf(modelId, record, ""));
      if (page.length < BATCH) continue;
      flush();
      if (out.length >= query.limit) return out;
    }
    flush();
    return out;
  }

  async allAudit(modelId: string): Promise<AuditRecord[]> {
    const trail = this.#options.audit;
    if (trail !== "kv") return trail?.all(modelId) ?? [];
    const out: AuditRecord[] = [];
    for await (const record of readRecords(this.#kv, kvKeys.audit(modelId))) {
      out.push(auditOf(modelId, record, out.at(-1)?.hash ?? GENESIS_HASH));
    }
    // Records deleted after the newest one left: a placeholder makes verification name the first.
    return trailWithHead(modelId, out, await this.#newestAuditHead(modelId));
  }

  /** Stops background sweeps (resumed at the next start) and releases the database; idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing = true;
      await Promise.all(this.#sweeps.values());
      await this.#db.release();
    })();
    return this.#closed;
  }
}
