/**
 * HTTP load benchmark (`deno task bench:load`): starts one `svc serve` child
 * process per storage (Deno KV, the default, and memory) on free loopback
 * ports, then N concurrent clients POST mutations, first all to one model,
 * then spread over many models. The storages take turns in short rounds, so
 * load from other processes on a shared machine hits them alike and the KV /
 * memory ratio printed for each scenario stays meaningful; each figure is the
 * median over the rounds; server CPU and bytes written to storage per mutation
 * come from the server's `/proc/<pid>/stat` and `io`. Last, the many-models
 * scenario again with the clients paced to half the KV throughput just
 * measured, every storage at that same rate in alternating rounds: the
 * latency of a server that is not saturated, with memory's as the floor the
 * machine and HTTP set. Bounded by time and request count,
 * loopback only; temporary data is removed afterwards.
 *
 *     deno task bench:load [--storage kv,memory] [--clients 64] [--models 64] [--seconds 6] [--rounds 3]
 *
 * @module
 */

import { Connection, percentile } from "./http_client.ts";
import { cpuSeconds, median, perMutation, writtenBytes } from "./proc_stats.ts";
import { type BenchServer, startBenchServer } from "./serve.ts";

type Storage = "kv" | "memory";

interface Options {
  storages: Storage[];
  clients: number;
  models: number;
  /** Seconds of load per scenario and storage, split over the rounds. */
  seconds: number;
  rounds: number;
  /** Hard cap on requests per round. */
  maxRequests: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = {
    storages: ["kv", "memory"],
    clients: 64,
    models: 64,
    seconds: 6,
    rounds: 3,
    maxRequests: 200_000,
  };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (flag === "--storage") options.storages = storagesOf(value);
    else if (flag === "--clients") options.clients = positive(flag, value);
    else if (flag === "--models") options.models = positive(flag, value);
    else if (flag === "--seconds") options.seconds = positive(flag, value);
    else if (flag === "--rounds") options.rounds = positive(flag, value);
    else if (flag === "--max-requests") options.maxRequests = positive(flag, value);
    else throw new Error(`unknown option ${flag} (see the module doc for usage)`);
  }
  return options;
}

function storagesOf(value: string | undefined): Storage[] {
  const storages = (value ?? "").split(",");
  if (!storages.length || storages.some((s) => s !== "kv" && s !== "memory")) {
    throw new Error("--storage takes kv, memory or both (kv,memory)");
  }
  return storages as Storage[];
}

