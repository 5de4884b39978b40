/**
 * The outage wrapper of the PostgreSQL stores (pg_outage.ts) over a stand-in
 * store: a termination the driver replays after a restart is run again, not
 * answered 503; every method is wrapped once. The real driver's replay is in
 * tests/storage/postgres_outage_test.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import { isReplayedTermination, PgOutages } from "./pg_outage.ts";

/** What postgres.js fails the first query of a re-established connection with, after a fast shutdown. */
function replayedTermination(): Error {
  return Object.assign(new Error("terminating connection due to administrator command"), {
    severity: "FATAL",
    code: "57P01",
  });
}

/** A store whose `read` fails with `failures` in turn, then answers `"rows"`. */
class StandIn {
  calls = 0;
  constructor(readonly failures: Error[]) {}
  read(): Promise<string> {
    const failure = this.failures[this.calls++];
    return failure ? Promise.reject(failure) : Promise.resolve("rows");
  }
}

Deno.test("a call the driver fails with a replayed termination runs again: no 503, no outage logged", async () => {
  const warnings: string[] = [];
  const store = new PgOutages("db", (line) => warnings.push(line)).wrap(new StandIn([replayedTermination()]));
  assert.equal(await store.read(), "rows");
  assert.equal(store.calls, 2);
  assert.deepEqual(warnings, []);
});

Deno.test("replayed terminations are run again a bounded number of times, then answer 503", async () => {
  const warnings: string[] = [];
  const store = new PgOutages("db", (line) => warnings.push(line))
    .wrap(new StandIn(Array.from({ length: 10 }, replayedTermination)));
  const err = await store.read().then(() => null, (e) => e);
  assert.equal(err?.kind, "unavailable");
  assert.equal(store.calls, 4);
  assert.equal(warnings.length, 1);
});

Deno.test("a lost connection is not run again (its statement may have landed)", async () => {
  const lost = Object.assign(new Error("write CONNECTION_CLOSED"), { code: "CONNECTION_CLOSED" });
  const store = new PgOutages("db", () => {}).wrap(new StandIn([lost]));
  assert.equal((await store.read().then(() => null, (e) => e))?.kind, "unavailable");
  assert.equal(store.calls, 1);
  assert.equal(isReplayedTermination(lost), false);
  assert.equal(isReplayedTermination({ severity: "ERROR", code: "57P01" }), false);
});

Deno.test("each method of a wrapped store is wrapped once", () => {
  const store = new PgOutages("db", () => {}).wrap(new StandIn([]));
  assert.equal(store.read, store.read);
});
