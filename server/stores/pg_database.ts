/**
 * One PostgreSQL connection pool shared by the PostgreSQL stores (models and
 * blobs), through the `postgres` client: a pool of `svc.storage.jdbc.pool-size`
 * connections, plus the change feed's LISTEN connection (pg_change_feed.ts). Opening checks the connection and
 * creates or migrates the schema (pg_schema.ts).
 *
 * @module
 */
import postgres from "postgres";
import { MIGRATIONS } from "./pg_schema.ts";

/** The client's query function. */
export type Sql = postgres.Sql<Record<string, unknown>>;
/** The query function of the pool or of one transaction. */
export type Query = Sql | postgres.TransactionSql<Record<string, unknown>>;

/** The database clock, epoch milliseconds: leases are judged by one clock for every instance. */
export const DB_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** Advisory lock key serialising schema migrations of instances starting together. */
const MIGRATION_LOCK = 7_482_301;

/** int8 values as JavaScript numbers (epoch ms, sequences: well inside 2^53). */
const BIGINT_AS_NUMBER = {
  to: 20,
  from: [20],
  serialize: (value: number) => String(value),
  parse: (value: string) => Number(value),
};

/**
 * Seconds before the next connection attempt after `retries` failed in a row.
 * The driver's default grows to 20 s, so after an outage the pool (503s) and
 * the LISTEN connection (no notices: stale reads, silent feeds) stayed away for
 * up to that long after the database was back; capped at a second, a database
 * that is down costs one attempt a second per connection in use.
 */
export function reconnectDelay(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1);
}

/**
 * A client of `url` with the settings every connection of the service shares,
 * and `options` (some the driver's types leave out: `onnotify`, `onclose`).
 */
function connect(url: string, options: Record<string, unknown>): Sql {
  return postgres(url, {
    onnotice: () => {},
    connect_timeout: 10,
    backoff: reconnectDelay,
    connection: { application_name: "svc" },
    types: { bigint: BIGINT_AS_NUMBER },
    ...options,
  } as never) as unknown as Sql;
}

/** The URL without its password, for logs and the startup line. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.username ? parsed.username + "@" : ""}${parsed.host}${parsed.pathname}`;
  } catch {
    return "(unparsable URL)";
  }
}

/** The shared pool, closed when its last user releases it. */
export class PgDatabase {
  readonly sql: Sql;
  /** This process's identity among the instances sharing the database. */
  readonly instance = crypto.randomUUID();
  /** `user@host:port/database`. */
  readonly description: string;
  /** The schema version this start migrated from (0: it created the schema), `null` when it was current. */
  migratedFrom: number | null = null;
  #users = 0;

  readonly #url: string;

  private constructor(sql: Sql, description: string, url: string) {
    this.sql = sql;
    this.description = description;
    this.#url = url;
  }

  /**
   * A connection of its own for LISTEN: `notified` hears its notifications,
   * `closed` each time the session is lost (the next statement reconnects,
   * and the LISTEN must be issued again). Closed by its user (`end()`).
   */
  listenConnection(notified: (channel: string, payload: string) => void, closed: () => void): Sql {
    return connect(this.#url, {
      max: 1,
      max_lifetime: null,
      fetch_types: false,
      onnotify: notified,
      onclose: closed,
    });
  }

  /** Connects, then creates or migrates the schema; throws a message naming the database on failure. */
  static async open(url: string, poolSize: number): Promise<PgDatabase> {
    const setting = "Configuration svc.storage.postgres.url (SVC_STORAGE_POSTGRES_URL)";
    // The driver takes any scheme (mysql://… would be dialled as PostgreSQL); the value is not quoted: a password.
    const scheme = /^([a-z][\w+.-]*:)\/\//i.exec(url)?.[1];
    if (scheme && !/^postgres(ql)?:$/i.test(scheme)) {
      throw new Error(`${setting} is a ${scheme} URL, not postgres://user:password@host:5432/database`);
    }
    let sql: Sql;
    try {
      sql = connect(url, { max: poolSize });
    } catch {
      // The driver's own message quotes the URL, password and all: this one names the setting only.
      throw new Error(
        `${setting} is not a URL the driver reads, such as postgres://user:password@host:5432/database`,
      );
    }
    const db = new PgDatabase(sql, describeUrl(url), url);
    try {
      db.migratedFrom = await migrate(sql);
    } catch (err) {
      await sql.end({ timeout: 1 });
      throw new Error(`Storage backend 'postgres' (${db.description}): ${(err as Error).message}`);
    }
    // The first connection read the array types into the options every connection shares; later ones
    // need not. The driver drops the promise of that read (postgres.js issues 1192, 1223): a connection
    // lost or refused during it, as when the database stops, was an unhandled rejection, and its error
    // also failed the query waiting for that connection.
    (sql.options as { fetch_types: boolean }).fetch_types = false;
    return db;
  }

  /** Registers a user. */
  acquire(): this {
    this.#users++;
    return this;
  }

  /** Releases a user; the last one closes the pool (waiting for running queries). */
  async release(): Promise<void> {
    if (--this.#users > 0) return;
    await this.sql.end({ timeout: 5 });
  }
}

/**
 * Applies the migrations the database has not seen, once, whichever instance
 * gets there first. The version is read before any DDL, so a role that may
 * only read and write the tables runs on a schema already current. Returns
 * the version migrated from (0: none), `null` when it was current.
 */
async function migrate(sql: Sql): Promise<number | null> {
  return await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    const [{ known }] = await tx`SELECT to_regclass('svc_schema') IS NOT NULL AS known`;
    const [row] = known ? await tx`SELECT version FROM svc_schema` : [];
    const version = row ? Number(row.version) : 0;
    if (version > MIGRATIONS.length) {
      throw new Error(
        `the database schema is at version ${version}, newer than this build knows (${MIGRATIONS.length})`,
      );
    }
    if (version === MIGRATIONS.length) return null;
    try {
      if (!known) await tx`CREATE TABLE svc_schema (version integer NOT NULL)`;
      for (const migration of MIGRATIONS.slice(version)) await tx.unsafe(migration);
    } catch (err) {
      // 42501 insufficient_privilege: say what needs doing, not only what was refused.
      if ((err as { code?: unknown }).code !== "42501") throw err;
      const change = version
        ? `migrate the schema from version ${version} to ${MIGRATIONS.length}`
        : "create the schema (tables svc_*)";
      throw new Error(
        `${(err as Error).message}: this role may not ${change}; start one instance as a role that may ` +
          "(one that owns the tables, or may create tables in the schema), then this one",
      );
    }
    if (!row) await tx`INSERT INTO svc_schema (version) VALUES (${MIGRATIONS.length})`;
    else await tx`UPDATE svc_schema SET version = ${MIGRATIONS.length}`;
    return version;
  });
}
