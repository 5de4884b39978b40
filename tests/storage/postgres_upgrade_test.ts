/**
 * A rolling upgrade over PostgreSQL from schema version 1 (log rows name no
 * audit record) to version 2 (`svc_log.audit_seq`, README "Log entries and
 * their records"), on real PostgreSQL (postgres_cluster.ts): a database a
 * version-1 build left is opened by the current build, a version-1 instance
 * still running commits beside it, and a fresh instance loads the mixed log.
 *
 * @module
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { type AuditRecord, sealRecord } from "../../engine/audit/chain.ts";
import { WEB_HASHER } from "../../engine/ports.ts";
import { PgChangeFeed } from "../../server/stores/pg_change_feed.ts";
import { MIGRATIONS } from "../../server/stores/pg_schema.ts";
import { call, orderSpec, startTestServer, type TestServer } from "../server/helpers.ts";
import { sharedPostgres } from "./postgres_cluster.ts";

/** The order model's state and its trail's verification, as an instance answers them. */
async function observed(server: TestServer) {
  const state = (await call(server.url, "GET", "/models/order/state")).json;
  const verify = (await call(server.url, "GET", "/models/order/audit/verify")).json;
  return { state, valid: verify.valid, recordsChecked: verify.recordsChecked };
}

/** Each log row's sequence and the audit record it names (null: none). */
async function logRows(sql: postgres.Sql) {
  return [...await sql`SELECT seq::int, audit_seq::int FROM svc_log WHERE model_id = 'order' ORDER BY seq`];
}

/** Writes `request` through an instance and checks it committed. */
async function write(server: TestServer, request: Record<string, unknown>): Promise<void> {
  const reply = await call(server.url, "POST", "/models/order/mutations", request);
  assert.equal(reply.status, 200, reply.text);
}

/**
 * A commit as a version-1 build makes it (server/stores/pg_model_store.ts
 * before migration 2): the model row moved on, the log row naming no audit
 * record, the record, and the notification, in one statement.
 */
async function versionOneCommit(sql: postgres.Sql, request: Record<string, number>): Promise<void> {
  const [head] =
    await sql`SELECT record FROM svc_audit WHERE model_id = 'order' ORDER BY sequence DESC LIMIT 1`;
  const [last] = await sql`SELECT entry FROM svc_log WHERE model_id = 'order' ORDER BY seq DESC LIMIT 1`;
  const previous = JSON.parse(head.record) as AuditRecord;
  const at = Date.now();
  const { prevHash: _prev, hash: _hash, signature: _signature, ...body } = previous;
  const record = await sealRecord(
    { ...body, sequence: previous.sequence + 1, timestamp: new Date(at).toISOString(), mutations: request },
    previous.hash,
    WEB_HASHER,
  );
  const entry = { ...JSON.parse(last.entry), at, source: "client", request };
  await sql`
    WITH m AS (
      UPDATE svc_models SET rev = nextval('svc_rev'), next_log = next_log + 1,
        audit_seq = ${record.sequence}::bigint, audit_hash = ${record.hash}
      WHERE id = 'order' RETURNING id, next_log
    ),
    logged AS (
      INSERT INTO svc_log (model_id, seq, entry) SELECT id, next_log - 1, ${JSON.stringify(entry)} FROM m
    ),
    audited AS (
      INSERT INTO svc_audit (model_id, sequence, at, record)
      SELECT id, ${record.sequence}::bigint, ${at}::bigint, ${JSON.stringify(record)} FROM m
    )
    SELECT pg_notify(${PgChangeFeed.CHANNEL}, ${
    PgChangeFeed.payload("a version-1 instance", "order")
  }) FROM m`;
}

