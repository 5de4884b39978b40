/**
 * A PostgreSQL database that stops under running services and starts again:
 * meanwhile their requests answer 503 (`unavailable`, the outage logged once),
 * not a 500 with the driver's stack trace; afterwards writes land again and the
 * other instance hears them, no restart needed. Its own cluster, since it
 * stops it.
 *
 * @module
 */
import assert from "node:assert/strict";
import { ModelService } from "../../engine/service/service.ts";
import { webPlatform } from "../../engine/ports.ts";
import type { StoreChange } from "../../engine/service/ports.ts";
import { openStorage } from "../../server/stores/mod.ts";
import { PgDatabase } from "../../server/stores/pg_database.ts";
import { PgChangeFeed } from "../../server/stores/pg_change_feed.ts";
import { PgModelStore } from "../../server/stores/pg_model_store.ts";
import { PgOutages } from "../../server/stores/pg_outage.ts";
import { startPostgres } from "./postgres_cluster.ts";

const OPTIONS = { sanitizeOps: false, sanitizeResources: false };

/** Resolves once `check` holds (polled), else fails naming `what` after 10 s. */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

Deno.test({
  ...OPTIONS,
  name: "postgres storage: while the database is down requests answer 503, logged once; then all resumes",
  async fn() {
    await using cluster = await startPostgres();
    const keys: Record<string, string> = {
      "svc.storage.type": "postgres",
      "svc.storage.postgres.url": await cluster.database(),
      // Polls for due jobs every 100 ms: several fail while the database is down.
      "svc.storage.postgres.job-lease-ms": "400",
    };
    const warnings: string[] = [];
    const { store, blobs } = await openStorage((key) => keys[key], (line) => warnings.push(line));
    const other = await openStorage((key) => keys[key], () => {});
    const service = await ModelService.open({ store, blobs, platform: webPlatform() });
    const heard: StoreChange[] = [];
    await other.store.coordination!.watch((change) => heard.push(change));
    try {
      const spec = { id: "outage", schema: { type: "object", properties: { n: { type: "integer" } } } };
      await service.createModel(spec);
      await service.mutate("outage", { "$.n": 1 });
      await cluster.pause();
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
      const polls = () => warnings.filter((line) => line.startsWith("postgres: claiming due jobs failed"));
      await eventually(() => Promise.resolve(polls().length > 0), "a poll for due jobs failing");
      await new Promise((resolve) => setTimeout(resolve, 500)); // about five polls more
      assert.equal(polls().length, 1, polls().join("\n"));
      assert.match(polls()[0], /\(not logged again until the database answers\)$/);

      await cluster.resume();
      heard.length = 0;
      await eventually(
        () => service.mutate("outage", { "$.n": 3 }).then(() => true, () => false),
        "a write after the database is back",
      );
      await eventually(() => Promise.resolve(heard.length > 0), "the other instance hearing it");
      assert.ok(warnings.at(-1)?.endsWith("the database answers again"), warnings.join("\n"));
      assert.equal((await service.verifyAudit("outage")).valid, true);
      // Back so soon since attempts come at most a second apart: the driver's own backoff reaches 20 s.
      const db = (await PgDatabase.open(keys["svc.storage.postgres.url"], 1)).acquire();
      const backoff = (db.sql.options as unknown as { backoff: (retries: number) => number }).backoff;
      await db.release();
      for (let retries = 0; retries <= 30; retries++) {
        assert.ok(backoff(retries) <= 1, `after ${retries} failures`);
      }
    } finally {
      await service.close().catch(() => {});
      await other.store.close();
      await other.blobs.close();
    }
  },
});

