/**
 * What the instances sharing a PostgreSQL database tell each other, and the
 * jobs they hand over:
 *
 * - Every write to a model notifies channel `svc_models` with
 *   `{"i": <instance>, "m": <model id>}` in its own transaction (delivered only
 *   if it commits); the others refresh that model. The feed LISTENs again on its
 *   own connection after losing it; notifications sent meanwhile are lost, so on
 *   every reconnection each model whose rev differs from the one this instance
 *   saw is reported as changed (and so are models that appeared or vanished).
 * - A poller claims due jobs nobody holds (their instance died, or its lease ran
 *   out) with `FOR UPDATE SKIP LOCKED`, so concurrent pollers never take the
 *   same job, and hands them to the service.
 *
 * @module
 */
import type { EffectJob } from "../../engine/effects/job.ts";
import type { StoreChange } from "../../engine/service/ports.ts";
import { RetriesUntilThrough } from "../../engine/service/retries.ts";
import { GLOBAL_SCHEDULER } from "../../engine/ports.ts";
import { DB_NOW, type PgDatabase, type Sql } from "./pg_database.ts";
import { isOutage, retryingReplays } from "./pg_outage.ts";

/** What the feed needs from its model store. */
export interface FeedSource {
  jobLeaseMs: number;
  warn(message: string): void;
  /** The rev this instance last saw of each model. */
  seenRevs(): Map<string, number>;
  /** A stored job, `null` when unreadable. */
  parseJob(text: string): EffectJob | null;
}

/** Jobs claimed per poll. */
const CLAIM_BATCH = 100;

/** Notifications and job hand-over for one store. */
export class PgChangeFeed {
  /** The notification channel. */
  static readonly CHANNEL = "svc_models";

  /** The payload announcing a change of `modelId` by `instance`. */
  static payload(instance: string, modelId: string): string {
    return JSON.stringify({ i: instance, m: modelId });
  }

  readonly #db: PgDatabase;
  readonly #source: FeedSource;
  readonly #listeners = new Set<(change: StoreChange) => void>();
  /** The LISTEN connection, made with the first listener. */
  #connection: Sql | null = null;
  #listening: Promise<void> | null = null;
  /** Whether the first LISTEN got through: a lost connection is then listened on again. */
  #listened = false;
  /** Times the LISTEN connection was lost; a re-LISTEN runs again when one came meanwhile. */
  #losses = 0;
  #relistening = false;
  #poller: ReturnType<typeof setInterval> | null = null;
  #polling: Promise<void> = Promise.resolve();
  /** Whether the last poll failed for want of the database. */
  #pollsLost = false;
  /** Re-LISTENs and resynchronisations that failed, waiting to run again; closed with the feed. */
  readonly #resyncRetries = new RetriesUntilThrough(GLOBAL_SCHEDULER);

  constructor(db: PgDatabase, source: FeedSource) {
    this.#db = db;
    this.#source = source;
  }

  /**
   * Starts listening (and polling) with the first listener; resolves once
   * LISTEN is in place, with the unsubscribe function.
   */
  async watch(listener: (change: StoreChange) => void): Promise<() => void> {
    this.#listeners.add(listener);
    if (!this.#listening) {
      this.#connection = this.#db.listenConnection(
        (channel, payload) => channel === PgChangeFeed.CHANNEL && this.#notified(payload),
        () => this.#listened && this.#listenAgain(),
      );
      this.#listening = this.#listen().then(() => {
        this.#listened = true;
      });
      const every = Math.max(100, Math.min(1000, this.#source.jobLeaseMs / 4));
      this.#poller = setInterval(() => {
        this.#polling = this.#polling.then(() => this.#poll());
      }, every);
    }
    await this.#listening;
    return () => this.#listeners.delete(listener);
  }

  /** LISTEN on the feed's connection (connecting it when it is not). */
  async #listen(): Promise<void> {
    const connection = this.#connection!;
    await retryingReplays(() => connection.unsafe(`LISTEN ${PgChangeFeed.CHANNEL}`));
  }

  /**
   * After the LISTEN connection was lost: LISTEN again, then resynchronise.
   * postgres.js's own re-LISTEN dropped a failure silently, and a LISTEN in
   * flight when a restart ended the session failed on the next connection
   * with the FATAL the driver kept ({@link retryingReplays}): the feed heard
   * nothing more until the session ended again. This one runs again until it
   * gets through (another loss meanwhile, once more) or the feed closes.
   */
  #listenAgain(): void {
    this.#losses++;
    if (this.#relistening) return;
    this.#relistening = true;
    this.#resyncRetries.run(async () => {
      let losses;
      do {
        losses = this.#losses;
        await this.#listen();
        await this.#resync();
      } while (losses !== this.#losses);
      this.#relistening = false;
    }, (err) =>
      this.#source.warn(
        `postgres: resynchronising after a reconnection failed: ${err.message}; trying again until it gets through`,
      ));
  }

  #emit(change: StoreChange): void {
    for (const listener of this.#listeners) listener(change);
  }

  #notified(payload: string): void {
    let notice: { i?: unknown; m?: unknown };
    try {
      notice = JSON.parse(payload);
    } catch {
      return;
    }
    if (notice.i !== this.#db.instance && typeof notice.m === "string") {
      this.#emit({ type: "model", modelId: notice.m });
    }
  }

  /** After a reconnection: every model whose rev this instance has not seen, and every one that vanished. */
  async #resync(): Promise<void> {
    const rows = await retryingReplays(() => this.#db.sql`SELECT id, rev FROM svc_models`);
    const seen = this.#source.seenRevs();
    for (const row of rows) {
      const id = row.id as string;
      if (seen.get(id) !== row.rev) this.#emit({ type: "model", modelId: id });
      seen.delete(id);
    }
    for (const id of seen.keys()) this.#emit({ type: "model", modelId: id });
  }

  /** Claims due jobs no live instance holds and hands them to the service. */
  async #poll(): Promise<void> {
    if (!this.#listeners.size) return;
    try {
      const now = this.#db.sql.unsafe(DB_NOW);
      const rows = await retryingReplays(() =>
        this.#db.sql`
        UPDATE svc_jobs AS j SET owner = ${this.#db.instance},
          lease_until = greatest(j.due_at, ${now}) + ${this.#source.jobLeaseMs}
        FROM (
          SELECT model_id, id FROM svc_jobs
          WHERE due_at <= ${now} AND (owner IS NULL OR lease_until < ${now})
          ORDER BY due_at LIMIT ${CLAIM_BATCH}
          FOR UPDATE SKIP LOCKED
        ) AS due
        WHERE j.model_id = due.model_id AND j.id = due.id
        RETURNING j.job`
      );
      this.#pollsLost = false;
      const jobs = rows.map((row) => this.#source.parseJob(row.job as string)).filter((job) => job !== null);
      if (jobs.length) this.#emit({ type: "jobs", jobs });
    } catch (err) {
      // A database that cannot be reached fails every poll: said once, until a poll gets through.
      if (this.#pollsLost && isOutage(err)) return;
      this.#pollsLost = isOutage(err);
      this.#source.warn(
        `postgres: claiming due jobs failed: ${(err as Error).message}` +
          (this.#pollsLost ? " (not logged again until the database answers)" : ""),
      );
    }
  }

  /** Stops listening and polling. */
  async close(): Promise<void> {
    this.#listeners.clear();
    this.#listened = false;
    this.#resyncRetries.close();
    if (this.#poller !== null) clearInterval(this.#poller);
    await this.#polling;
    await this.#listening?.catch(() => {});
    await this.#connection?.end({ timeout: 1 });
  }
}
