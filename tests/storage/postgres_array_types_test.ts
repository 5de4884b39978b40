/**
 * The driver reads the database's array types on each new connection and
 * drops that read's promise (postgres.js issues 1192, 1223): a connection
 * lost or refused meanwhile, as when the database stops under load, was an
 * unhandled rejection (the server's process ended) and also failed the query
 * waiting for that connection. The pool reads them once, on its first
 * connection; the others share what it read.
 *
 * Losing a connection at that very moment is a race; a read that fails every
 * time stands in for it: the role may not read `pg_type` once the pool is open.
 *
 * @module
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { PgDatabase } from "../../server/stores/pg_database.ts";
import { sharedPostgres } from "./postgres_cluster.ts";

Deno.test({
  name: "postgres: a new pool connection reads no array types (a failed read was an unhandled rejection); " +
    "arrays still read and write on it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await (await sharedPostgres()).database();
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    const role = `svc_types_${crypto.randomUUID().slice(0, 8)}`;
    const stray: unknown[] = [];
    const onRejection = (event: PromiseRejectionEvent) => {
      event.preventDefault();
      stray.push(event.reason);
    };
    globalThis.addEventListener("unhandledrejection", onRejection);
    let db: PgDatabase | null = null;
    try {
      await admin.unsafe(`CREATE ROLE ${role} LOGIN`);
      await admin.unsafe(`GRANT CREATE, USAGE ON SCHEMA public TO ${role}`);
      db = (await PgDatabase.open(url.replace("postgres@", `${role}@`), 2)).acquire();
      await admin.unsafe("REVOKE SELECT ON pg_catalog.pg_type FROM PUBLIC");
      // Two at once: the second opens the pool's second connection.
      const [, [row]] = await Promise.all([
        db.sql`SELECT pg_sleep(0.2)`,
        db.sql`SELECT ${["a", "b"]}::text[] AS texts, array_agg(n) AS numbers FROM unnest(${[
          1,
          2,
        ]}::bigint[]) AS n`,
      ]);
      assert.deepEqual(row.texts, ["a", "b"]);
      assert.deepEqual(row.numbers, [1, 2]);
      // A dropped rejection is reported once the microtasks have run.
      await new Promise((resolve) => setTimeout(resolve, 0));
      assert.deepEqual(stray, []);
    } finally {
      globalThis.removeEventListener("unhandledrejection", onRejection);
      await db?.release();
      await admin.end();
    }
  },
});
