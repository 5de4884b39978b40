/**
 * Cluster benchmark (`deno task bench:cluster`): one, two and three `svc serve`
 * instances over one PostgreSQL database (started here, durable: fsync on,
 * from the npm binaries; tests/storage/postgres_cluster.ts), with N clients
 * writing to many models, each client through one instance (round-robin, as
 * behind a load balancer). Prints mutations per second and p50/p99 latency
 * per instance count. Loopback only; the database is removed afterwards.
 *
 *     deno task bench:cluster [--clients 48] [--models 48] [--seconds 5] [--instances 1,2,3] [--fsync off]
 *
 * `--fsync off` runs the database without flushing (the figures then show the
 * instances' CPU cost rather than the disk's flush latency).
 *
 * Every process (database, instances, this load generator) shares the
 * machine's cores, so on a small machine more instances mostly add
 * coordination work; the figures show that cost, not a cluster's capacity.
 *
 * @module
 */
import { startPostgres } from "../tests/storage/postgres_cluster.ts";
import { Connection, percentile } from "./http_client.ts";
import { type BenchServer, startBenchServer } from "./serve.ts";

interface Options {
  clients: number;
  models: number;
  seconds: number;
  instances: number[];
  fsync: boolean;
}

function parseOptions(args: string[]): Options {
  const options: Options = { clients: 48, models: 48, seconds: 5, instances: [1, 2, 3], fsync: true };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1] ?? ""];
    const n = Number(value);
    if (flag === "--instances") options.instances = value.split(",").map(Number);
    else if (flag === "--fsync") options.fsync = value !== "off";
    else if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer`);
    else if (flag === "--clients") options.clients = n;
    else if (flag === "--models") options.models = n;
    else if (flag === "--seconds") options.seconds = n;
    else throw new Error(`unknown option ${flag} (see the module doc for usage)`);
  }
  return options;
}

const SPEC = (id: string) => ({
  id,
  schema: { type: "object", properties: { qty: { type: "integer" }, price: { type: "number" } } },
  derivations: [{ path: "$.total", expr: "qty * price" }],
});

/** Mutations through `urls` for `seconds`: client i writes model i mod models through instance i mod instances. */
async function load(urls: string[], models: string[], options: Options) {
  const connections = await Promise.all(
    Array.from({ length: options.clients }, (_, i) => Connection.open(new URL(urls[i % urls.length]))),
  );
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(connections.map(async (connection, i) => {
    const path = `/models/${models[i % models.length]}/mutations`;
    for (let qty = 1; performance.now() < deadline; qty++) {
      const sent = performance.now();
      const status = await connection.post(path, JSON.stringify({ "$.qty": qty, "$.price": 2.5 }));
      latencies.push(performance.now() - sent);
      if (status !== 200) errors++;
    }
  }));
  for (const connection of connections) connection.close();
  latencies.sort((a, b) => a - b);
  return { rate: latencies.length / ((performance.now() - started) / 1000), latencies, errors };
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const postgres = await startPostgres({ fsync: options.fsync });
  try {
    console.log(
      `cluster load: ${options.clients} clients over ${options.models} models, ${options.seconds}s per row, ` +
        `PostgreSQL with fsync ${
          options.fsync ? "on" : "off"
        }, ${navigator.hardwareConcurrency} CPUs shared by every process`,
    );
    console.log("| instances | mutations/s | p50 ms | p99 ms | errors |");
    console.log("| --------: | ----------: | -----: | -----: | -----: |");
    for (const count of options.instances) {
      const database = await postgres.database();
      const env = {
        SVC_STORAGE_TYPE: "postgres",
        SVC_STORAGE_POSTGRES_URL: database,
        SVC_MUTATION_QUEUE_SIZE: String(options.clients + 1),
        SVC_MAX_MODELS: String(options.models + 1),
      };
      const servers: BenchServer[] = [await startBenchServer(env)];
      servers.push(...await Promise.all(Array.from({ length: count - 1 }, () => startBenchServer(env))));
      try {
        const urls = servers.map((server) => server.url);
        const models = Array.from({ length: options.models }, (_, i) => `load-${i}`);
        for (const id of models) {
          const reply = await fetch(`${urls[0]}/models`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(SPEC(id)),
          });
          await reply.body?.cancel();
          if (reply.status !== 201) throw new Error(`creating ${id}: HTTP ${reply.status}`);
        }
        // Every instance has every model before the clock starts.
        for (const url of urls) {
          while ((await (await fetch(`${url}/models`)).json()).length < models.length) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
        const { rate, latencies, errors } = await load(urls, models, options);
        console.log(
          `| ${count} | ${rate.toFixed(0)} | ${percentile(latencies, 50).toFixed(1)} | ` +
            `${percentile(latencies, 99).toFixed(1)} | ${errors} |`,
        );
      } finally {
        for (const server of servers) {
          server.child.kill("SIGTERM");
          await server.child.status;
        }
      }
    }
  } finally {
    await postgres.stop();
  }
}

if (import.meta.main) await main();
