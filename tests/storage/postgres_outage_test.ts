/**
 * A PostgreSQL database that stops under a running service: its requests
 * answer 503 (`unavailable`, the database named in the log once), not a 500
 * with the driver's stack trace. Its own cluster, since it stops it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ModelService } from "../../engine/service/service.ts";
import { webPlatform } from "../../engine/ports.ts";
import { openStorage } from "../../server/stores/mod.ts";
import { startPostgres } from "./postgres_cluster.ts";

Deno.test({
  name: "postgres storage: a database that stopped answers 503 unavailable, logged once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using cluster = await startPostgres();
    const keys: Record<string, string> = {
      "svc.storage.type": "postgres",
      "svc.storage.postgres.url": await cluster.database(),
    };
    const warnings: string[] = [];
    const { store, blobs } = await openStorage((key) => keys[key], (line) => warnings.push(line));
    const service = await ModelService.open({ store, blobs, platform: webPlatform() });
    try {
      const spec = { id: "outage", schema: { type: "object", properties: { n: { type: "integer" } } } };
      await service.createModel(spec);
      await service.mutate("outage", { "$.n": 1 });
      await cluster.stop();
      for (
        const attempt of [() => service.mutate("outage", { "$.n": 2 }), () => service.getAudit("outage", {})]
      ) {
        const err = await attempt().then(() => null, (e) => e);
        assert.equal(err?.kind, "unavailable", String(err?.stack ?? err));
        assert.match(err.message, /^Storage unavailable: the database cannot be reached \(\w+\)/);
        assert.equal(err.retryAfter, 1);
      }
      assert.equal(await service.getField("outage", "$.n"), 1, "the refused write changed nothing");
      const logged = warnings.filter((line) => line.includes("cannot be reached"));
      assert.equal(logged.length, 1, warnings.join("\n"));
      assert.match(
        logged[0],
        /^postgres \(postgres@127\.0\.0\.1:\d+\/db_1\): the database cannot be reached/,
      );
    } finally {
      await service.close().catch(() => {});
    }
  },
});
