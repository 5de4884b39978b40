/**
 * Several `svc serve` processes over one PostgreSQL database, as instances
 * behind a load balancer: each on its own loopback port, the database a new
 * one on this test process's cluster (tests/storage/postgres_cluster.ts).
 *
 * @module
 */
import { call, type ServeProcess, spawnServe } from "../server/helpers.ts";
import { sharedPostgres } from "../storage/postgres_cluster.ts";

/** Running instances over one database. */
export interface Cluster {
  /** The instances, in start order. */
  instances: ServeProcess[];
  /** Base URLs, in start order. */
  urls: string[];
  /** The database they share. */
  databaseUrl: string;
  /** Starts one more instance over the same database. */
  add(): Promise<ServeProcess>;
  /** Stops every instance still running. */
  stop(): Promise<void>;
}

/** Starts `n` instances on a new database; `env` adds settings (a short job lease, say). */
export async function startCluster(n: number, env: Record<string, string> = {}): Promise<Cluster> {
  const databaseUrl = await (await sharedPostgres()).database();
  const instances: ServeProcess[] = [];
  const add = async () => {
    const instance = await spawnServe({
      env: { SVC_STORAGE_TYPE: "postgres", SVC_STORAGE_POSTGRES_URL: databaseUrl, ...env },
    });
    if (!instance.url) throw new Error(`an instance did not start: ${(await instance.stop()).stderr}`);
    instances.push(instance);
    return instance;
  };
  // One first (it creates the schema), then the rest together.
  await add();
  await Promise.all(Array.from({ length: n - 1 }, add));
  return {
    instances,
    get urls() {
      return instances.map((instance) => instance.url!);
    },
    databaseUrl,
    add,
    stop: async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
    },
  };
}

/** Resolves once every instance lists model `id`. */
export async function knownEverywhere(urls: string[], id: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (const url of urls) {
    while (!((await call(url, "GET", "/models")).json as string[]).includes(id)) {
      if (Date.now() > deadline) throw new Error(`model '${id}' never reached ${url}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** A model whose writes each set their own member of `marks`. */
export function marksSpec(id: string): Record<string, unknown> {
  return {
    id,
    schema: {
      type: "object",
      properties: {
        marks: { type: "object", additionalProperties: { type: "integer" } },
        n: { type: "integer" },
      },
    },
    derivations: [{ path: "$.count", expr: "$count($keys(marks))" }],
  };
}
