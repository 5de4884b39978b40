/// <reference lib="dom" />
/**
 * Models in IndexedDB, behind the engine's {@link ModelStore} port: the same
 * contract as memory and Deno KV, and, as PostgreSQL, a store shared by
 * several writers (tests/storage/contract.ts).
 *
 * Keys in the `models` object store:
 * - `["model", id]`: the header `{spec, base, baseAt}`, written by a save and a compaction;
 * - `["head", id]`: `{rev, gen, logStart, nextLog}`, written by every write to
 *   the model: its revision (kept after a deletion, so an id created again never
 *   repeats one), the revision of its last save, and the log's bounds (a header
 *   of layout 1 holds them itself, its revision is 0);
 * - `["log", id, seq]`: committed writes after the base, `logStart <= seq < nextLog`, each with the
 *   sequence of the audit record its commit wrote (`audit`), which a load compares it with;
 * - `["audit", id, sequence]`: the hash-chained audit trail, never compacted;
 * - `["job", id, jobId]`: the outbox, effect jobs fired and not yet settled;
 * - `["lease", id, jobId]`: which store holds a job until when;
 * - `["recovery", id, n]`: states that could not be reconstructed, kept for an operator.
 *
 * A commit is one IndexedDB transaction holding its log entry, its audit record,
 * its outbox changes, the head and, every `compactionThreshold` entries, the
 * header with the folded base state: it is all there after a reload or none of it is.
 *
 * Sharing: every tab of the origin (and every service of one page) opening the
 * database is a writer of its own, coordinated as PostgreSQL's instances are
 * ({@link StoreCoordination}):
 *
 * - A write to a model (commit, save, outbox change, deletion) reads the
 *   model's head inside its own readwrite transaction, its writes queued at
 *   once behind the read (no extra transaction), and aborts, writing nothing,
 *   with {@link StaleModelError} when it is not the one this store last saw.
 *   IndexedDB runs readwrite transactions over one object store one at a time,
 *   across tabs too, so the check and the write are atomic.
 * - After a write, a message on the BroadcastChannel `svc-models:<database>`
 *   names the model; the other stores report it (`watch`) and their service
 *   refreshes it (`refresh`: the log entries after the revision it saw, the
 *   outbox and the audit head, or the whole model after a save or a compaction
 *   past it).
 * - A message is lost to a tab the browser froze (in the background; the Web
 *   Lock below keeps a page out of the back/forward cache) or that is not yet
 *   listening. So a poll, every second at most and at once when the page is
 *   shown or resumed, compares the stored revisions with the ones this store
 *   saw and reports every model that differs, appeared or vanished.
 * - Jobs: the store whose write fires a job holds it (a lease until it is due
 *   plus `jobLeaseMs`); `claim` takes or renews a lease with a check-and-set in
 *   one transaction and returns the job as stored, so a job runs in one tab at
 *   a time, from the attempts the others counted. Each store holds a Web
 *   Lock while open, which the browser releases when its tab closes or
 *   reloads: a lease whose holder's lock is gone is free at once, others when
 *   they run out. The poll claims due jobs nobody holds and hands them to its
 *   service.
 *
 * @module
 */
import { promisifyRequest, type UseStore } from "idb-keyval";
import {
  type AuditQuery,
  type AuditRecord,
  type CommitStates,
  type LoadedModel,
  type LogEntry,
  type ModelRefresh,
  type ModelSpec,
  type ModelStore,
  type PersistedState,
  type RecoveryRecord,
  type RecoverySummary,
  StaleModelError,
  type StoreChange,
  type StoreCoordination,
  summarizeRecovery,
} from "../../engine/mod.ts";
// Imported from its module: the engine bundle (engine/mod.ts) leaves the comparison out.
import { loggedWriteDisagreement } from "../../engine/audit/chain.ts";
import { type EffectJob, isEffectJob, type JobChanges } from "../../engine/effects/job.ts";
import { filterAudit } from "../../engine/service/audit_query.ts";
import { foldPoint } from "../../engine/service/compaction.ts";
import {
  type BrowserDatabase,
  entriesUnder,
  keysUnder,
  lastUnder,
  prefixRange,
  readLast,
  readRange,
  valuesUnder,
  type WriteCondition,
  writeOrExplain,
  type WriteSet,
} from "./database.ts";

