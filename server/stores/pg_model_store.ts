/**
 * Models in PostgreSQL, shared by any number of service instances (schema in
 * pg_schema.ts): a model row (spec, base state, log bounds, audit head), its
 * log, audit trail and effect outbox.
 *
 * Serialisation: every write to a model names the `rev` this process last saw
 * and moves it on (`UPDATE … WHERE rev = $seen`, the row lock orders racing
 * writers); a write that finds another rev changes nothing and throws
 * {@link StaleModelError}, and the service refreshes and evaluates again. A
 * commit is one statement (one transaction): rev, log entry, audit record,
 * outbox changes and the notification to the other instances.
 *
 * Coordination ({@link StoreCoordination}): `refresh` returns the commits made
 * since this process's rev (or the whole model when it was replaced or has
 * been compacted past), `watch` relays the other instances' notifications and
 * the jobs this process takes over (pg_change_feed.ts), `claim` leases a job
 * and returns it as stored.
 *
 * @module
 */
import { type AuditRecord, GENESIS_HASH, loggedWriteDisagreement } from "../../engine/audit/chain.ts";
import { type EffectJob, isEffectJob, type JobChanges } from "../../engine/effects/job.ts";
import { filterAudit } from "../../engine/service/audit_query.ts";
import { foldPoint } from "../../engine/service/compaction.ts";
import { summarizeRecovery } from "../../engine/service/memory.ts";
import {
  type AuditQuery,
  type CommitStates,
  type LoadedModel,
  type LogEntry,
  type ModelRefresh,
  type ModelStore,
  type PersistedState,
  type RecoveryRecord,
  type RecoverySummary,
  StaleModelError,
  type StoreChange,
  type StoreCoordination,
} from "../../engine/service/ports.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import { PgChangeFeed } from "./pg_change_feed.ts";
import { DB_NOW, type PgDatabase, type Query, type Sql } from "./pg_database.ts";
import type postgres from "postgres";
import { type AuditHead, lastWithHead, parseAudit, trailWithHead } from "./stored_audit.ts";
import { isLogEntry, isPersistedState } from "./stored_model.ts";

/** Options of the PostgreSQL model store. */
export interface PgModelStoreOptions {
  /** Whether audit records are kept (`svc.storage.audit-type` postgres or none). */
  audit: boolean;
  /** Log entries folded per compaction. */
  compactionThreshold: number;
  /** How long a job stays with the process that holds it past its due time (ms). */
  jobLeaseMs: number;
  warn(message: string): void;
}

/** What this process last saw of a model's row. */
interface Seen {
  rev: number;
  gen: number;
  logStart: number;
  nextLog: number;
}

/** Audit records read per page when filtering newest first. */
const PAGE = 500;

/**
 * The columns of model `m`'s log from `from` on, in order: `entries`, and the
 * audit record each names (`audit_seqs`, '' for none) as stored (`records`).
 */
function logColumns(sql: Query, from: postgres.PendingQuery<postgres.Row[]>) {
  const log = (column: string) =>
    sql`(SELECT array_agg(${sql.unsafe(column)} ORDER BY l.seq) FROM svc_log l
      LEFT JOIN svc_audit a ON a.model_id = l.model_id AND a.sequence = l.audit_seq
      WHERE l.model_id = m.id AND l.seq >= ${from})`;
  // As text, '' for none: the client reads a NULL inside an array as the string "NULL", and a bigint[]
  // not as numbers.
  return sql`${log("l.entry")} AS entries, ${log("coalesce(l.audit_seq::text, '')")} AS audit_seqs, ${
    log("coalesce(a.record, '')")
  } AS records`;
}

/** The columns a model is loaded from, with its log after the base and its outbox. */
function modelColumns(sql: Query) {
  return sql`m.id, m.rev, m.gen, m.spec, m.base, m.base_at, m.log_start, m.next_log, m.audit_seq, m.audit_hash,
    ${logColumns(sql, sql`m.log_start`)},
    (SELECT array_agg(j.job) FROM svc_jobs j WHERE j.model_id = m.id) AS jobs`;
}

type Row = Record<string, unknown>;