Deno.test({
  ...OPTIONS,
  name: "postgres storage: after a restart, the first call on a cut-off connection gets through",
  async fn() {
    await using cluster = await startPostgres();
    // One connection, so the call after the restart takes the one the shutdown cut a query short on.
    const url = await cluster.database();
    const db = (await PgDatabase.open(url, 1)).acquire();
    const observer = (await PgDatabase.open(url, 1)).acquire();
    const warnings: string[] = [];
    const store = new PgOutages(db.description, (line) => warnings.push(line)).wrap(
      new PgModelStore(db, { audit: true, compactionThreshold: 100, jobLeaseMs: 30_000, warn: () => {} }),
    );
    try {
      const running = db.sql`SELECT pg_sleep(60)`.then(() => null, (err) => err);
      await eventually(async () => {
        const rows = await observer.sql`SELECT 1 FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%'`;
        return rows.length > 0;
      }, "the query running");
      await observer.release();
      await cluster.pause();
      assert.equal((await running)?.code, "CONNECTION_CLOSED");
      await cluster.resume();
      // postgres.js failed this with the FATAL the shutdown sent the query it cut short: a 503 after the restart.
      assert.deepEqual(await store.load(), []);
      assert.deepEqual(warnings, []);
    } finally {
      await store.close();
    }
  },
});

Deno.test({
  ...OPTIONS,
  name: "postgres storage: a refresh a notice starts that fails runs again until the other's commit is in",
  async fn() {
    await using cluster = await startPostgres();
    const url = await cluster.database();
    const keys = (databaseUrl: string): Record<string, string> => ({
      "svc.storage.type": "postgres",
      "svc.storage.postgres.url": databaseUrl,
    });
    const writer = await openStorage((key) => keys(url)[key], () => {});
    const one = await ModelService.open({ ...writer, platform: webPlatform() });
    // The other instance's role may lose the right to read the models, the stand-in for a database out of its
    // reach while its notice connection held.
    const admin = (await PgDatabase.open(url, 1)).acquire();
    await admin.sql.unsafe(
      "CREATE ROLE reader LOGIN; GRANT ALL ON ALL TABLES IN SCHEMA public TO reader; " +
        "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO reader",
    );
    const reader = await openStorage((key) => keys(url.replace("postgres@", "reader@"))[key], () => {});
    const warnings: string[] = [];
    const two = await ModelService.open({
      ...reader,
      platform: webPlatform(),
      observer: { warn: (line) => warnings.push(line) },
    });
    try {
      await one.createModel({
        id: "late",
        schema: { type: "object", properties: { n: { type: "integer" } } },
      });
      await eventually(async () => (await two.listModels()).includes("late"), "the model on the other");
      await admin.sql`REVOKE SELECT ON svc_models FROM reader`;
      await one.mutate("late", { "$.n": 1 });
      await eventually(() => Promise.resolve(warnings.length > 0), "the other's refresh failing");
      assert.match(
        warnings[0],
        /^refreshing from the store failed: permission denied for table svc_models/,
      );
      await admin.sql`GRANT SELECT ON svc_models TO reader`;
      // Until the twentieth session the failure was only logged: the other kept n absent until the next commit.
      await eventually(
        async () => (await two.getState("late") as { n?: number }).n === 1,
        "the other catching up",
      );
    } finally {
      await two.close();
      await one.close();
      await admin.release();
    }
  },
});

Deno.test({
  ...OPTIONS,
  name:
    "postgres storage: a resynchronisation after a lost notice connection that fails runs again until through",
  async fn() {
    await using cluster = await startPostgres();
    const url = await cluster.database();
    const admin = (await PgDatabase.open(url, 1)).acquire();
    await admin.sql.unsafe("CREATE ROLE reader LOGIN; GRANT ALL ON ALL TABLES IN SCHEMA public TO reader");
    const reader = (await PgDatabase.open(url.replace("postgres@", "reader@"), 1)).acquire();
    const warnings: string[] = [];
    const heard: StoreChange[] = [];
    // This instance saw a model that is gone from the store: the resynchronisation reports it.
    const feed = new PgChangeFeed(reader, {
      jobLeaseMs: 30_000,
      warn: (line) => warnings.push(line),
      seenRevs: () => new Map([["gone", 1]]),
      parseJob: () => null,
    });
    try {
      await feed.watch((change) => heard.push(change));
      // The stand-in for a database out of the instance's reach when its notice connection came back.
      await admin.sql`REVOKE SELECT ON svc_models FROM reader`;
      const cut = await admin.sql`
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'reader' AND query ILIKE 'listen%'`;
      assert.equal(cut.length, 1);
      await eventually(() => Promise.resolve(warnings.length > 0), "the resynchronisation failing");
      assert.match(
        warnings[0],
        /^postgres: resynchronising after a reconnection failed: permission denied for table svc_models/,
      );
      assert.deepEqual(heard, []);
      await admin.sql`GRANT SELECT ON svc_models TO reader`;
      // Until the twentieth session the failure was only logged: the change waited for the model's next commit.
      await eventually(() => Promise.resolve(heard.length > 0), "the resynchronisation getting through");
      assert.deepEqual(heard, [{ type: "model", modelId: "gone" }]);
      assert.deepEqual(warnings.length, 1, warnings.join("\n"));
      assert.match(warnings[0], /; trying again until it gets through$/);
    } finally {
      await feed.close();
      await reader.release();
      await admin.release();
    }
  },
});