/** The stored header of a model. */
interface Header {
  spec: ModelSpec;
  base: PersistedState | null;
  baseAt: number | null;
  /** The log's bounds in layout 1 (before heads). */
  logStart?: number;
  nextLog?: number;
}

/** The stored head of a model: its revision, the revision of its last save, the log's bounds. */
interface Head {
  rev: number;
  gen: number;
  logStart: number;
  nextLog: number;
}

/** A stored log entry: with the sequence of its commit's audit record, when one was kept. */
interface StoredEntry extends LogEntry {
  audit?: number;
}

/** A model's log as read back: its entries, and why they cannot be replayed when they cannot. */
interface ReadLog {
  log: LogEntry[];
  problem?: string;
  auditSequence?: number;
}

/** What this store last saw of a model; `spec` is `null` for a model whose header or head could not be read. */
interface Seen {
  spec: ModelSpec | null;
  head: Head;
}

/** Who holds a job: a store (`owner`), since when and until when (epoch ms). */
interface Lease {
  owner: string;
  since: number;
  until: number;
}

/** Options of {@link IdbModelStore}. */
export interface IdbModelStoreOptions {
  /** Log entries folded into the base state per compaction (default 100). */
  compactionThreshold?: number;
  /** How long a job stays with the store that holds it past its due time, in ms (default 10 000). */
  jobLeaseMs?: number;
  /** Called when the store is closed (releases the shared database). */
  onClose?: () => void;
  /** Told of models not loaded because their records cannot be read (default `console.warn`). */
  warn?: (message: string) => void;
}

/** Default of {@link IdbModelStoreOptions.jobLeaseMs}: a frozen tab keeps its jobs that long past their due time. */
const DEFAULT_TAB_JOB_LEASE_MS = 10_000;

/** Web Lock names of open stores: `svc-store:<owner>`. */
const LIFE_LOCK = "svc-store:";

/** What `claim`'s check throws when another live store holds the job (or it is gone). */
const NOT_CLAIMABLE = new Error("the job is held elsewhere");

const keys = {
  header: (id: string) => ["model", id],
  head: (id: string) => ["head", id],
  log: (id: string, seq?: number) => seq === undefined ? ["log", id] : ["log", id, seq],
  audit: (id: string, sequence?: number) => sequence === undefined ? ["audit", id] : ["audit", id, sequence],
  jobs: (id: string, jobId?: string) => jobId === undefined ? ["job", id] : ["job", id, jobId],
  lease: (id: string, jobId?: string) => jobId === undefined ? ["lease", id] : ["lease", id, jobId],
  recovery: (id?: string, n?: number) =>
    id === undefined ? ["recovery"] : n === undefined ? ["recovery", id] : ["recovery", id, n],
};

/** The model id of a `[kind, id, …]` key. */
const idOf = (key: IDBValidKey[]) => key[1] as string;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether a stored value is the header of model `id` (hand-edited or damaged records are not). */
function isHeader(value: unknown, id: string): value is Header {
  return isRecord(value) && isRecord(value.spec) && value.spec.id === id;
}

/** Whether a stored value is a head. */
function isHead(value: unknown): value is Head {
  return isRecord(value) &&
    [value.rev, value.gen, value.logStart, value.nextLog].every((n) => Number.isSafeInteger(n));
}

/** The revision of a stored head (0 for a model of layout 1, or none, or an unreadable head). */
const revisionOf = (head: unknown) => isHead(head) ? head.rev : 0;

/** Groups `[key, value]` entries by the model id in their keys, keeping their order. */
function byModel<T>(entries: [IDBValidKey[], T][]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const [key, value] of entries) {
    const list = grouped.get(idOf(key));
    if (list) list.push(value);
    else grouped.set(idOf(key), [value]);
  }
  return grouped;
}

