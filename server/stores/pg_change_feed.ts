/**
 * What the instances sharing a PostgreSQL database tell each other, and the
 * jobs they hand over:
 *
 * - Every write to a model notifies channel `svc_models` with
 *   `{"i": <instance>, "m": <model id>}` in its own transaction (delivered only
 *   if it commits); the others refresh that model. The client re-LISTENs after a
 *   lost connection; notifications sent meanwhile are lost, so on every
 *   reconnection each model whose rev differs from the one this instance saw is
 *   reported as changed (and so are models that appeared or vanished).
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
import { DB_NOW, type PgDatabase } from "./pg_database.ts";
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
  #listening: Promise<{ unlisten(): Promise<void> }> | null = null;
  #connections = 0;
  #poller: ReturnType<typeof setInterval> | null = null;
  #polling: Promise<void> = Promise.resolve();
  /** Whether the last poll failed for want of the database. */
  #pollsLost = false;
  /** Resynchronisations that failed, waiting to run again; closed with the feed. */
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
      this.#listening = this.#db.sql.listen(
        PgChangeFeed.CHANNEL,
        (payload) => this.#notified(payload),
        () => {
          if (++this.#connections > 1) this.#resync();
        },
      );
      const every = Math.max(100, Math.min(1000, this.#source.jobLeaseMs / 4));
      this.#poller = setInterval(() => {
        this.#polling = this.#polling.then(() => this.#poll());
      }, every);
    }
    await this.#listening;
    return () => this.#listeners.delete(listener);
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

  /**
   * After a reconnection: every model whose rev this instance has not seen,
   * and every one that vanished. Until it gets through it runs again (the
   * notices missed meanwhile would otherwise wait for each model's next commit).
   */
  #resync(): void {
    this.#resyncRetries.run(async () => {
      const rows = await retryingReplays(() => this.#db.sql`SELECT id, rev FROM svc_models`);
      const seen = this.#source.seenRevs();
      for (const row of rows) {
        const id = row.id as string;
        if (seen.get(id) !== row.rev) this.#emit({ type: "model", modelId: id });
        seen.delete(id);
      }
      for (const id of seen.keys()) this.#emit({ type: "model", modelId: id });
    }, (err) =>
      this.#source.warn(
        `postgres: resynchronising after a reconnection failed: ${err.message}; trying again until it gets through`,
      ));
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
    this.#resyncRetries.close();
    if (this.#poller !== null) clearInterval(this.#poller);
    await this.#polling;
    const listening = await this.#listening?.catch(() => null);
    await listening?.unlisten().catch(() => {});
  }
}