/** The ErrorResponse a PostgreSQL server sends a session it ends for a shutdown (57P01). */
const SHUTDOWN_FATAL = (() => {
  const fields = new TextEncoder().encode(
    "SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0",
  );
  const message = new Uint8Array(5 + fields.length);
  message[0] = "E".charCodeAt(0);
  new DataView(message.buffer).setInt32(1, 4 + fields.length);
  message.set(fields, 5);
  return message;
})();

/**
 * A TCP relay to the database at `port` that, once armed, answers the next
 * LISTEN it relays with a shutdown's FATAL and hangs up: the LISTEN
 * connection's statement in flight when a restart ended its session.
 */
function listenCutter(port: number): { port: number; arm(): void; close(): void } {
  const server = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const sockets = new Set<Deno.Conn>();
  let armed = false;
  const relay = async (from: Deno.Conn, to: Deno.Conn, inspect: boolean) => {
    const buffer = new Uint8Array(65_536);
    try {
      for (let n; (n = await from.read(buffer)) !== null;) {
        const chunk = buffer.subarray(0, n);
        if (inspect && armed && /listen "?svc_models/i.test(new TextDecoder().decode(chunk))) {
          armed = false;
          await from.write(SHUTDOWN_FATAL);
          break;
        }
        for (let written = 0; written < n;) written += await to.write(chunk.subarray(written));
      }
    } catch {
      // the other side hung up
    }
    for (const conn of [from, to]) {
      try {
        conn.close();
      } catch {
        // closed already
      }
    }
  };
  (async () => {
    for await (const client of server) {
      const database = await Deno.connect({ hostname: "127.0.0.1", port });
      sockets.add(client).add(database);
      relay(client, database, true);
      relay(database, client, false);
    }
  })().catch(() => {});
  return {
    port: (server.addr as Deno.NetAddr).port,
    arm: () => armed = true,
    close: () => {
      server.close();
      for (const conn of sockets) {
        try {
          conn.close();
        } catch {
          // closed already
        }
      }
    },
  };
}

Deno.test({
  ...OPTIONS,
  name: "postgres storage: a LISTEN a restart cut short is issued again, not failed with the replayed FATAL",
  async fn() {
    await using cluster = await startPostgres();
    const url = await cluster.database();
    const cutter = listenCutter(Number(new URL(url).port));
    const admin = (await PgDatabase.open(url, 1)).acquire();
    const db = (await PgDatabase.open(url.replace(/:\d+\//, `:${cutter.port}/`), 1)).acquire();
    const warnings: string[] = [];
    const heard: StoreChange[] = [];
    const feed = new PgChangeFeed(db, {
      jobLeaseMs: 30_000,
      warn: (line) => warnings.push(line),
      seenRevs: () => new Map(),
      parseJob: () => null,
    });
    try {
      await feed.watch((change) => heard.push(change));
      cutter.arm();
      // The session ends; the LISTEN that re-establishes it is then cut short as by a restart.
      const cut = await admin.sql`
        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE query ILIKE 'listen%' AND pid <> pg_backend_pid()`;
      assert.equal(cut.length, 1);
      // postgres.js failed the LISTEN of the next connection with the FATAL it kept and dropped it silently:
      // the feed heard nothing more, until the session ended again.
      await eventually(async () => {
        await admin.sql`SELECT pg_notify(${PgChangeFeed.CHANNEL}, ${PgChangeFeed.payload("other", "m")})`;
        return heard.length > 0;
      }, "a notice heard after the cut");
      assert.deepEqual(heard[0], { type: "model", modelId: "m" });
    } finally {
      await feed.close();
      await db.release();
      await admin.release();
      cutter.close();
    }
  },
});
