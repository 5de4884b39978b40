/**
 * Two instances over one PostgreSQL database racing for one job: a commit
 * counting an attempt (its `in_flight` phase) while another instance claims
 * the job whose lease ran out. The interleaving is forced with a third
 * connection holding the job's row lock until both statements wait on it, so
 * the race is run, not hoped for.
 *
 * @module
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import type { ModelSpec } from "../../engine/model/types.ts";
import { type PersistedState, StaleModelError } from "../../engine/service/ports.ts";
import { openStorage } from "../../server/stores/mod.ts";
import { job } from "./contract.ts";
import { sharedPostgres } from "./postgres_cluster.ts";

const SPEC = { id: "race", schema: { type: "object" } } as ModelSpec;
const STATE: PersistedState = { doc: {}, meta: [], stale: [] };
const states = { current: () => STATE, checkpoint: () => ({ at: null, following: 1, state: () => STATE }) };

/** Waits until `n` statements of this database wait for a lock (polled: the waits are the server's). */
async function lockWaiters(sql: postgres.Sql, n: number): Promise<void> {
  for (;;) {
    const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`;
    if (row.n >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test({
  name: "postgres: a commit counting an attempt while another instance claims the job is refused as stale, " +
    "the claim stands",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await (await sharedPostgres()).database();
    const keys: Record<string, string> = {
      "svc.storage.type": "postgres",
      "svc.storage.postgres.url": url,
      "svc.storage.jdbc.pool-size": "2",
    };
    const open = () => openStorage((key) => keys[key], () => {});
    const a = await open();
    const b = await open();
    const sql = postgres(url, { max: 2, onnotice: () => {} });
    try {
      const due = job(SPEC.id, "fx@1#1", Date.now());
      await a.store.save(SPEC, STATE, { created: true, jobs: { put: [due] } });
      await b.store.load();
      // Instance a's lease has run out (a pause): b may take the job.
      await sql`UPDATE svc_jobs SET lease_until = 0`;
      const release = Promise.withResolvers<void>();
      const locked = Promise.withResolvers<void>();
      const holding = sql.begin(async (tx) => {
        await tx`SELECT 1 FROM svc_jobs FOR UPDATE`;
        locked.resolve();
        await release.promise;
      });
      await locked.promise;
      // b's claim first, then a's commit counting an attempt: both wait on the row, in that order.
      const claim = b.store.coordination!.claim(due, 0);
      await lockWaiters(sql, 1);
      const counted = { ...due, attempt: 1 };
      const commit = a.store.commit(SPEC.id, { at: 1, source: "client", request: {} }, states, null, {
        update: [counted],
      }).then(() => "committed", (err) => err instanceof StaleModelError ? "stale" : String(err));
      await lockWaiters(sql, 2);
      release.resolve();
      await holding;
      assert.deepEqual(await claim, due, "b took the job");
      // Without the row read as last committed, a's commit went through on the snapshot it took before b's
      // claim: the model moved (its in_flight phase) while its count was not written, and both sent.
      assert.equal(await commit, "stale", "a's count refused");
      const [row] = await sql`SELECT job, owner FROM svc_jobs`;
      assert.equal(JSON.parse(row.job).attempt, 0, "no attempt counted");
      assert.equal(Number((await sql`SELECT next_log FROM svc_models`)[0].next_log), 0, "nothing committed");
      assert.equal(await b.store.coordination!.claim(due, 0) !== null, true, "still b's");
      assert.equal(await a.store.coordination!.claim(due, 0), null, "not a's");
    } finally {
      await sql.end();
      for (const { store, blobs } of [a, b]) {
        await store.close();
        await blobs.close();
      }
    }
  },
});