/**
 * Reads, in `os`, the audit record each stored log entry (keys `keys.log(id,
 * seq)`) names, and compares the two (engine/audit/chain.ts): a disagreement is
 * a problem, as in the server's stores. Entries of earlier builds name none.
 */
async function readLog(
  os: IDBObjectStore,
  logs: [IDBValidKey[], StoredEntry][],
): Promise<Map<string, ReadLog>> {
  // A damaged entry (not an object) goes on as it is, for the service to find unreadable.
  const linked = (value: unknown): value is StoredEntry => isRecord(value) && "audit" in value;
  const records = await Promise.all(
    logs.map(([key, value]) =>
      linked(value) && Number.isInteger(value.audit)
        ? promisifyRequest(os.get(keys.audit(idOf(key), value.audit)))
        : null
    ),
  );
  const read = new Map<string, ReadLog>();
  logs.forEach(([key, value], i) => {
    const model = read.get(idOf(key)) ?? { log: [] };
    read.set(idOf(key), model);
    if (!linked(value)) return void model.log.push(value);
    const { audit, ...entry } = value;
    model.log.push(entry);
    const disagreement = !model.problem && loggedWriteDisagreement(entry, records[i]);
    if (disagreement) {
      model.problem = `log entry ${key[2]}: ${disagreement}`;
      if (Number.isInteger(audit)) model.auditSequence = audit;
    }
  });
  return read;
}

/** The owners of the stores open in this origin now; `null` where Web Locks are not offered. */
async function liveOwners(): Promise<Set<string> | null> {
  try {
    const { held = [] } = await navigator.locks.query();
    return new Set(
      held.map((lock) => lock.name ?? "").filter((name) => name.startsWith(LIFE_LOCK)).map((name) =>
        name.slice(LIFE_LOCK.length)
      ),
    );
  } catch {
    return null;
  }
}

/** The IndexedDB model store, and the coordination of the writers sharing its database. */
export class IdbModelStore implements ModelStore, StoreCoordination {
  readonly description: string;
  readonly #db: BrowserDatabase;
  readonly #store: UseStore;
  readonly #threshold: number;
  readonly #leaseMs: number;
  readonly #onClose?: () => void;
  readonly #warn: (message: string) => void;
  readonly #seen = new Map<string, Seen>();
  readonly #owner = crypto.randomUUID();
  readonly #channel: BroadcastChannel | null;
  readonly #listeners = new Set<(change: StoreChange) => void>();
  /** Resolves once this store holds its Web Lock (at once where there are none). */
  readonly #alive: Promise<void>;
  #endLife: () => void = () => {};
  #loaded = false;
  #poller: ReturnType<typeof setInterval> | null = null;
  #polling: Promise<void> | null = null;
  #stopWaking: () => void = () => {};
  #closed = false;

  constructor(db: BrowserDatabase, options: IdbModelStoreOptions = {}) {
    this.#db = db;
    this.#store = db.models;
    this.#threshold = options.compactionThreshold ?? 100;
    this.#leaseMs = options.jobLeaseMs ?? DEFAULT_TAB_JOB_LEASE_MS;
    this.#onClose = options.onClose;
    this.#warn = options.warn ?? ((message) => console.warn(message));
    this.description = `indexeddb (${db.name})`;
    this.#channel = typeof BroadcastChannel === "function"
      ? new BroadcastChannel(`svc-models:${db.name}`)
      : null;
    this.#alive = new Promise<void>((granted) => {
      const open = new Promise<void>((end) => (this.#endLife = end));
      // Without Web Locks (an opaque origin, an old browser) leases only run out.
      try {
        navigator.locks.request(`${LIFE_LOCK}${this.#owner}`, () => (granted(), open)).catch(() => granted());
      } catch {
        granted();
      }
    });
  }

  get coordination(): StoreCoordination {
    return this;
  }

  #write(writes: WriteSet, doing: string, condition?: WriteCondition): Promise<void> {
    return writeOrExplain(this.#db, this.#store, writes, doing, condition);
  }

