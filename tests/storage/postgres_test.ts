/**
 * The storage contract (contract.ts) against PostgreSQL: each case on a new
 * database of this test process's cluster (postgres_cluster.ts), the shared
 * cases with two stores over one database, as two instances would be.
 *
 * @module
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { openStorage } from "../../server/stores/mod.ts";
import { MIGRATIONS } from "../../server/stores/pg_schema.ts";
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

Deno.test({
  name:
    "postgres storage: a database of schema 1 is migrated; its log rows, naming no audit record, load as they are",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await (await sharedPostgres()).database();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const entry = { at: 1, source: "client", request: { "$.qty": 2 } };
    try {
      await sql.unsafe(MIGRATIONS[0]);
      await sql`CREATE TABLE svc_schema (version integer NOT NULL)`;
      await sql`INSERT INTO svc_schema (version) VALUES (1)`;
      const spec = JSON.stringify({ id: "old", schema: { type: "object" } });
      const base = JSON.stringify({ doc: {}, meta: [], stale: [] });
      await sql`INSERT INTO svc_models (id, rev, gen, spec, base, log_start, next_log)
        VALUES ('old', 1, 1, ${spec}, ${base}, 0, 1)`;
      // Its record says something else: nothing links the two, so nothing is compared.
      await sql`INSERT INTO svc_log (model_id, seq, entry) VALUES ('old', 0, ${JSON.stringify(entry)})`;
      const keys: Record<string, string> = {
        "svc.storage.type": "postgres",
        "svc.storage.postgres.url": url,
      };
      const warnings: string[] = [];
      const { store, blobs } = await openStorage((key) => keys[key], (line) => warnings.push(line));
      try {
        assert.deepEqual(warnings.filter((line) => line.includes("migrated")), [
          `postgres (postgres@${new URL(url).host}/${
            new URL(url).pathname.slice(1)
          }): migrated the schema from ` +
          `version 1 to ${MIGRATIONS.length}; instances of the older build still running keep working, ` +
          "restarted they refuse it",
        ]);
        const [loaded] = await store.load();
        assert.deepEqual({ log: loaded.log, problem: loaded.problem }, { log: [entry], problem: undefined });
      } finally {
        await store.close();
        await blobs.close();
      }
      assert.deepEqual([...await sql`SELECT version FROM svc_schema`], [{ version: MIGRATIONS.length }]);
    } finally {
      await sql.end();
    }
  },
});

Deno.test({
  name: "postgres storage: a role that may only read and write the tables runs on a current schema, " +
    "and one that may not create it is told what to do",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await sharedPostgres();
    const [current, empty] = [await cluster.database(), await cluster.database()];
    const open = (url: string) =>
      openStorage(
        (key) => ({ "svc.storage.type": "postgres", "svc.storage.postgres.url": url })[key],
        () => {},
      );
    const first = await open(current); // the owner creates the schema
    await first.store.close();
    await first.blobs.close();
    const role = `app_${crypto.randomUUID().slice(0, 8)}`;
    const sql = postgres(current, { max: 1, onnotice: () => {} });
    try {
      await sql.unsafe(`CREATE ROLE ${role} LOGIN`);
      await sql.unsafe(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
      await sql.unsafe(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
    } finally {
      await sql.end();
    }
    const asRole = (url: string) => url.replace("postgres://postgres@", `postgres://${role}@`);
    const { store, blobs } = await open(asRole(current));
    try {
      await store.save({ id: "m", schema: { type: "object" } }, { doc: {}, meta: [], stale: [] }, {
        created: true,
      });
      assert.deepEqual((await store.load()).map((m) => m.spec.id), ["m"]);
    } finally {
      await store.close();
      await blobs.close();
    }
    await assert.rejects(
      open(asRole(empty)),
      /permission denied for schema public: this role may not create the schema \(tables svc_\*\); start one/,
    );
  },
});
