/**
 * The storage contract (contract.ts) against PostgreSQL: each case on a new
 * database of this test process's cluster (postgres_cluster.ts), the shared
 * cases with two stores over one database, as two instances would be.
 *
 * @module
 */
import postgres from "postgres";
import { openStorage } from "../../server/stores/mod.ts";
import { contractCases } from "./contract.ts";
import { sharedPostgres } from "./postgres_cluster.ts";

for (
  const c of contractCases({
    name: "postgres",
    capabilities: ["durable", "shared", "tamper"],
    async fresh() {
      const url = await (await sharedPostgres()).database();
      return {
        open: ({ compactionThreshold, jobLeaseMs }) => {
          const keys: Record<string, string> = {
            "svc.storage.type": "postgres",
            "svc.storage.postgres.url": url,
            "svc.storage.jdbc.pool-size": "2",
            "svc.storage.compaction-threshold": String(compactionThreshold),
            "svc.storage.postgres.job-lease-ms": String(jobLeaseMs ?? 30_000),
          };
          return openStorage((key) => keys[key], () => {});
        },
        dispose: () => Promise.resolve(),
        async alterLoggedRequest(modelId, request) {
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            const [row] =
              await sql`SELECT seq, entry FROM svc_log WHERE model_id = ${modelId} ORDER BY seq LIMIT 1`;
            const entry = JSON.stringify({ ...JSON.parse(row.entry), request });
            await sql`UPDATE svc_log SET entry = ${entry} WHERE model_id = ${modelId} AND seq = ${row.seq}`;
          } finally {
            await sql.end();
          }
        },
      };
    },
  })
) Deno.test({ name: c.name, fn: c.run, sanitizeOps: false, sanitizeResources: false });