  /** The condition of a write to a model this store saw at revision `rev`: refused when it moved on since. */
  #atRevision(id: string, rev: number): WriteCondition {
    return {
      read: [keys.head(id)],
      check: ([stored]) => {
        if (revisionOf(stored) !== rev) throw new StaleModelError(id);
      },
    };
  }

  #seenOrStale(id: string): Seen & { spec: ModelSpec } {
    const seen = this.#seen.get(id);
    if (!seen?.spec) throw new StaleModelError(id);
    return { spec: seen.spec, head: seen.head };
  }

  /** Tells the other stores sharing the database that a model changed (after its transaction completed). */
  #announce(id: string): void {
    this.#channel?.postMessage({ m: id });
  }

  /** A lease of `job` to this store, from `now` until `holdMs` past its due time plus the lease time. */
  #lease(job: EffectJob, holdMs: number, now: number): Lease {
    return { owner: this.#owner, since: now, until: Math.max(job.dueAt, now) + holdMs + this.#leaseMs };
  }

  /** A job written and held by this store. */
  #jobPut(modelId: string, job: EffectJob, now: number): [IDBValidKey, unknown][] {
    return [[keys.jobs(modelId, job.id), job], [keys.lease(modelId, job.id), this.#lease(job, 0, now)]];
  }

  /**
   * The puts and deletes of outbox changes: a job put is held by this store, a
   * removed one is released. Updates (and a commit's puts) are written by {@link #updating}.
   */
  #jobWrites(modelId: string, changes: JobChanges | undefined): Required<WriteSet> {
    const now = Date.now();
    const put = (changes?.put ?? []).flatMap((job) => this.#jobPut(modelId, job, now));
    const released = (changes?.remove ?? []).map((
      jobId,
    ) => [keys.jobs(modelId, jobId), keys.lease(modelId, jobId)]);
    return { put, delete: released.flat() };
  }

  /**
   * `condition`, which also writes the `put` and `update` of `changes` in the
   * same transaction, as it reads them: an update only of a job still there (a
   * job settled since, by this store or another tab, is not brought back), and
   * a job there only while this store is its last holder (once another has
   * claimed it, that one's copy, its attempts, is the newer: a late write
   * leaves it alone; `refuse`: a late update refuses the whole write as stale,
   * as PostgreSQL's commit does).
   */
  #updating(
    modelId: string,
    changes: JobChanges | undefined,
    condition: WriteCondition,
    refuse = false,
  ): WriteCondition {
    const removed = changes?.remove ?? [];
    const puts = (changes?.put ?? []).filter((job) => !removed.includes(job.id));
    const jobs = [...puts, ...(changes?.update ?? []).filter((job) => !removed.includes(job.id))];
    if (!jobs.length) return condition;
    const own = condition.read.length;
    return {
      read: [
        ...condition.read,
        ...jobs.flatMap((job) => [keys.jobs(modelId, job.id), keys.lease(modelId, job.id)]),
      ],
      check: (values) => {
        const then = condition.check(values.slice(0, own));
        const now = Date.now();
        const written = jobs.filter((_, i) => {
          const [stored, lease] = values.slice(own + 2 * i) as [unknown, Lease | undefined];
          const mine = !lease || lease.owner === this.#owner;
          if (refuse && !mine && stored !== undefined && i >= puts.length) throw new StaleModelError(modelId);
          return stored === undefined ? i < puts.length : mine;
        });
        return {
          delete: then?.delete,
          put: [...then?.put ?? [], ...written.flatMap((job) => this.#jobPut(modelId, job, now))],
        };
      },
    };
  }

  /**
   * Every model of `scope` (all, or one id) as stored, read in one transaction; what was read becomes what
   * this store saw. A model whose header or head cannot be read is left out with a warning (its records
   * stay; a create of its id replaces them).
   */
  async #readModels(scope: [] | [string]): Promise<LoadedModel[]> {
    const [headers, heads, logOf, jobs] = await this.#store("readonly", async (os) => {
      const read = await Promise.all([
        entriesUnder<unknown>(os, ["model", ...scope]),
        entriesUnder<unknown>(os, ["head", ...scope]),
        entriesUnder<StoredEntry>(os, ["log", ...scope]),
        entriesUnder<unknown>(os, ["job", ...scope]),
      ]);
      return [read[0], read[1], await readLog(os, read[2]), read[3]] as const;
    });
    const headOf = new Map(heads.map(([key, head]) => [idOf(key), head]));
    const jobsOf = byModel(jobs);
    return headers.flatMap(([key, header]) => {
      const id = idOf(key);
      const stored = headOf.get(id);
      if (!isHeader(header, id) || (stored !== undefined && !isHead(stored))) {
        this.#warn(
          `model '${id}' not loaded: its stored ${isHeader(header, id) ? "head" : "header"} is unreadable`,
        );
        // Seen as it is, so that the poll reports it again only when another writer changes it.
        const rev = revisionOf(stored);
        this.#seen.set(id, { spec: null, head: { rev, gen: rev, logStart: 0, nextLog: 0 } });
        return [];
      }
      // A header of layout 1 keeps the log's bounds itself.
      const head = stored ?? { rev: 0, gen: 0, logStart: header.logStart ?? 0, nextLog: header.nextLog ?? 0 };
      this.#seen.set(id, { spec: header.spec, head });
      const { log, problem: disagreement, auditSequence } = logOf.get(id) ?? { log: [] };
      const problem = !header.base
        ? "no state is stored"
        : log.length !== head.nextLog - head.logStart
        ? "its write log has gaps"
        : disagreement;
      // A state that cannot be rebuilt comes with what could be read, for recovery.
      return [{
        spec: header.spec,
        base: header.base,
        baseAt: header.baseAt,
        log,
        jobs: (jobsOf.get(id) ?? []).filter(isEffectJob),
        ...problem ? { problem, ...problem === disagreement && { auditSequence } } : {},
      }];
    });
  }

  async load(): Promise<LoadedModel[]> {
    const loaded = await this.#readModels([]);
    this.#loaded = true;
    return loaded;
  }

  async refresh(modelId: string, options: { full?: boolean } = {}): Promise<ModelRefresh> {
    const seen = this.#seen.get(modelId);
    const from = seen?.head.nextLog ?? 0;
    const [exists, head, read, jobs, last] = await this.#store("readonly", async (os) => {
      const range = IDBKeyRange.bound(keys.log(modelId, from), [...keys.log(modelId), []]);
      const [exists, head, logKeys, logs, jobs, last] = await Promise.all([
        promisifyRequest(os.getKey(keys.header(modelId))).then((key) => key !== undefined),
        promisifyRequest<Head | undefined>(os.get(keys.head(modelId))),
        promisifyRequest(os.getAllKeys(range) as IDBRequest<IDBValidKey[][]>),
        promisifyRequest<StoredEntry[]>(os.getAll(range)),
        valuesUnder<unknown>(os, keys.jobs(modelId)),
        lastUnder<AuditRecord>(os, keys.audit(modelId)),
      ]);
      const read = await readLog(os, logKeys.map((key, i) => [key, logs[i]]));
      return [exists, head, read.get(modelId) ?? { log: [] }, jobs, last] as const;
    });
    const entries = read.log;
    if (!exists) {
      this.#seen.delete(modelId);
      return { kind: "deleted" };
    }
    if (seen && !options.full && revisionOf(head) === seen.head.rev) return { kind: "current" };
    // Others' commits disagreeing with their records: the reload reports the problem.
    const replayable = seen && head && !options.full && !read.problem && head.gen === seen.head.gen &&
      head.logStart <= from && entries.length === head.nextLog - from;
    if (!replayable) {
      const [model] = await this.#readModels([modelId]);
      if (model) return { kind: "replaced", model };
      // Gone, or unreadable: then it stays seen as it is (see #readModels), for the poll.
      if (this.#seen.get(modelId)?.spec !== null) this.#seen.delete(modelId);
      return { kind: "deleted" };
    }
    this.#seen.set(modelId, { spec: seen.spec, head });
    return {
      kind: "commits",
      entries,
      jobs: jobs.filter(isEffectJob),
      auditHead: last ? { sequence: last.sequence, hash: last.hash } : null,
    };
  }

  watch(listener: (change: StoreChange) => void): Promise<() => void> {
    this.#listeners.add(listener);
    if (!this.#poller && !this.#closed) {
      if (this.#channel) {
        this.#channel.onmessage = (event: MessageEvent) => {
          const id = (event.data as { m?: unknown } | null)?.m;
          if (typeof id === "string") this.#emit({ type: "model", modelId: id });
        };
      }
      this.#poller = setInterval(() => this.#pollNow(), Math.max(100, Math.min(1000, this.#leaseMs / 4)));
      this.#stopWaking = onWake(() => this.#pollNow());
    }
    return Promise.resolve(() => this.#listeners.delete(listener));
  }

  #emit(change: StoreChange): void {
    for (const listener of this.#listeners) listener(change);
  }

  #pollNow(): void {
    // One poll at a time: a slow one is not queued behind by the next ticks.
    this.#polling ??= this.#poll().finally(() => (this.#polling = null));
  }

  /** Reports the models whose revision this store has not seen, and claims and hands over due jobs nobody holds. */
  async #poll(): Promise<void> {
    if (!this.#listeners.size || this.#closed) return;
    try {
      const [live, heads, jobs, leases] = await this.#store("readonly", (os) =>
        Promise.all([
          keysUnder(os, ["model"]),
          entriesUnder<unknown>(os, ["head"]),
          valuesUnder<unknown>(os, ["job"]),
          entriesUnder<Lease>(os, ["lease"]),
        ]));
      if (this.#loaded) {
        const stored = new Map(heads.map(([key, head]) => [idOf(key), revisionOf(head)]));
        const vanished = new Set(this.#seen.keys());
        for (const key of live) {
          const id = idOf(key);
          vanished.delete(id);
          if (this.#seen.get(id)?.head.rev !== (stored.get(id) ?? 0)) {
            this.#emit({ type: "model", modelId: id });
          }
        }
        for (const id of vanished) this.#emit({ type: "model", modelId: id });
      }
      const held = new Map(leases.map(([key, lease]) => [`${idOf(key)}/${key[2]}`, lease]));
      const ownersAt = Date.now();
      const owners = await liveOwners();
      const now = Date.now();
      const claimed: EffectJob[] = [];
      for (const job of jobs.filter(isEffectJob)) {
        const lease = held.get(`${job.modelId}/${job.id}`);
        if (job.dueAt > now || (lease && !this.#free(lease, now, owners, ownersAt))) continue;
        const stored = await this.#claim(job, 0, owners, ownersAt);
        if (stored) claimed.push(stored);
      }
      if (claimed.length) this.#emit({ type: "jobs", jobs: claimed });
    } catch {
      // The database closed under the poll (another tab upgrading it, this store closing): the next one tries again.
    }
  }

  /**
   * Whether a lease is free to take now: it ran out, or its holder is gone (its
   * Web Lock is not held, and it took the lease before `ownersAt`, when `owners`
   * was read; without Web Locks every holder counts as alive).
   */
  #free(lease: Lease, now: number, owners: Set<string> | null, ownersAt: number): boolean {
    if (lease.until < now) return true;
    return lease.owner !== this.#owner && owners !== null && !owners.has(lease.owner) &&
      lease.since < ownersAt;
  }

  claim(job: EffectJob, holdMs: number): Promise<EffectJob | null> {
    const ownersAt = Date.now();
    return liveOwners().then((owners) => this.#claim(job, holdMs, owners, ownersAt));
  }

  /** Leases `job` to this store when no other live one holds it; the job as stored, else `null`. */
  async #claim(
    job: EffectJob,
    holdMs: number,
    owners: Set<string> | null,
    ownersAt: number,
  ): Promise<EffectJob | null> {
    await this.#alive;
    const leaseKey = keys.lease(job.modelId, job.id);
    let claimed: EffectJob | null = null;
    try {
      await this.#write({}, `claim effect '${job.effectId}' of model '${job.modelId}'`, {
        read: [keys.jobs(job.modelId, job.id), leaseKey],
        check: ([stored, current]) => {
          const now = Date.now();
          const lease = current as Lease | undefined;
          const heldElsewhere = lease && lease.owner !== this.#owner &&
            !this.#free(lease, now, owners, ownersAt);
          if (!isEffectJob(stored) || heldElsewhere) throw NOT_CLAIMABLE;
          claimed = stored;
          return { put: [[leaseKey, this.#lease(stored, holdMs, now)]] };
        },
      });
      return claimed;
    } catch (err) {
      if (err === NOT_CLAIMABLE) return null;
      throw err;
    }
  }

  async save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges } = {},
  ): Promise<void> {
    const id = spec.id;
    const seen = this.#seen.get(id);
    const jobs = this.#jobWrites(id, options.jobs);
    if (jobs.put.length) await this.#alive;
    const header: Header = { spec, base: state, baseAt: null };
    const doing = `save model '${id}'`;
    let head: Head;
    if (options.created) {
      // A created model starts clean: leftovers under its id belong to no live model. What is there is
      // replaced only when this store knew it (an unloadable model, say): another's creation wins.
      const dropped = [keys.log(id), keys.audit(id), keys.jobs(id), keys.lease(id)].map(prefixRange);
      await this.#write({ delete: dropped, put: [[keys.header(id), header], ...jobs.put] }, doing, {
        read: [keys.head(id), keys.header(id)],
        check: ([stored, existing]) => {
          const rev = revisionOf(stored);
          if (existing !== undefined && rev !== seen?.head.rev) throw new StaleModelError(id);
          head = { rev: rev + 1, gen: rev + 1, logStart: 0, nextLog: 0 };
          return { put: [[keys.head(id), head]] };
        },
      });
    } else {
      const { rev, nextLog } = this.#seenOrStale(id).head;
      head = { rev: rev + 1, gen: rev + 1, logStart: nextLog, nextLog };
      await this.#write(
        {
          delete: [prefixRange(keys.log(id)), ...jobs.delete],
          put: [[keys.header(id), header], [keys.head(id), head], ...jobs.put],
        },
        doing,
        this.#atRevision(id, rev),
      );
    }
    this.#seen.set(id, { spec, head: head! });
    this.#announce(id);
  }

  async commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    const { spec, head: seen } = this.#seenOrStale(modelId);
    const head: Head = { ...seen, rev: seen.rev + 1, nextLog: seen.nextLog + 1 };
    const writes = this.#jobWrites(modelId, { remove: jobs?.remove });
    if (jobs?.put?.length || jobs?.update?.length) await this.#alive;
    const stored: StoredEntry = audit ? { ...entry, audit: audit.sequence } : entry;
    writes.put.push([keys.log(modelId, seen.nextLog), stored]);
    if (audit) writes.put.push([keys.audit(modelId, audit.sequence), audit]);
    const fold = foldPoint(head.nextLog - head.logStart, this.#threshold, states);
    if (fold) {
      const { point, folded } = fold;
      writes.put.push([keys.header(modelId), { spec, base: point.state(), baseAt: point.at }]);
      head.logStart += folded;
      writes.delete.push(
        IDBKeyRange.bound(keys.log(modelId, 0), keys.log(modelId, head.logStart), false, true),
      );
    }
    writes.put.push([keys.head(modelId), head]);
    await this.#write(
      writes,
      `record a change of model '${modelId}'`,
      this.#updating(modelId, jobs, this.#atRevision(modelId, seen.rev), true),
    );
    this.#seen.set(modelId, { spec, head });
    this.#announce(modelId);
  }

  async updateJobs(modelId: string, jobs: JobChanges): Promise<void> {
    const seen = this.#seen.get(modelId);
    if (!seen) return;
    const writes = this.#jobWrites(modelId, { remove: jobs.remove });
    if (jobs.put?.length || jobs.update?.length) await this.#alive;
    // An outbox change moves the revision, though the state stays (PostgreSQL's does not): a write
    // resting on an outbox seen before (a tab frozen past its lease putting back, for a retry, a job
    // another tab has since settled) must be refused as stale, not resurrect it; and the other tabs
    // renew their copy of the model's jobs, which a refresh does only when the revision moved.
    const head = { ...seen.head, rev: seen.head.rev + 1 };
    writes.put.push([keys.head(modelId), head]);
    await this.#write(
      writes,
      `record an effect of model '${modelId}'`,
      this.#updating(modelId, jobs, this.#atRevision(modelId, seen.head.rev)),
    );
    this.#seen.set(modelId, { spec: seen.spec, head });
    this.#announce(modelId);
  }

  async delete(modelId: string): Promise<void> {
    const seen = this.#seen.get(modelId);
    const everything = [keys.log(modelId), keys.audit(modelId), keys.jobs(modelId), keys.lease(modelId)];
    await this.#write(
      { delete: [keys.header(modelId), ...everything.map(prefixRange)] },
      `delete model '${modelId}'`,
      {
        read: [keys.head(modelId), keys.header(modelId)],
        check: ([stored, existing]) => {
          // Already deleted by another: nothing of it is left to delete.
          if (existing === undefined) return;
          const rev = revisionOf(stored);
          if (rev !== seen?.head.rev) throw new StaleModelError(modelId);
          // The head stays, so that an id created again never repeats a revision.
          return { put: [[keys.head(modelId), { rev: rev + 1, gen: rev + 1, logStart: 0, nextLog: 0 }]] };
        },
      },
    );
    this.#seen.delete(modelId);
    this.#announce(modelId);
  }

  /** Whether model `modelId` is stored (its header is), whether or not this process's service took it in. */
  async has(modelId: string): Promise<boolean> {
    return await this.#store("readonly", (os) => promisifyRequest(os.getKey(keys.header(modelId)))) !==
      undefined;
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

  keepForRecovery(record: RecoveryRecord): Promise<void> {
    const id = record.modelId;
    // Numbered inside the write: two tabs keeping states of one model at once keep both.
    return this.#write({}, `keep the unreadable state of model '${id}'`, {
      read: [prefixRange(keys.recovery(id))],
      check: ([kept]) => ({ put: [[keys.recovery(id, kept as number), record]] }),
    });
  }

  async listRecovery(): Promise<RecoverySummary[]> {
    const records = await readRange<RecoveryRecord>(this.#store, keys.recovery());
    return records.sort((a, b) => a.detectedAt.localeCompare(b.detectedAt)).map(summarizeRecovery);
  }

  getRecovery(modelId: string): Promise<RecoveryRecord[]> {
    return readRange<RecoveryRecord>(this.#store, keys.recovery(modelId));
  }

  async deleteRecovery(modelId: string): Promise<number> {
    const kept = prefixRange(keys.recovery(modelId));
    // Counted inside the deleting transaction: a record another tab keeps meanwhile is counted if deleted.
    let deleted = 0;
    await this.#write({ delete: [kept] }, `delete the recovery records of model '${modelId}'`, {
      read: [kept],
      check: ([count]) => void (deleted = count as number),
    });
    return deleted;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    if (this.#poller !== null) clearInterval(this.#poller);
    this.#stopWaking();
    await this.#polling;
    this.#channel?.close();
    this.#endLife();
    this.#onClose?.();
  }
}

/**
 * Calls `wake` when the page is shown again (back from the back/forward cache,
 * a background tab brought forward, a frozen one resumed): what it missed
 * meanwhile is found at once. Returns the function that stops it.
 */
function onWake(wake: () => void): () => void {
  const doc = globalThis.document;
  if (!doc) return () => {};
  const visible = () => doc.visibilityState === "visible" && wake();
  globalThis.addEventListener("pageshow", wake);
  doc.addEventListener("visibilitychange", visible);
  doc.addEventListener("resume", wake);
  return () => {
    globalThis.removeEventListener("pageshow", wake);
    doc.removeEventListener("visibilitychange", visible);
    doc.removeEventListener("resume", wake);
  };
}
