/**
 * Models in Deno KV: spec, state (a base snapshot plus a mutation log, folded
 * every `svc.storage.compaction-threshold` entries) and the hash-chained audit trail.
 *
 * Keys of a model `id`:
 * - `["models", id]`: the header `{spec, base, baseAt, logStart}`; spec and base
 *   are {@link ValueRef}s to chunks under `["m", id, "v", gen]`.
 * - `["L", g, id, seq]`: the commit log, shared by all models: the log entries from
 *   `logStart` on (replayed at startup), each with the audit record of its commit and
 *   that record's `{sequence, hash}` (`auditHead`). `g` is a process-wide counter,
 *   greater than every stored one (one process per directory: dir_lock.ts), so every
 *   commit lands at the right edge of the B-tree, beside the commits before it.
 * - `["m", id, "log", seq]`: log entries of the earlier layout (no audit record in them),
 *   read and folded like the commit log's; nothing writes them any more.
 * - `["m", id, "audit", sequence]`: audit records on their own, never compacted: those of
 *   folded log entries, and every one when no state is kept. The trail is these and the
 *   records live log entries carry (one record when both hold it: a compaction interrupted
 *   after moving them). The newest `{sequence, hash}` is kept beside them, so a deleted
 *   newest record is noticed too: in the log entry of the commit that wrote it while the
 *   entry lives, and at `["m", id, "audit-head"]` once it is folded or when no state is
 *   kept (the newer of the two counts).
 * - `["m", id, "job", n]`: the outbox: effect jobs fired and not yet settled, written and
 *   removed in the same atomic operation as the commits that fire and settle them.
 * - `["deleting", id]`: a deletion whose sweep of `["m", id]` has not finished.
 *
 * A commit is one atomic operation: one key under `["L"]` (and its outbox
 * changes), batched with concurrent commits of other models (group commit).
 * Keys sorted by model id put each model's log and audit tails in leaf pages
 * of their own, so a commit of two such keys dirtied about four SQLite pages
 * (two keys, each in the `kv` table and its expiration index); consecutive
 * commits under `["L"]` share their pages. Compaction moves the folded entries'
 * audit records to their own keys (consecutive keys of one model; records up
 * to 16 KiB are kept in memory from their commit until then, since reading
 * them back cost a single-model load more than the key saved) and writes the
 * new base as background work, in small operations that give way to commits
 * (one operation of a hundred records held every commit behind it for 10 to
 * 30 ms), then moves the header in an operation of its own. It keeps the log
 * entries after the oldest retained history state, so replaying them at
 * startup rebuilds history with its timestamps. A log entry lost whole
 * (deleted or unreadable) takes its audit record with it: verify names it
 * unless it was the newest, like the log entry and audit record of the newest
 * commit deleted together before.
 *
 * @module
 */
