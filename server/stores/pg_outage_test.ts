/**
 * The outage wrapper of the PostgreSQL stores (pg_outage.ts) over a stand-in
 * store.
 *
 * @module
 */
import assert from "node:assert/strict";
import { PgOutages } from "./pg_outage.ts";

/** A store whose `read` answers `"rows"`. */
class StandIn {
  read(): Promise<string> {
    return Promise.resolve("rows");
  }
}

Deno.test("each method of a wrapped store is wrapped once", async () => {
  const store = new PgOutages("db", () => {}).wrap(new StandIn());
  assert.equal(store.read, store.read);
  assert.equal(await store.read(), "rows");
});
