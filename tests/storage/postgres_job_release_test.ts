/**
 * An instance over PostgreSQL that stops cleanly hands its effect jobs over:
 * its restart has a new identity, so a lease the stopped one kept would make
 * the restart (and every other instance) wait a whole lease before taking its
 * own jobs. A killed instance's jobs still wait for the lease
 * (tests/cluster/: `kill -9` under load).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { ModelSpec } from "../../engine/model/types.ts";
import type { PersistedState } from "../../engine/service/ports.ts";
import { openStorage } from "../../server/stores/mod.ts";
import { job } from "./contract.ts";
import { sharedPostgres } from "./postgres_cluster.ts";

const SPEC = { id: "release", schema: { type: "object" } } as ModelSpec;
const STATE: PersistedState = { doc: {}, meta: [], stale: [] };

Deno.test({
  name:
    "postgres: a store closed cleanly ends its leases at the jobs' due times: its restart takes a due job " +
    "at once, not one lease later; a later one (a timer, a put-off) still waits for its time",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await (await sharedPostgres()).database();
    const keys: Record<string, string> = {
      "svc.storage.type": "postgres",
      "svc.storage.postgres.url": url,
      "svc.storage.jdbc.pool-size": "2",
      // Ten minutes: a restart waiting for the lease would see nothing in this test.
      "svc.storage.postgres.job-lease-ms": "600000",
    };
    const open = () => openStorage((key) => keys[key], () => {});
    const due = job(SPEC.id, "remind@1#1", Date.now() - 1_000);
    const later = job(SPEC.id, "remind@1#2", Date.now() + 3_600_000);
    const first = await open();
    const other = await open();
    try {
      await first.store.save(SPEC, STATE, { created: true, jobs: { put: [due, later] } });
      assert.equal(await other.store.coordination!.claim(due, 0), null, "held while its holder runs");
    } finally {
      await first.store.close();
      await first.blobs.close();
    }
    const restarted = await open();
    try {
      await restarted.store.load();
      assert.deepEqual(await restarted.store.coordination!.claim(due, 0), due, "the due job taken at once");
      assert.equal(
        await restarted.store.coordination!.claim(later, 0),
        null,
        "the later one waits for its time",
      );
      assert.equal(await other.store.coordination!.claim(due, 0), null, "now the restart's");
    } finally {
      for (const { store, blobs } of [restarted, other]) {
        await store.close();
        await blobs.close();
      }
    }
  },
});
