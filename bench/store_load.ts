/**
 * Storage load benchmark (`deno task bench:store`): the service in this
 * process over each storage (Deno KV, the default, and memory), without HTTP,
 * so what a storage costs is not hidden behind the server and the load
 * client sharing the CPUs. Concurrent writers mutate many models as fast as
 * their writes resolve, the storages in alternating rounds; then Deno KV again
 * with the writers paced to half the KV throughput just measured, long enough
 * for compactions and the deletion of folded entries to run, for the latency
 * of a store that is not saturated, and memory at that same rate, the floor the
 * machine sets. Per mutation: CPU of the whole process (the
 * database's thread included) and bytes written to storage, from `/proc`.
 * Loopback-free, bounded by time; temporary data is removed afterwards.
 *
 *     deno task bench:store [--writers 64] [--models 64] [--seconds 6] [--rounds 3] [--paced-seconds 10]
 *
 * @module
 */

import { ModelService } from "../engine/mod.ts";
import { serverPlatform } from "../server/platform.ts";
import { openStorage, type Storage } from "../server/stores/mod.ts";
import { percentile } from "./http_client.ts";
import { LOAD_SPEC } from "./http_load.ts";
import { cpuSeconds, median, perMutation, writtenBytes } from "./proc_stats.ts";

type Kind = "kv" | "memory";

interface Options {
  writers: number;
  models: number;
  /** Seconds of load per storage, split over the rounds. */
  seconds: number;
  rounds: number;
  pacedSeconds: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = { writers: 64, models: 64, seconds: 6, rounds: 3, pacedSeconds: 10 };
  const names: Record<string, keyof Options> = {
    "--writers": "writers",
    "--models": "models",
    "--seconds": "seconds",
    "--rounds": "rounds",
    "--paced-seconds": "pacedSeconds",
  };
  for (let i = 0; i < args.length; i += 2) {
    const name = names[args[i]];
    const value = Number(args[i + 1]);
    if (!name) throw new Error(`unknown option ${args[i]} (see the module doc for usage)`);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${args[i]} needs a positive integer`);
    options[name] = value;
  }
  return options;
}

interface Opened {
  service: ModelService;
  storage: Storage;
  dir: string;
}

async function open(kind: Kind, models: string[]): Promise<Opened> {
  const dir = await Deno.makeTempDir({ prefix: "svc-store-load-" });
  const config: Record<string, string> = { "svc.storage.type": kind, "svc.persistence-dir": dir };
  const storage = await openStorage((key) => config[key], (message) => console.warn(message));
  const service = await ModelService.open({
    platform: serverPlatform(),
    store: storage.store,
    blobs: storage.blobs,
  });
  for (const id of models) await service.createModel(LOAD_SPEC(id));
  return { service, storage, dir };
}

async function close({ service, storage, dir }: Opened): Promise<void> {
  await service.close();
  await storage.store.close();
  await storage.blobs.close();
  await Deno.remove(dir, { recursive: true });
}

interface Round {
  rate: number;
  p50: number;
  p99: number;
  max: number;
  cpuUs: number | null;
  writtenBytes: number | null;
}

/**
 * `writers` writers mutate the models (writer i its own sequence over them) for
 * `seconds`; with `pacedRate`, together at most that many mutations a second.
 */
async function round(
  service: ModelService,
  models: string[],
  writers: number,
  seconds: number,
  pacedRate?: number,
): Promise<Round> {
  const latencies: number[] = [];
  const cpuBefore = cpuSeconds(Deno.pid);
  const writtenBefore = writtenBytes(Deno.pid);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const interval = pacedRate ? writers * 1000 / pacedRate : 0;
  const writer = async (index: number) => {
    let next = started + (interval * index) / writers;
    // The clock is read on every write: with the memory store a writer never waits for a timer.
    for (let n = 0; performance.now() < deadline; n++) {
      if (interval) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        next += interval;
      }
      const sent = performance.now();
      await service.mutate(models[(index + n * writers) % models.length], { "$.qty": n + 1, "$.price": 2.5 });
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: writers }, (_, i) => writer(i)));
  const elapsed = (performance.now() - started) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const cpuAfter = cpuSeconds(Deno.pid);
  return {
    rate: latencies.length / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    cpuUs: perMutation(cpuBefore && cpuBefore * 1e6, cpuAfter && cpuAfter * 1e6, latencies.length),
    writtenBytes: perMutation(writtenBefore, writtenBytes(Deno.pid), latencies.length),
  };
}

function row(cells: (string | number)[]): string {
  const widths = [22, 9, 8, 8, 8, 10, 8];
  return cells.map((c, i) => i < 1 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])).join("  ");
}

function printRound(label: string, r: Round): void {
  const cpu = r.cpuUs === null ? "n/a" : r.cpuUs.toFixed(0);
  const written = r.writtenBytes === null ? "n/a" : (r.writtenBytes / 1024).toFixed(1);
  console.log(
    row([label, r.rate.toFixed(0), r.p50.toFixed(1), r.p99.toFixed(1), r.max.toFixed(1), cpu, written]),
  );
}

/** The medians of a storage's rounds. */
function summary(rounds: Round[]): Round {
  const known = (values: (number | null)[]) => values.filter((v): v is number => v !== null);
  const cpu = known(rounds.map((r) => r.cpuUs));
  const written = known(rounds.map((r) => r.writtenBytes));
  return {
    rate: median(rounds.map((r) => r.rate)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    max: Math.max(...rounds.map((r) => r.max)),
    cpuUs: cpu.length ? median(cpu) : null,
    writtenBytes: written.length ? median(written) : null,
  };
}

async function main(): Promise<void> {
  const options = parseOptions(Deno.args);
  const models = Array.from({ length: options.models }, (_, i) => `load-${i}`);
  const opened = new Map<Kind, Opened>();
  try {
    for (const kind of ["kv", "memory"] as const) opened.set(kind, await open(kind, models));
    console.log(
      `storage load in process: ${options.writers} writers over ${options.models} models, ${options.seconds}s ` +
        `per storage in ${options.rounds} alternating rounds, ${navigator.hardwareConcurrency} CPUs, ` +
        new Date().toISOString().slice(0, 10),
    );
    console.log(row(["storage", "mut/s", "p50 ms", "p99 ms", "max ms", "CPU µs/mut", "KB/mut"]));
    const rounds = new Map<Kind, Round[]>([["kv", []], ["memory", []]]);
    for (let r = 0; r < options.rounds; r++) {
      for (const [kind, { service }] of opened) {
        rounds.get(kind)!.push(
          await round(service, models, options.writers, options.seconds / options.rounds),
        );
      }
    }
    const kv = summary(rounds.get("kv")!);
    const memory = summary(rounds.get("memory")!);
    printRound("kv", kv);
    printRound("memory", memory);
    console.log(`KV / memory throughput ${(kv.rate / memory.rate).toFixed(2)}x`);
    const paced = Math.round(kv.rate / 2);
    // Memory at the same rate after KV: its tail is what the machine (timers, garbage collection, other load) adds alone.
    for (const kind of ["kv", "memory"] as const) {
      const result = await round(
        opened.get(kind)!.service,
        models,
        options.writers,
        options.pacedSeconds,
        paced,
      );
      printRound(`${kind} paced at ${paced}/s`, result);
    }
  } finally {
    for (const store of opened.values()) await close(store);
  }
}

if (import.meta.main) await main();