/** Resolves once an instance's state of the order has `qty`. */
async function seenBy(server: TestServer, qty: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await call(server.url, "GET", "/models/order/state")).json.qty !== qty) {
    if (Date.now() > deadline) throw new Error(`the instance never saw qty ${qty}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test({
  name: "postgres rolling upgrade 1 to 2: the old rows load and verify, new rows name their records, " +
    "a version-1 instance's commits beside it load too, and a version-1 build is refused at a restart",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await (await sharedPostgres()).database();
    const keys = {
      "svc.storage.type": "postgres",
      "svc.storage.postgres.url": url,
      "svc.storage.jdbc.pool-size": "2",
    };
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    const servers: TestServer[] = [];
    const start = async () => {
      const server = await startTestServer(keys);
      servers.push(server);
      return server;
    };
    try {
      // What a version-1 build leaves: the rows this build writes with migration 2 undone
      // (version 1 wrote the same log entries and records, and no svc_log.audit_seq).
      const old = await start();
      assert.equal((await call(old.url, "POST", "/models", orderSpec())).status, 201);
      await write(old, { "$.qty": 2, "$.price": 3 });
      await write(old, { "$.qty": 4 });
      await write(old, { "$.note": "before the upgrade" });
      const before = await observed(old);
      assert.deepEqual(before, {
        state: { qty: 4, price: 3, total: 12, note: "before the upgrade" },
        valid: true,
        recordsChecked: 3,
      });
      await old.close();
      await sql`ALTER TABLE svc_log DROP COLUMN audit_seq`;
      await sql`UPDATE svc_schema SET version = 1`;

      // The current build opens it: migrated, loaded as it was, the trail intact.
      const upgraded = await start();
      assert.deepEqual([...await sql`SELECT version FROM svc_schema`], [{ version: MIGRATIONS.length }]);
      assert.deepEqual(await observed(upgraded), before);
      assert.deepEqual(await logRows(sql), [0, 1, 2].map((seq) => ({ seq, audit_seq: null })));
      await write(upgraded, { "$.qty": 5 });
      assert.deepEqual((await logRows(sql)).at(-1), { seq: 3, audit_seq: 3 }, "a new row names its record");

      // A version-1 instance still running commits beside it (its INSERT names no audit_seq).
      await versionOneCommit(sql, { "$.qty": 6 });
      await seenBy(upgraded, 6);
      assert.deepEqual(await observed(upgraded), {
        state: { qty: 6, price: 3, total: 18, note: "before the upgrade" },
        valid: true,
        recordsChecked: 5,
      });
      await write(upgraded, { "$.qty": 7 });
      assert.deepEqual(
        (await logRows(sql)).slice(3),
        [{ seq: 3, audit_seq: 3 }, { seq: 4, audit_seq: null }, { seq: 5, audit_seq: 5 }],
      );
      // A version-1 instance's load (its statement: named columns, the log's entries only) reads the
      // migrated table as before.
      const [asVersionOne] = await sql`
        SELECT m.id, m.rev, m.gen, m.spec, m.base, m.base_at, m.log_start, m.next_log, m.audit_seq, m.audit_hash,
          (SELECT array_agg(l.entry ORDER BY l.seq) FROM svc_log l WHERE l.model_id = m.id AND l.seq >= m.log_start)
            AS entries,
          (SELECT array_agg(j.job) FROM svc_jobs j WHERE j.model_id = m.id) AS jobs
        FROM svc_models m WHERE m.id = 'order'`;
      assert.deepEqual(
        (asVersionOne.entries as string[]).map((text) => JSON.parse(text).request),
        [{ "$.qty": 2, "$.price": 3 }, { "$.qty": 4 }, { "$.note": "before the upgrade" }, { "$.qty": 5 }, {
          "$.qty": 6,
        }, { "$.qty": 7 }],
      );
      const mixed = await observed(upgraded);
      assert.deepEqual(mixed, {
        state: { qty: 7, price: 3, total: 21, note: "before the upgrade" },
        valid: true,
        recordsChecked: 6,
      });

      // A fresh instance of this build loads the mixed log whole.
      const fresh = await start();
      assert.deepEqual(await observed(fresh), mixed);
      assert.ok(
        !fresh.logs.some((line) => /RECOVERY NEEDED|^error/.test(line)),
        fresh.logs.join("\n"),
      );
      for (const server of servers.splice(0)) await server.close();

      // A version-1 build restarting meets a schema newer than it knows and refuses to start, as this
      // build refuses a version after its own: a rolling upgrade replaces instances, it never restarts old ones.
      await sql`UPDATE svc_schema SET version = ${MIGRATIONS.length + 1}`;
      await assert.rejects(
        start(),
        new RegExp(`schema is at version ${MIGRATIONS.length + 1}, newer than this build knows`),
      );
    } finally {
      for (const server of servers) await server.close();
      await sql.end();
    }
  },
});