import { type AuditRecord, GENESIS_HASH, loggedWriteDisagreement } from "../../engine/audit/chain.ts";
import { type EffectJob, isEffectJob, type JobChanges } from "../../engine/effects/job.ts";
import { filterAudit } from "../../engine/service/audit_query.ts";
import { type MemoryAuditTrail, summarizeRecovery } from "../../engine/service/memory.ts";
import {
  type AuditQuery,
  BatchTooLargeError,
  type CommitRecord,
  type CommitStates,
  type LoadedModel,
  type LogEntry,
  type ModelStore,
  type PersistedState,
  type RecoveryRecord,
  type RecoverySummary,
} from "../../engine/service/ports.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import { serverHasher } from "../platform.ts";
import { type Fold, foldPoint } from "../../engine/service/compaction.ts";
import { isLogEntry, isPersistedState } from "./stored_model.ts";
import {
  type AuditHead,
  auditOfValue,
  isAuditHead,
  lastWithHead,
  parseAudit,
  trailWithHead,
} from "./stored_audit.ts";
import { fitsOneUnit, type KvDatabase, type KvMutation } from "./kv_database.ts";
import { utf8Length } from "../utf8_length.ts";
import {
  decodeJson,
  encodeJson,
  encodeText,
  generationBytes,
  isValueRef,
  readGenerations,
  readRecords,
  readRecordsAt,
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
  /** Folded log entries collected before they are deleted together (default {@link RETIRE_BATCH}). */
  retireBatch?: number;
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

/** A log entry after the base, as the store tracks it. */
interface LiveEntry {
  seq: number;
  /** The keys it occupies. */
  keys: Deno.KvKey[];
  /** The sequence of the audit record it carries, if any. */
  audit: number | null;
  /**
   * That record's JSON as UTF-8, kept from the commit when small ({@link KEPT_AUDIT_BYTES})
   * so compaction need not read it back (Deno KV reads cost ~150 µs a key here): a view
   * into the bytes the commit wrote, outside the JavaScript heap, where the string it was
   * made from cost every young-generation collection a copy until compaction.
   */
  auditBytes?: Uint8Array;
}

/** Largest audit record (in UTF-8 bytes) kept in memory until its log entry is folded. */
const KEPT_AUDIT_BYTES = 16 * 1024;

/** What the store tracks of a stored model (one writer per database). */
interface StoredModel {
  header: ModelHeader;
  /** Log entries after the base, oldest first. */
  log: LiveEntry[];
  nextLog: number;
  /** Outbox records by job id, with the keys they occupy. */
  jobs: Map<string, Deno.KvKey[]>;
  nextJob: number;
  /** The newest audit record written, as far as this store knows (the trail's witness). */
  auditHead: AuditHead | null;
}

/**
 * A log entry as stored: the entry, and when the trail is in KV the audit head
 * of its commit and (in the commit log) the audit record itself.
 */
interface StoredLogEntry extends LogEntry {
  auditHead?: AuditHead;
  audit?: unknown;
}

/** A stored log entry's JSON object; `null` when unreadable. */
function storedEntryValue(bytes: Uint8Array | null): Partial<StoredLogEntry> | null {
  try {
    const value = bytes && decodeJson(bytes);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * A stored log entry read back: the entry (`null` when unreadable), the head, the
 * audit record's sequence, and how the entry disagrees with the record it carries
 * (`null` when it agrees or carries none: the earlier layout's entries).
 */
function decodeLogEntry(
  bytes: Uint8Array | null,
): {
  entry: LogEntry | null;
  auditHead: AuditHead | null;
  audit: number | null;
  disagreement: string | null;
} {
  const value = storedEntryValue(bytes);
  if (!value) return { entry: null, auditHead: null, audit: null, disagreement: null };
  const { at, source, request, auditHead, audit } = value;
  const head = isAuditHead(auditHead) ? auditHead : null;
  const ownSequence = (audit as AuditRecord | null)?.sequence;
  const entry = isLogEntry(value) ? { at, source, request } as LogEntry : null;
  return {
    entry,
    disagreement: entry && "audit" in value ? loggedWriteDisagreement(entry, audit) : null,
    auditHead: head,
    // The head beside the record gives its place, so an unreadable record still takes it.
    audit: !("audit" in value)
      ? null
      : head?.sequence ?? (Number.isInteger(ownSequence) ? ownSequence as number : null),
  };
}

/** An audit record of the trail, read with the hash before it (for a placeholder's). */
interface AuditSource {
  sequence: number;
  read(prevHash: string): AuditRecord;
}

/** The newer of two heads (by sequence; on a tie the first, the one stored on its own). */
function newerHead(a: AuditHead | null, b: AuditHead | null): AuditHead | null {
  return !a || (b && b.sequence > a.sequence) ? b : a;
}

/** Folded commit-log entries collected before they are deleted together (see `#retire`). */
const RETIRE_BATCH = 4000;

/** Keys deleted per sweep step, and audit records filtered per page. */
const BATCH = 500;

/** The keys of the KV layout. */
export const kvKeys = {
  header: (id: string): Deno.KvKey => ["models", id],
  deleting: (id: string): Deno.KvKey => ["deleting", id],
  data: (id: string): Deno.KvKey => ["m", id],
  values: (id: string): Deno.KvKey => ["m", id, "v"],
  /** The commit log of all models. */
  commitLog: (): Deno.KvKey => ["L"],
  /** A commit's log entry (`g`: the process-wide commit counter, `seq`: the model's log sequence). */
  commit: (g: number, id: string, seq: number): Deno.KvKey => ["L", g, id, seq],
  /** Log entries of the earlier layout. */
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
  /** Commit-log keys of models stored but not loadable (unreadable header or spec), swept when the id is created again. */
  readonly #orphans = new Map<string, Deno.KvKey[]>();
  /** Folded commit-log entries not deleted yet, by model (see {@link RETIRE_BATCH}). */
  readonly #retired = new Map<string, Deno.KvKey[]>();
  #retiredCount = 0;
  /** The deletion of retired entries in progress. */
  #retiring: Promise<void> | null = null;
  /** The entries that deletion takes away, by model. */
  #retiringKeys = new Map<string, Deno.KvKey[]>();
  /** Compactions in progress, by model (at most one a model; see {@link #compactWhenDue}). */
  readonly #compactions = new Map<string, Promise<void>>();
  /** The states of each model's newest commit: what a compaction due after it folds into. */
  readonly #newestStates = new Map<string, CommitStates>();
  /** The next commit's `g` in `["L", g, id, seq]`: past every stored one (set by `load`). */
  #nextCommit = 0;
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
    const commits = await this.#readCommitLog();
    const loaded: LoadedModel[] = [];
    for await (const entry of this.#kv.list({ prefix: ["models"] })) {
      const id = entry.key[1] as string;
      const model = await this.#loadModel(id, entry.value, commits.get(id) ?? []);
      commits.delete(id);
      if (model) loaded.push(model);
    }
    // Entries of models without a header (deleted ones) belong to nobody.
    await this.#db.writeAll(deletions([...commits.values()].flat().flatMap((record) => record.keys)));
    return loaded;
  }

  /**
   * The commit log by model id, each model's entries in commit order (`seq`:
   * the model's log sequence); sets the next commit's `g`; deletes stray keys.
   */
  async #readCommitLog(): Promise<Map<string, StoredRecord[]>> {
    const strays: Deno.KvKey[] = [];
    const byModel = new Map<string, StoredRecord[]>();
    for await (
      const record of readRecords(this.#kv, kvKeys.commitLog(), {
        width: 3,
        onStray: (key) => strays.push(key),
      })
    ) {
      this.#nextCommit = record.seq + 1;
      const [, , id, seq] = record.keys[0];
      if (typeof id !== "string" || !Number.isInteger(seq)) {
        strays.push(...record.keys);
        continue;
      }
      const own = byModel.get(id) ?? [];
      byModel.set(id, own);
      own.push({ ...record, seq: seq as number });
    }
    await this.#db.writeAll(deletions(strays));
    return byModel;
  }

  async #loadModel(id: string, header: unknown, commits: StoredRecord[]): Promise<LoadedModel | null> {
    // Until the model loads, its commit log is kept as it is (swept when the id is created again).
    this.#orphans.set(id, commits.flatMap((record) => record.keys));
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
    this.#orphans.delete(id);
    const strays: Deno.KvKey[] = [];
    const records: StoredRecord[] = [];
    for await (
      const record of readRecords(this.#kv, kvKeys.log(id), { onStray: (key) => strays.push(key) })
    ) records.push(record);
    // The earlier layout's entries come before the commit log's: one log, by sequence (a stable sort).
    records.push(...commits);
    records.sort((a, b) => a.seq - b.seq);
    const log: LogEntry[] = [];
    let problem: string | null = null;
    let auditSequence: number | undefined;
    for (const record of records) {
      // Folded already, or a second entry of one sequence.
      if (record.seq < stored.nextLog) {
        strays.push(...record.keys);
        continue;
      }
      const decoded = decodeLogEntry(record.bytes);
      stored.log.push({ seq: record.seq, keys: record.keys, audit: decoded.audit });
      stored.nextLog = record.seq + 1;
      stored.auditHead = newerHead(stored.auditHead, decoded.auditHead);
      if (problem) {
        // Not replayed, but kept for recovery like the rest: the save after the reset deletes the entries.
        if (decoded.entry) log.push(decoded.entry);
        continue;
      }
      const expected = header.logStart + log.length;
      if (record.seq !== expected) problem = `log entry ${expected} is missing`;
      else if (!decoded.entry) problem = `log entry ${record.seq} is unreadable`;
      else {
        // Kept as read (the evidence), never replayed.
        log.push(decoded.entry);
        if (decoded.disagreement) {
          problem = `log entry ${record.seq}: ${decoded.disagreement}`;
          auditSequence = decoded.audit ?? undefined;
        }
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
      ? {
        spec,
        base,
        baseAt: header.baseAt,
        log,
        problem,
        jobs,
        ...auditSequence !== undefined && { auditSequence },
      }
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
  #jobMutations(modelId: string, stored: StoredModel, changes: JobChanges | undefined, offset = 0) {
    const before: KvMutation[] = [];
    const unit: KvMutation[] = [];
    const added = new Map<string, Deno.KvKey[]>();
    const removed: string[] = [];
    // An update of a job no longer in the outbox (settled), or removed by these changes, is dropped.
    const updates = (changes?.update ?? []).filter((job) =>
      stored.jobs.has(job.id) && !changes?.remove?.includes(job.id)
    );
    for (const job of [...changes?.put ?? [], ...updates]) {
      const old = stored.jobs.get(job.id) ?? added.get(job.id);
      if (old) unit.push(...deletions(old));
      const key = [...kvKeys.jobs(modelId), stored.nextJob + offset + added.size];
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
    return { before, unit, apply, added: added.size };
  }

  async updateJobs(modelId: string, changes: JobChanges): Promise<void> {
    const stored = this.#models.get(modelId);
    if (!stored || !this.#options.state) return;
    const { before, unit, apply } = this.#jobMutations(modelId, stored, changes);
    if (unit.length) await this.#db.writeStaged({ before, unit });
    apply();
  }

  /**
   * The mutations writing the audit records that log entries carry to their own
   * keys, staged before the entries are deleted (a record unreadable with its
   * entry is lost with it).
   */
  async #auditToOwnKeys(id: string, entries: readonly LiveEntry[]): Promise<KvMutation[]> {
    const carrying = entries.filter((entry) => entry.audit !== null);
    const unkept = carrying.filter((entry) => entry.auditBytes === undefined);
    const stored = await readRecordsAt(this.#kv, unkept);
    const read = new Map(unkept.map((entry, i) => {
      const value = storedEntryValue(stored[i]);
      return [entry, value && "audit" in value ? encodeJson(value.audit) : null];
    }));
    return carrying.flatMap((entry) => {
      const bytes = entry.auditBytes ?? read.get(entry);
      if (!bytes) return [];
      const record = recordMutations([...kvKeys.audit(id), entry.audit!], bytes);
      return [...record.chunks, record.head];
    });
  }

  async #forgetState(id: string, stored: StoredModel): Promise<void> {
    const header: ModelHeader = { ...stored.header, base: null, baseAt: null, logStart: stored.nextLog };
    await this.#db.writeStaged({
      before: await this.#auditToOwnKeys(id, stored.log),
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
    await this.#compacted(id);
    this.#newestStates.delete(id);
    let stored = this.#models.get(id);
    if (options.created || !stored) {
      // Leftovers of an unloadable model with this id belong to no live model.
      await this.#sweepData(id, [
        ...stored?.log.flatMap((entry) => entry.keys) ?? [],
        ...this.#orphans.get(id) ?? [],
      ]);
      this.#orphans.delete(id);
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
    if (stored) {
      before.push(...await this.#auditToOwnKeys(id, stored.log));
      after.push(...deletions(stored.log.flatMap((entry) => entry.keys)));
    }
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

  commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    return this.#commitAll(modelId, [{ entry, states, audit, jobs }]);
  }

  /**
   * Consecutive commits of one model in one atomic operation: a model's queued
   * writes then wait for one fsync together instead of one each. Throws
   * {@link BatchTooLargeError} (nothing written) when they do not fit one.
   */
  commitMany(modelId: string, commits: readonly CommitRecord[]): Promise<void> {
    return this.#commitAll(modelId, commits);
  }

  async #commitAll(modelId: string, commits: readonly CommitRecord[]): Promise<void> {
    const stored = this.#models.get(modelId);
    if (!stored) throw new Error(`model '${modelId}' is not in the KV store`);
    const before: KvMutation[] = [];
    const unit: KvMutation[] = [];
    const trail = this.#options.audit;
    const logged: LiveEntry[] = [];
    const outboxes: (() => void)[] = [];
    let head: AuditHead | null = null;
    let jobsAdded = 0;
    for (const { entry, audit, jobs } of commits) {
      const recordHead: AuditHead | null = audit && trail === "kv"
        ? { sequence: audit.sequence, hash: audit.hash }
        : null;
      head = newerHead(head, recordHead);
      if (this.#options.state) {
        const seq = stored.nextLog + logged.length;
        const key = kvKeys.commit(this.#nextCommit++, modelId, seq);
        // The audit record and its head ride in the log entry: one key per commit. The record is
        // serialised once, as the entry's last member (where JSON.stringify would put it), and its bytes kept.
        const entryJson = JSON.stringify(recordHead ? { ...entry, auditHead: recordHead } : entry);
        const prefix = recordHead ? `${entryJson.slice(0, -1)},"audit":` : null;
        const bytes = encodeText(prefix === null ? entryJson : `${prefix}${JSON.stringify(audit)}}`);
        const auditBytes = prefix === null ? null : bytes.subarray(utf8Length(prefix), bytes.byteLength - 1);
        const record = recordMutations(key, bytes);
        before.push(...record.chunks);
        unit.push(record.head);
        logged.push({
          seq,
          keys: recordKeys(key, record.chunks.length + 1),
          audit: recordHead?.sequence ?? null,
          ...auditBytes && auditBytes.byteLength <= KEPT_AUDIT_BYTES ? { auditBytes } : {},
        });
        const outbox = this.#jobMutations(modelId, stored, jobs, jobsAdded);
        before.push(...outbox.before);
        unit.push(...outbox.unit);
        jobsAdded += outbox.added;
        outboxes.push(outbox.apply);
      } else if (audit && recordHead) {
        const record = recordMutations([...kvKeys.audit(modelId), audit.sequence], encodeJson(audit));
        before.push(...record.chunks);
        unit.push(record.head, { key: kvKeys.auditHead(modelId), value: recordHead });
      }
    }
    // One commit alone may be split (its chunks before its head); several must land together or not at all.
    if (commits.length > 1 && !fitsOneUnit([...before, ...unit])) {
      throw new BatchTooLargeError(modelId, commits.length);
    }
    if (unit.length) await this.#db.writeStaged({ before, unit });
    for (const apply of outboxes) apply();
    stored.auditHead = newerHead(stored.auditHead, head);
    for (const { audit } of commits) if (audit && trail && trail !== "kv") trail.append(audit);
    if (logged.length) {
      stored.log.push(...logged);
      stored.nextLog += logged.length;
      this.#newestStates.set(modelId, commits[commits.length - 1].states);
      this.#compactWhenDue(modelId, stored);
    }
  }

  /**
   * Folds the log in the background when it is due, one compaction a model at a
   * time; one ending starts the next when more came due meanwhile. The commit is
   * durable without it (its log entry is), so neither the write that made it due
   * nor the model's next writes wait for it (its base state and folded audit
   * records took 5–20 ms to write, which that write's caller waited for); what
   * rewrites or removes the header (`save`, `delete`, `close`) waits for it first.
   */
  #compactWhenDue(id: string, stored: StoredModel): void {
    const states = this.#newestStates.get(id);
    if (this.#compactions.has(id) || !states || this.#models.get(id) !== stored) return;
    const fold = foldPoint(stored.log.length, this.#threshold(id), states);
    if (!fold) return;
    const compaction = this.#compact(id, stored, fold).then((ran) => {
      this.#compactions.delete(id);
      if (ran) this.#compactWhenDue(id, stored);
    });
    this.#compactions.set(id, compaction);
  }

  /** Waits for the model's compactions, those that come due meanwhile included. */
  async #compacted(id: string): Promise<void> {
    for (let running = this.#compactions.get(id); running; running = this.#compactions.get(id)) await running;
  }

  /**
   * The model's compaction threshold: `compactionThreshold` plus an offset of
   * up to a quarter of it taken from the id, so models written alike (a
   * benchmark's, a fleet of devices') do not all compact at the same commit:
   * each compaction writes its folded audit records at once.
   */
  #threshold(id: string): number {
    const spread = Math.floor(this.#options.compactionThreshold / 4);
    if (spread < 2) return this.#options.compactionThreshold;
    let hash = 0;
    for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) | 0;
    return this.#options.compactionThreshold + Math.abs(hash) % spread;
  }

  /**
   * Folds the oldest `fold.folded` entries of the log into `fold.point`; `true`
   * when it did. The entries it folds are taken before its first `await`
   * (commits after it only append to the log).
   */
  async #compact(id: string, stored: StoredModel, fold: Fold): Promise<boolean> {
    const { point, folded } = fold;
    try {
      const prefix = kvKeys.values(id);
      const bytes = encodeJson(point.state());
      const folding = stored.log.slice(0, folded);
      const logStart = stored.log[folded]?.seq ?? stored.nextLog;
      const written = valueMutations(prefix, bytes, await serverHasher.sha256Hex(bytes));
      const header: ModelHeader = { ...stored.header, base: written.ref, baseAt: point.at, logStart };
      // Interrupted before the header, the folded entries stay live and their audit records are
      // read once (from the entries); after it, the entries are strays.
      await this.#db.writeInBackground([...await this.#auditToOwnKeys(id, folding), ...written.mutations]);
      // Beside the commits: they write none of these keys, and none waits for them.
      await this.#db.writeStaged({
        // The folded log entries carried the audit head: it is kept on its own first.
        unit: [{ key: kvKeys.header(id), value: header }, ...this.#headMutations(id, stored)],
        after: deletions(stored.header.base ? valueKeys(prefix, stored.header.base) : []),
      }, true);
      stored.header = header;
      // The entries committed meanwhile stay: they follow the folded ones.
      stored.log = stored.log.slice(folded);
      this.#retire(id, folding.flatMap((entry) => entry.keys));
      return true;
    } catch (err) {
      // The commit itself is durable; a longer log is only slower to load.
      this.#options.warn(
        `model '${id}': log compaction failed, retried at the next commit: ${(err as Error).message}`,
      );
      return false;
    }
  }

  /**
   * Queues folded entries for deletion. Deleted at once, each compaction's
   * entries sit in pages of their own among other models' entries (they were
   * written over the model's last `compactionThreshold` commits), and models
   * written alike compact alike: a burst of scattered page writes that stalls
   * the commits behind it. Collected, sorted by `g`, they empty whole pages;
   * deleted as background work ({@link KvDatabase.writeInBackground}), a
   * commit never waits behind a thousand of them. Until then they are strays a
   * load deletes (their seq is below `logStart`).
   */
  #retire(id: string, keys: Deno.KvKey[]): void {
    const held = this.#retired.get(id);
    if (held) held.push(...keys);
    else this.#retired.set(id, keys);
    this.#retiredCount += keys.length;
    if (this.#retiredCount < (this.#options.retireBatch ?? RETIRE_BATCH) || this.#retiring) return;
    this.#retiring = this.#deleteRetired()
      .catch((err) =>
        this.#options.warn(`deleting folded log entries failed, retried at the next start: ${err}`)
      )
      .finally(() => this.#retiring = null);
  }

  /** Deletes every retired entry, in commit-log order. */
  async #deleteRetired(): Promise<void> {
    this.#retiringKeys = new Map(this.#retired);
    const keys = [...this.#retired.values()].flat().sort((a, b) => (a[1] as number) - (b[1] as number));
    this.#retired.clear();
    this.#retiredCount = 0;
    try {
      await this.#db.writeInBackground(deletions(keys));
    } finally {
      this.#retiringKeys = new Map();
    }
  }

  async delete(modelId: string): Promise<void> {
    // A compaction finishing after the deletion would write the header back.
    await this.#compacted(modelId);
    this.#newestStates.delete(modelId);
    await this.#db.write([{ key: kvKeys.header(modelId) }, { key: kvKeys.deleting(modelId), value: true }]);
    // Its commit-log entries go with the sweep (or, interrupted, as strays at the next start).
    const commits = this.#models.get(modelId)?.log.flatMap((entry) => entry.keys) ?? [];
    this.#models.delete(modelId);
    const trail = this.#options.audit;
    if (trail && trail !== "kv") trail.delete(modelId);
    // The model is gone once its header is; its data is swept in the background (or at the next start).
    const sweep = this.#sweep(modelId, commits).catch((err) =>
      this.#options.warn(
        `model '${modelId}': sweeping deleted data failed, retried at the next start: ${err}`,
      )
    ).finally(() => this.#sweeps.delete(modelId));
    this.#sweeps.set(modelId, sweep);
  }

  /**
   * Removes a deleted model's data (and `commits`, its commit-log keys), then its
   * deletion marker (kept when interrupted by close).
   */
  async #sweep(id: string, commits: Deno.KvKey[] = []): Promise<void> {
    if (await this.#sweepData(id, commits)) await this.#db.write([{ key: kvKeys.deleting(id) }]);
  }

  /** Deletes `commits`, then every key under `["m", id]`; `false` when stopped by close. */
  async #sweepData(id: string, commits: Deno.KvKey[]): Promise<boolean> {
    // Folded entries of the model must be gone before its id can be created again: a new model's log
    // starts at seq 0, and a stray entry with its id and seq would read as the new model's. Those a
    // background deletion is taking away are deleted here too, so the id need not wait for all of it.
    const retired = [...this.#retired.get(id) ?? [], ...this.#retiringKeys.get(id) ?? []];
    this.#retiredCount -= this.#retired.get(id)?.length ?? 0;
    this.#retired.delete(id);
    await this.#db.writeAll(deletions([...commits, ...retired]));
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
    for await (const source of this.#trail(modelId, { reverse: true, newestLive: true })) {
      // A deleted newest record: continue after the head, so the gap stays visible.
      return lastWithHead(modelId, source.read(""), head);
    }
    return lastWithHead(modelId, null, head);
  }

  /**
   * The trail in sequence order (newest first with `reverse`): the records on
   * their own keys merged with those live log entries carry (the entry's when
   * both hold one). `newestLive` reads only the newest entry's.
   */
  async *#trail(
    modelId: string,
    options: { reverse: boolean; newestLive?: boolean },
  ): AsyncGenerator<AuditSource> {
    // The entries first: a compaction meanwhile writes their records to their own keys before deleting them.
    const live = await this.#liveAudit(modelId, options.newestLive ?? false);
    if (options.reverse) live.reverse();
    const carried = new Set(live.map((source) => source.sequence));
    const before = (a: number, b: number) => options.reverse ? a > b : a < b;
    let next = 0;
    for await (const record of readRecords(this.#kv, kvKeys.audit(modelId), { reverse: options.reverse })) {
      if (carried.has(record.seq)) continue;
      while (next < live.length && before(live[next].sequence, record.seq)) yield live[next++];
      yield { sequence: record.seq, read: (prevHash) => auditOf(modelId, record, prevHash) };
    }
    yield* live.slice(next);
  }

  /** The audit records live log entries carry, oldest first (an entry folded meanwhile is skipped). */
  async #liveAudit(modelId: string, newestOnly: boolean): Promise<AuditSource[]> {
    const carrying = this.#models.get(modelId)?.log.filter((entry) => entry.audit !== null) ?? [];
    const entries = newestOnly ? carrying.slice(-1) : carrying;
    const stored = await readRecordsAt(this.#kv, entries);
    const live: AuditSource[] = [];
    entries.forEach(({ audit: sequence }, i) => {
      const value = storedEntryValue(stored[i]);
      if (value && sequence !== null) {
        live.push({ sequence, read: (prevHash) => auditOfValue(modelId, sequence, value.audit, prevHash) });
      }
    });
    return live.sort((a, b) => a.sequence - b.sequence);
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
    for await (const source of this.#trail(modelId, { reverse: true })) {
      page.push(source.read(""));
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
    for await (const source of this.#trail(modelId, { reverse: false })) {
      out.push(source.read(out.at(-1)?.hash ?? GENESIS_HASH));
    }
    // Records deleted after the newest one left: a placeholder makes verification name the first.
    return trailWithHead(modelId, out, await this.#newestAuditHead(modelId));
  }

  /** Stops background sweeps (resumed at the next start) and releases the database; idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing = true;
      await Promise.all([...this.#compactions.keys()].map((id) => this.#compacted(id)));
      await Promise.all(this.#sweeps.values());
      await this.#retiring;
      await this.#deleteRetired().catch(() => {}); // what is left are strays, deleted at the next start
      await this.#db.release();
    })();
    return this.#closed;
  }
}