function seenOf(row: Row): Seen {
  return {
    rev: row.rev as number,
    gen: row.gen as number,
    logStart: row.log_start as number,
    nextLog: row.next_log as number,
  };
}

function headOf(row: Row): AuditHead | null {
  return row.audit_seq === null
    ? null
    : { sequence: row.audit_seq as number, hash: row.audit_hash as string };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A stored log read back (`logColumns`): its entries up to the first that cannot be replayed, and why. */
function readLog(
  row: Row,
  first: number,
): { log: LogEntry[]; problem: string | null; auditSequence?: number } {
  const texts = (row.entries ?? []) as string[];
  const sequences = (row.audit_seqs ?? []) as string[];
  const log: LogEntry[] = [];
  let disagreed: { problem: string; auditSequence: number } | null = null;
  for (const [i, text] of texts.entries()) {
    const entry = parse(text);
    if (!isLogEntry(entry)) return { log, problem: `log entry ${first + i} is unreadable` };
    log.push(entry);
    // An entry names its record when both were written together (schema 2 on, the trail kept here).
    const disagreement: string | false | null = !disagreed && sequences[i] !== "" &&
      loggedWriteDisagreement(entry, parse((row.records as string[])[i]));
    // The entries after it are still read: all go to recovery.
    if (disagreement) {
      disagreed = { problem: `log entry ${first + i}: ${disagreement}`, auditSequence: Number(sequences[i]) };
    }
  }
  return disagreed ? { log, ...disagreed } : { log, problem: null };
}

/** The PostgreSQL model store, and the coordination of the instances sharing it. */
export class PgModelStore implements ModelStore, StoreCoordination {
  readonly description: string;
  readonly #db: PgDatabase;
  readonly #options: PgModelStoreOptions;
  readonly #seen = new Map<string, Seen>();
  readonly #feed: PgChangeFeed;

  constructor(db: PgDatabase, options: PgModelStoreOptions) {
    this.#db = db.acquire();
    this.#options = options;
    this.description = `postgres (${db.description})`;
    this.#feed = new PgChangeFeed(db, {
      jobLeaseMs: options.jobLeaseMs,
      warn: options.warn,
      seenRevs: () => new Map([...this.#seen].map(([id, seen]) => [id, seen.rev])),
      parseJob: (text) => this.#job(text),
    });
  }

  get coordination(): StoreCoordination {
    return this;
  }

  get #sql(): Sql {
    return this.#db.sql;
  }

  /** Notifies the other instances that a model changed (inside the statement or transaction that changed it). */
  #notify(sql: Query, modelId: string) {
    return sql`SELECT pg_notify(${PgChangeFeed.CHANNEL}, ${
      PgChangeFeed.payload(this.#db.instance, modelId)
    })`;
  }

  #job(text: string): EffectJob | null {
    const job = parse(text);
    return isEffectJob(job) ? job : null;
  }

  /** A loaded row as the service takes it; `null` when its spec is unreadable (reported). */
  #loaded(row: Row): LoadedModel | null {
    const id = row.id as string;
    const spec = parse(row.spec as string) as ModelSpec | undefined;
    if (!spec || typeof spec !== "object") {
      this.#options.warn(`model '${id}' not loaded: its stored spec is unreadable`);
      return null;
    }
    this.#seen.set(id, seenOf(row));
    const read = readLog(row, row.log_start as number);
    const { log, auditSequence } = read;
    let problem = read.problem;
    if (!problem && log.length !== (row.next_log as number) - (row.log_start as number)) {
      problem = `log entries are missing`;
    }
    const stored = parse(row.base as string);
    const base = isPersistedState(stored) ? stored : null;
    if (!base) problem ??= "its base state is unreadable";
    const jobs: EffectJob[] = [];
    for (const text of (row.jobs ?? []) as string[]) {
      const job = this.#job(text);
      if (job && job.modelId === id) jobs.push(job);
      else this.#options.warn(`model '${id}': an effect job record is unreadable and was ignored`);
    }
    // On a problem, what could be read still goes back: the service keeps it for recovery, never replays it.
    const model = { spec, base, baseAt: row.base_at as number | null, log, jobs };
    return problem ? { ...model, problem, ...auditSequence !== undefined && { auditSequence } } : model;
  }

  async load(): Promise<LoadedModel[]> {
    const rows = await this.#sql`SELECT ${modelColumns(this.#sql)} FROM svc_models m ORDER BY m.id`;
    return rows.map((row) => this.#loaded(row)).filter((model) => model !== null);
  }

  async refresh(modelId: string, options: { full?: boolean } = {}): Promise<ModelRefresh> {
    const seen = this.#seen.get(modelId);
    const [row] = await this.#sql`
      SELECT m.rev, m.gen, m.log_start, m.next_log, m.audit_seq, m.audit_hash,
        ${logColumns(this.#sql, this.#sql`${seen?.nextLog ?? 0}::bigint`)},
        (SELECT array_agg(j.job) FROM svc_jobs j WHERE j.model_id = m.id) AS jobs
      FROM svc_models m WHERE m.id = ${modelId}`;
    if (!row) {
      this.#seen.delete(modelId);
      return { kind: "deleted" };
    }
    if (seen && !options.full && row.rev === seen.rev) return { kind: "current" };
    // Others' commits unreadable or disagreeing with their records: the reload reports the problem.
    const { log: entries, problem } = readLog(row, seen?.nextLog ?? 0);
    const replayable = seen && !options.full && !problem && row.gen === seen.gen &&
      (row.log_start as number) <= seen.nextLog && entries.length === (row.next_log as number) - seen.nextLog;
    if (!replayable) return await this.#reload(modelId);
    this.#seen.set(modelId, seenOf(row));
    const jobs = ((row.jobs ?? []) as string[]).map((text) => this.#job(text)).filter((job) => job !== null);
    return { kind: "commits", entries, jobs, auditHead: headOf(row) };
  }

  async #reload(modelId: string): Promise<ModelRefresh> {
    const [row] = await this.#sql`SELECT ${
      modelColumns(this.#sql)
    } FROM svc_models m WHERE m.id = ${modelId}`;
    const model = row && this.#loaded(row);
    if (!model) {
      this.#seen.delete(modelId);
      return { kind: "deleted" };
    }
    return { kind: "replaced", model };
  }

  watch(listener: (change: StoreChange) => void): Promise<() => void> {
    return this.#feed.watch(listener);
  }

  async claim(job: EffectJob, holdMs: number): Promise<EffectJob | null> {
    const me = this.#db.instance;
    const now = this.#sql.unsafe(DB_NOW);
    const [row] = await this.#sql`
      UPDATE svc_jobs SET owner = ${me}, lease_until = greatest(due_at, ${now}) + ${
      holdMs + this.#options.jobLeaseMs
    }
      WHERE model_id = ${job.modelId} AND id = ${job.id}
        AND (owner IS NULL OR owner = ${me} OR lease_until < ${now})
      RETURNING job`;
    return row ? this.#job(row.job as string) : null;
  }

  /**
   * The statement part that writes outbox changes, guarded by `guard` (a CTE
   * name): removals; puts (new jobs held by this process until their lease runs
   * out); updates, of jobs still there only (a job another process settled
   * meanwhile, which moves no revision, is not brought back). A job already
   * there is written (its lease renewed) only while this process is its last
   * holder: once another has claimed it, that one's copy (its attempts) is the
   * newer, and this process's late write leaves it alone.
   */
  #jobWrites(sql: Query, modelId: string, changes: JobChanges | undefined, guard: string) {
    const removed = changes?.remove ?? [];
    const kept = (jobs: EffectJob[] | undefined) => (jobs ?? []).filter((job) => !removed.includes(job.id));
    const rows = (jobs: EffectJob[]) =>
      sql`unnest(${jobs.map((job) => job.id)}::text[], ${jobs.map((job) => JSON.stringify(job))}::text[],
        ${jobs.map((job) => job.dueAt)}::bigint[]) AS p(id, job, due_at)`;
    const me = this.#db.instance;
    const lease = sql`greatest(p.due_at, ${sql.unsafe(DB_NOW)}) + ${this.#options.jobLeaseMs}`;
    const mine = this.#mine(sql);
    return sql`
      removed AS (
        DELETE FROM svc_jobs WHERE model_id = ${modelId} AND id = ANY(${removed}::text[])
          AND EXISTS (SELECT 1 FROM ${sql(guard)})
      ),
      put AS (
        INSERT INTO svc_jobs AS j (model_id, id, job, due_at, owner, lease_until)
        SELECT ${modelId}, p.id, p.job, p.due_at, ${me}, ${lease}
        FROM ${rows(kept(changes?.put))}
        WHERE EXISTS (SELECT 1 FROM ${sql(guard)})
        ON CONFLICT (model_id, id) DO UPDATE SET job = excluded.job, due_at = excluded.due_at, owner = ${me},
          lease_until = excluded.lease_until
        WHERE ${mine}
      ),
      updated AS (
        UPDATE svc_jobs AS j SET job = p.job, due_at = p.due_at, owner = ${me}, lease_until = ${lease}
        FROM ${rows(kept(changes?.update))}
        WHERE j.model_id = ${modelId} AND j.id = p.id AND ${mine} AND EXISTS (SELECT 1 FROM ${sql(guard)})
      )`;
  }

  /** Whether outbox row `j` is this process's to write: it was the last to hold it (or nobody did). */
  #mine(sql: Query) {
    return sql`coalesce(j.owner, ${this.#db.instance}) = ${this.#db.instance}`;
  }

  #seenOrStale(modelId: string): Seen {
    const seen = this.#seen.get(modelId);
    if (!seen) throw new StaleModelError(modelId);
    return seen;
  }

  async save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges } = {},
  ): Promise<void> {
    const id = spec.id;
    const seen = this.#seen.get(id);
    const row = await this.#sql.begin(async (tx) => {
      const specText = JSON.stringify(spec);
      const baseText = JSON.stringify(state);
      let written: Row | undefined;
      if (options.created) {
        // What the id held is dropped only when this process knew it (an unloadable model, say).
        if (seen) await tx`DELETE FROM svc_models WHERE id = ${id} AND rev = ${seen.rev}`;
        [written] = await tx`
          INSERT INTO svc_models (id, rev, gen, spec, base, base_at, log_start, next_log)
          SELECT ${id}, v, v, ${specText}, ${baseText}, NULL, 0, 0 FROM nextval('svc_rev') AS v
          ON CONFLICT (id) DO NOTHING
          RETURNING rev, gen, log_start, next_log`;
      } else if (seen) {
        [written] = await tx`
          UPDATE svc_models SET rev = v, gen = v, spec = ${specText}, base = ${baseText}, base_at = NULL,
            log_start = next_log
          FROM nextval('svc_rev') AS v WHERE id = ${id} AND rev = ${seen.rev}
          RETURNING rev, gen, log_start, next_log`;
        if (written) {
          await tx`DELETE FROM svc_log WHERE model_id = ${id} AND seq < ${written.log_start as number}`;
        }
      }
      if (!written) throw new StaleModelError(id);
      await tx`WITH saved AS (SELECT 1), ${this.#jobWrites(tx, id, options.jobs, "saved")} SELECT 1`;
      await this.#notify(tx, id);
      return written;
    });
    this.#seen.set(id, seenOf(row));
  }

  async commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    const seen = this.#seenOrStale(modelId);
    const sql = this.#sql;
    const record = audit && this.#options.audit ? audit : null;
    // A job it updates (an attempt counted with its in_flight phase) that another process has claimed since
    // (this one's lease ran out: a pause) refuses the commit as stale: run again, its claim fails, nothing
    // is sent behind the new holder's back. Its row is locked and read as last committed (FOR UPDATE), not
    // as the statement's snapshot saw it: a claim committed meanwhile is seen (else the model moved, the
    // count was not written, and both sent), one coming after waits for this commit. The model's row is
    // locked first, as every other write does (no deadlock with a commit removing that job).
    const updated = (jobs?.update ?? []).map((job) => job.id).filter((id) => !jobs?.remove?.includes(id));
    const [row] = await sql`
      WITH cur AS (SELECT id FROM svc_models WHERE id = ${modelId} AND rev = ${seen.rev} FOR UPDATE),
      held AS (
        SELECT j.owner FROM svc_jobs j JOIN cur ON j.model_id = cur.id
        WHERE j.id = ANY(${updated}::text[]) FOR UPDATE OF j
      ),
      m AS (
        UPDATE svc_models SET rev = nextval('svc_rev'), next_log = next_log + 1,
          audit_seq = coalesce(${record?.sequence ?? null}::bigint, audit_seq),
          audit_hash = coalesce(${record?.hash ?? null}::text, audit_hash)
        WHERE id = (SELECT id FROM cur) AND NOT EXISTS (SELECT 1 FROM held j WHERE NOT ${this.#mine(sql)})
        RETURNING id, rev, next_log
      ),
      logged AS (
        INSERT INTO svc_log (model_id, seq, entry, audit_seq)
        SELECT id, next_log - 1, ${JSON.stringify(entry)}, ${record?.sequence ?? null}::bigint FROM m
      ),
      audited AS (
        INSERT INTO svc_audit (model_id, sequence, at, record)
        SELECT id, ${record?.sequence ?? null}::bigint, ${
      record ? Date.parse(record.timestamp) : null
    }::bigint,
          ${record ? JSON.stringify(record) : null}::text
        FROM m WHERE ${record !== null}::boolean
      ),
      ${this.#jobWrites(sql, modelId, jobs, "m")},
      notified AS (
        SELECT pg_notify(${PgChangeFeed.CHANNEL}, ${PgChangeFeed.payload(this.#db.instance, modelId)}) FROM m
      )
      SELECT m.rev, (SELECT count(*) FROM notified) AS notified FROM m`;
    if (!row) throw new StaleModelError(modelId);
    seen.rev = row.rev as number;
    seen.nextLog++;
    await this.#compact(modelId, seen, states);
  }

  /** Folds the log into the checkpoint once `compactionThreshold` entries can be folded (rev unchanged). */
  async #compact(id: string, seen: Seen, states: CommitStates): Promise<void> {
    const fold = foldPoint(seen.nextLog - seen.logStart, this.#options.compactionThreshold, states);
    if (!fold) return;
    const { point } = fold;
    const start = seen.logStart + fold.folded;
    try {
      const [row] = await this.#sql`
        WITH m AS (
          UPDATE svc_models SET base = ${
        JSON.stringify(point.state())
      }, base_at = ${point.at}, log_start = ${start}
          WHERE id = ${id} AND rev = ${seen.rev} AND log_start <= ${start}
          RETURNING id
        ),
        folded AS (DELETE FROM svc_log WHERE model_id = ${id} AND seq < ${start} AND EXISTS (SELECT 1 FROM m))
        SELECT count(*) AS n FROM m`;
      if (Number(row.n)) seen.logStart = start;
    } catch (err) {
      // The commit itself is durable; a longer log is only slower to load.
      this.#options.warn(
        `model '${id}': log compaction failed, retried at the next commit: ${(err as Error).message}`,
      );
    }
  }

  async updateJobs(modelId: string, changes: JobChanges): Promise<void> {
    // The revision stays (commits racing this would go stale for nothing): a service running a job
    // takes its attempts from `claim`, not from its copy of the outbox.
    await this.#sql`WITH always AS (SELECT 1), ${
      this.#jobWrites(this.#sql, modelId, changes, "always")
    } SELECT 1`;
  }

  async delete(modelId: string): Promise<void> {
    const seen = this.#seenOrStale(modelId);
    const gone = await this.#sql.begin(async (tx) => {
      const deleted =
        await tx`DELETE FROM svc_models WHERE id = ${modelId} AND rev = ${seen.rev} RETURNING id`;
      if (deleted.length) await this.#notify(tx, modelId);
      else if ((await tx`SELECT 1 FROM svc_models WHERE id = ${modelId}`).length) return false;
      return true;
    });
    if (!gone) throw new StaleModelError(modelId);
    this.#seen.delete(modelId);
  }

  async #auditHead(modelId: string): Promise<AuditHead | null> {
    const [row] = await this.#sql`SELECT audit_seq, audit_hash FROM svc_models WHERE id = ${modelId}`;
    return row ? headOf(row) : null;
  }

  async lastAudit(modelId: string): Promise<AuditRecord | null> {
    if (!this.#options.audit) return null;
    const [row] = await this.#sql`
      SELECT sequence, record FROM svc_audit WHERE model_id = ${modelId} ORDER BY sequence DESC LIMIT 1`;
    const last = row ? parseAudit(modelId, row.sequence as number, row.record as string, "") : null;
    return lastWithHead(modelId, last, await this.#auditHead(modelId));
  }

  async listAudit(modelId: string, query: AuditQuery): Promise<AuditRecord[]> {
    if (!this.#options.audit) return [];
    const out: AuditRecord[] = [];
    let before = query.before ?? Number.MAX_SAFE_INTEGER;
    while (out.length < query.limit) {
      const rows = await this.#sql`
        SELECT sequence, record FROM svc_audit
        WHERE model_id = ${modelId} AND sequence < ${before}
          AND at >= ${query.from ?? -Number.MAX_SAFE_INTEGER} AND at < ${query.to ?? Number.MAX_SAFE_INTEGER}
        ORDER BY sequence DESC LIMIT ${PAGE}`;
      const page = rows.map((row) => parseAudit(modelId, row.sequence as number, row.record as string, ""));
      out.push(...filterAudit(page, { ...query, limit: query.limit - out.length }));
      if (rows.length < PAGE) break;
      before = rows.at(-1)!.sequence as number;
    }
    return out;
  }

  async allAudit(modelId: string): Promise<AuditRecord[]> {
    if (!this.#options.audit) return [];
    const rows = await this.#sql`
      SELECT sequence, record FROM svc_audit WHERE model_id = ${modelId} ORDER BY sequence`;
    const out: AuditRecord[] = [];
    for (const row of rows) {
      out.push(
        parseAudit(modelId, row.sequence as number, row.record as string, out.at(-1)?.hash ?? GENESIS_HASH),
      );
    }
    return trailWithHead(modelId, out, await this.#auditHead(modelId));
  }

  async keepForRecovery(record: RecoveryRecord): Promise<void> {
    const summary = summarizeRecovery(record);
    await this.#sql`
      INSERT INTO svc_recovery (model_id, detected_at, reason, log_entries, record)
      VALUES (${summary.modelId}, ${summary.detectedAt}, ${summary.reason}, ${summary.logEntries},
        ${JSON.stringify(record)})`;
  }

  async listRecovery(): Promise<RecoverySummary[]> {
    const rows = await this.#sql`
      SELECT model_id, detected_at, reason, log_entries FROM svc_recovery ORDER BY seq`;
    return rows.map((row) => ({
      modelId: row.model_id as string,
      detectedAt: row.detected_at as string,
      reason: row.reason as string,
      logEntries: row.log_entries as number,
    }));
  }

  async getRecovery(modelId: string): Promise<RecoveryRecord[]> {
    const rows = await this.#sql`SELECT record FROM svc_recovery WHERE model_id = ${modelId} ORDER BY seq`;
    return rows.map((row) => JSON.parse(row.record as string) as RecoveryRecord);
  }

  async deleteRecovery(modelId: string): Promise<number> {
    return (await this.#sql`DELETE FROM svc_recovery WHERE model_id = ${modelId}`).count;
  }

  async close(): Promise<void> {
    await this.#feed.close();
    // A clean stop (its attempts ended) ends its leases at the jobs' due times, as if it had died then: its
    // restart (a new identity) or another instance takes each once due, not one lease later; a put-off or
    // a timer still waits for its time.
    const me = this.#db.instance;
    try {
      await this.#sql`UPDATE svc_jobs SET lease_until = least(lease_until, due_at) WHERE owner = ${me}`;
    } catch (err) {
      this.#options.warn(`postgres: releasing this instance's jobs failed: ${(err as Error).message}`);
    }
    await this.#db.release();
  }
}
