/**
 * HTTP load benchmark (`deno task bench:load`): starts `svc serve` as a child
 * process on a free loopback port, then N concurrent clients POST mutations,
 * first all to one model, then spread over many models. Prints mutations per
 * second and p50/p99 latency per scenario. Bounded by time and request count,
 * loopback only; temporary data is removed afterwards.
 *
 *     deno task bench:load [--storage kv|memory] [--clients 64] [--models 64] [--seconds 5]
 *
 * @module
 */

import { Connection, percentile } from "./http_client.ts";
import { startBenchServer } from "./serve.ts";

interface Options {
  storage: "kv" | "memory";
  clients: number;
  models: number;
  seconds: number;
  /** Hard cap on requests per scenario. */
  maxRequests: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = { storage: "kv", clients: 64, models: 64, seconds: 5, maxRequests: 200_000 };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--storage" && (value === "kv" || value === "memory")) options.storage = value;
    else if (flag === "--clients") options.clients = positive(flag, value);
    else if (flag === "--models") options.models = positive(flag, value);
    else if (flag === "--seconds") options.seconds = positive(flag, value);
    else if (flag === "--max-requests") options.maxRequests = positive(flag, value);
    else throw new Error(`unknown option ${flag} (see the module doc for usage)`);
  }
  return options;
}

function positive(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer`);
  return n;
}

const SPEC = (id: string) => ({
  id,
  schema: { type: "object", properties: { qty: { type: "integer" }, price: { type: "number" } } },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  constraints: [{ id: "cap", expr: "qty < 1000000000", message: "too many", policy: "rollback" }],
});

/** Starts the server and resolves its base URL from the startup line. */
function startServer(options: Options, dataDir: string) {
  return startBenchServer({
    SVC_STORAGE_TYPE: options.storage,
    SVC_PERSISTENCE_DIR: dataDir,
    // Every client may have one mutation waiting on the single-model scenario.
    SVC_MUTATION_QUEUE_SIZE: String(options.clients + 1),
    SVC_MAX_MODELS: String(options.models + 1),
  });
}

/** CPU seconds (user + system) a process used so far; `null` where /proc is unavailable. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
    const ticksPerSecond = 100;
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    return null;
  }
}

interface Result {
  scenario: string;
  /** Server CPU seconds spent during the scenario. */
  serverCpu: number | null;
  /** This load generator's CPU seconds during the scenario. */
  clientCpu: number | null;
  requests: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

/** `clients` connections mutate `targets` (client i uses target i mod targets.length) until time or count runs out. */
async function run(
  url: string,
  serverPid: number,
  scenario: string,
  targets: string[],
  options: Options,
): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const connections = await Promise.all(
    Array.from({ length: options.clients }, () => Connection.open(new URL(url))),
  );
  const cpuBefore = cpuSeconds(serverPid);
  const clientBefore = cpuSeconds(Deno.pid);
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const client = async (index: number) => {
    const path = `/models/${encodeURIComponent(targets[index % targets.length])}/mutations`;
    let qty = 0;
    while (performance.now() < deadline && issued < options.maxRequests) {
      issued++;
      const sent = performance.now();
      const status = await connections[index].post(path, JSON.stringify({ "$.qty": ++qty, "$.price": 2.5 }));
      latencies.push(performance.now() - sent);
      if (status !== 200) errors++;
    }
  };
  try {
    await Promise.all(connections.map((_, i) => client(i)));
  } finally {
    for (const connection of connections) connection.close();
  }
  const cpuAfter = cpuSeconds(serverPid);
  const clientAfter = cpuSeconds(Deno.pid);
  return {
    scenario,
    serverCpu: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
    clientCpu: clientBefore === null || clientAfter === null ? null : clientAfter - clientBefore,
    requests: latencies.length,
    errors,
    seconds: (performance.now() - started) / 1000,
    latencies,
  };
}

/** CPU microseconds per mutation. */
function perMutation(cpu: number | null, requests: number): string {
  return cpu === null || requests === 0 ? "n/a" : (cpu * 1e6 / requests).toFixed(0);
}

function report(result: Result): string {
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const rate = result.requests / result.seconds;
  return [
    result.scenario.padEnd(34),
    rate.toFixed(0).padStart(9),
    percentile(sorted, 50).toFixed(2).padStart(9),
    percentile(sorted, 99).toFixed(2).padStart(9),
    String(result.requests).padStart(9),
    String(result.errors).padStart(7),
    perMutation(result.serverCpu, result.requests).padStart(12),
    perMutation(result.clientCpu, result.requests).padStart(12),
  ].join(" ");
}

async function create(url: string, id: string): Promise<void> {
  const response = await fetch(`${url}/models`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(SPEC(id)),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`creating ${id}: HTTP ${response.status}`);
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const dataDir = await Deno.makeTempDir({ prefix: "svc-load-" });
  const server = await startServer(options, dataDir);
  try {
    const many = Array.from({ length: options.models }, (_, i) => `load-${i}`);
    await create(server.url, "single");
    for (const id of many) await create(server.url, id);
    console.log(
      `HTTP load: ${options.clients} clients, ${options.seconds}s per scenario, storage ${server.storage}, ` +
        `${navigator.hardwareConcurrency} CPUs`,
    );
    console.log(
      `${"scenario".padEnd(34)} ${"mut/s".padStart(9)} ${"p50 ms".padStart(9)} ${"p99 ms".padStart(9)} ` +
        `${"requests".padStart(9)} ${"errors".padStart(7)} ${"server µs/mut".padStart(12)} ` +
        `${"client µs/mut".padStart(12)}`,
    );
    console.log(report(await run(server.url, server.child.pid, "one model", ["single"], options)));
    console.log(report(await run(server.url, server.child.pid, `${options.models} models`, many, options)));
  } finally {
    server.child.kill("SIGTERM");
    await server.child.status;
    await Deno.remove(dataDir, { recursive: true });
  }
}

if (import.meta.main) await main();