function positive(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} needs a positive integer`);
  return n;
}

/** The model every client writes: one derivation and one constraint (also `bench:store`'s). */
export const LOAD_SPEC = (id: string) => ({
  id,
  schema: { type: "object", properties: { qty: { type: "integer" }, price: { type: "number" } } },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  constraints: [{ id: "cap", expr: "qty < 1000000000", message: "too many", policy: "rollback" }],
});

/** Starts the server of one storage and resolves its base URL from the startup line. */
function startServer(storage: Storage, options: Options, dataDir: string): Promise<BenchServer> {
  return startBenchServer({
    SVC_STORAGE_TYPE: storage,
    SVC_PERSISTENCE_DIR: dataDir,
    // Every client may have one mutation waiting on the single-model scenario.
    SVC_MUTATION_QUEUE_SIZE: String(options.clients + 1),
    SVC_MAX_MODELS: String(options.models + 1),
  });
}

/** One round of load on one server. */
interface Round {
  rate: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server CPU microseconds per mutation. */
  serverUs: number | null;
  /** Bytes the server wrote to storage per mutation (its database files: the WAL, checkpoints). */
  serverBytes: number | null;
}

/**
 * `clients` connections mutate `targets` (client i uses target i mod
 * targets.length) for `seconds`; with `pacedRate`, together at most that many
 * mutations per second (each client sends on its own schedule), else as fast
 * as answers come back.
 */
async function round(
  server: BenchServer,
  targets: string[],
  options: Options,
  seconds: number,
  pacedRate?: number,
): Promise<Round> {
  const latencies: number[] = [];
  let errors = 0;
  let issued = 0;
  const connections = await Promise.all(
    Array.from({ length: options.clients }, () => Connection.open(new URL(server.url))),
  );
  const cpuBefore = cpuSeconds(server.child.pid);
  const writtenBefore = writtenBytes(server.child.pid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const interval = pacedRate ? options.clients * 1000 / pacedRate : 0;
  const client = async (index: number) => {
    const path = `/models/${encodeURIComponent(targets[index % targets.length])}/mutations`;
    let qty = 0;
    let next = started + (interval * index) / options.clients;
    while (performance.now() < deadline && issued < options.maxRequests) {
      if (interval) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        next += interval;
      }
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
  const cpuAfter = cpuSeconds(server.child.pid);
  const writtenAfter = writtenBytes(server.child.pid);
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors,
    serverUs: perMutation(cpuBefore && cpuBefore * 1e6, cpuAfter && cpuAfter * 1e6, latencies.length),
    serverBytes: perMutation(writtenBefore, writtenAfter, latencies.length),
  };
}

/** The medians of a storage's rounds of one scenario. */
/** `options.rounds` rounds of each storage in turn (paced to `pacedRate` if given), summarized per storage. */
async function alternate(
  servers: Map<Storage, { server: BenchServer }>,
  targets: string[],
  options: Options,
  pacedRate?: number,
): Promise<Map<Storage, ReturnType<typeof summary>>> {
  const rounds = new Map<Storage, Round[]>([...servers.keys()].map((s) => [s, []]));
  for (let r = 0; r < options.rounds; r++) {
    for (const [storage, { server }] of servers) {
      rounds.get(storage)!.push(
        await round(server, targets, options, options.seconds / options.rounds, pacedRate),
      );
    }
  }
  return new Map([...rounds].map(([storage, list]) => [storage, summary(list)]));
}

function summary(rounds: Round[]) {
  const cpu = rounds.map((r) => r.serverUs).filter((us): us is number => us !== null);
  const written = rounds.map((r) => r.serverBytes).filter((bytes): bytes is number => bytes !== null);
  return {
    rate: median(rounds.map((r) => r.rate)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    serverUs: cpu.length ? median(cpu) : null,
    serverBytes: written.length ? median(written) : null,
  };
}

function row(cells: (string | number)[], widths: number[]): string {
  return cells.map((c, i) => i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])).join("  ");
}

async function create(url: string, id: string): Promise<void> {
  const response = await fetch(`${url}/models`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(LOAD_SPEC(id)),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`creating ${id}: HTTP ${response.status}`);
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const servers = new Map<Storage, { server: BenchServer; dir: string }>();
  try {
    for (const storage of options.storages) {
      const dir = await Deno.makeTempDir({ prefix: "svc-load-" });
      servers.set(storage, { server: await startServer(storage, options, dir), dir });
    }
    const many = Array.from({ length: options.models }, (_, i) => `load-${i}`);
    for (const { server } of servers.values()) {
      await create(server.url, "single");
      for (const id of many) await create(server.url, id);
    }
    const described = [...servers.entries()].map(([storage, { server }]) => `${storage}: ${server.storage}`);
    console.log(
      `HTTP load: ${options.clients} clients, ${options.seconds}s per scenario and storage in ${options.rounds} ` +
        `alternating rounds, ${navigator.hardwareConcurrency} CPUs, ${
          new Date().toISOString().slice(0, 10)
        } ` +
        `(${described.join("; ")})`,
    );
    const widths = [13, 8, 9, 8, 8, 7, 14, 10];
    console.log(
      row(["scenario", "storage", "mut/s", "p50 ms", "p99 ms", "errors", "server µs/mut", "KB/mut"], widths),
    );
    const print = (scenario: string, summaries: Map<Storage, ReturnType<typeof summary>>) => {
      for (const [storage, s] of summaries) {
        const cpu = s.serverUs === null ? "n/a" : s.serverUs.toFixed(0);
        const written = s.serverBytes === null ? "n/a" : (s.serverBytes / 1024).toFixed(1);
        console.log(
          row([
            scenario,
            storage,
            s.rate.toFixed(0),
            s.p50.toFixed(1),
            s.p99.toFixed(1),
            s.errors,
            cpu,
            written,
          ], widths),
        );
      }
    };
    const scenarios: [string, string[]][] = [["one model", ["single"]], [`${options.models} models`, many]];
    let manyRate: number | undefined;
    for (const [scenario, targets] of scenarios) {
      const summaries = await alternate(servers, targets, options);
      print(scenario, summaries);
      const kv = summaries.get("kv");
      const memory = summaries.get("memory");
      if (kv && targets === many) manyRate = kv.rate;
      if (kv && memory) {
        console.log(`${scenario}: KV / memory throughput ${(kv.rate / memory.rate).toFixed(2)}x`);
      }
    }
    if (manyRate) {
      // Every storage at the same rate, half KV's, in alternating rounds: memory's latency there is
      // what the machine and HTTP cost alone (its timers, other load), KV's what durability adds.
      const paced = Math.round(manyRate / 2);
      const summaries = await alternate(servers, many, options, paced);
      print(`paced ${paced}/s`, summaries);
      const [kv, memory] = [summaries.get("kv"), summaries.get("memory")];
      console.log(
        `paced: ${options.models} models, every storage at half the KV throughput above` +
          (kv && memory ? `; p99 KV ${kv.p99.toFixed(1)} ms, memory ${memory.p99.toFixed(1)} ms` : ""),
      );
    }
  } finally {
    for (const { server, dir } of servers.values()) {
      server.child.kill("SIGTERM");
      await server.child.status;
      await Deno.remove(dir, { recursive: true });
    }
  }
}

if (import.meta.main) await main();
