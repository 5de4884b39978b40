/**
 * Attack benchmark (`deno task bench:attack`): a `svc serve` child process on
 * a free loopback port (default limits, memory storage); for each hostile
 * expression, one mutation that triggers it while a reader fetches another
 * model's state back to back. Prints the mutation's status and time, and the
 * p50/p99/max latency of the reads during the attack. Bounded: one mutation
 * per attack, reads only while it runs, loopback only.
 *
 *     deno task bench:attack
 *
 * @module
 */
import { percentile } from "./http_client.ts";
import { startBenchServer } from "./serve.ts";

/** The attacks: a derivation expression run when `$.go` is written. */
const ATTACKS: [string, string][] = [
  ["catastrophic regex (ReDoS)", "$contains(s, /^(a+)+$/)"],
  ["$string of a 10M range", "$string([1..10000000])"],
  ["$pad to 400M characters", "$pad('', 400000000, 'x')"],
  ["endless recursion", "($f := function($n){ $n > 0 ? $f($n - 1) : 0 }; $f(100000000))"],
  ["string doubling", "($f := function($s, $n){ $n = 0 ? $s : $f($s & $s, $n - 1) }; $f('x', 40))"],
  ["$distinct of 200k", "$count($distinct([1..200000]))"],
  ["$sort of 200k with a lambda", "$count($sort([1..200000], function($a, $b){ $a < $b }))"],
  ["nested 100k deep", "$reduce([1..100000], function($a, $v){ {'a': $a} }, 0)"],
  ["100k regex matches", "$count($match($pad('', 100000, 'a'), /a/))"],
  ["1M-wide flattening", "$count([1..1000].[1..200])"],
];

const BYSTANDER = {
  id: "bystander",
  schema: { type: "object", properties: { q: { type: "integer" } } },
  derivations: [{ path: "$.double", expr: "q * 2" }],
};

function victim(id: string, expr: string) {
  return {
    id,
    schema: { type: "object", properties: { go: { type: "boolean" }, s: { type: "string" } } },
    derivations: [{ path: "$.out", expr: `go ? (${expr}) : null` }],
  };
}

async function post(url: string, body: unknown): Promise<Response> {
  return await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const server = await startBenchServer({ SVC_STORAGE_TYPE: "memory" });
try {
  const base = server.url;
  await (await post(`${base}/models`, BYSTANDER)).body?.cancel();
  await (await post(`${base}/models/bystander/mutations`, { "$.q": 1 })).body?.cancel();
  console.log("| attack | mutation | time ms | reads | read p50 ms | read p99 ms | read max ms |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (const [index, [name, expr]] of ATTACKS.entries()) {
    const id = `victim${index}`;
    await (await post(`${base}/models`, victim(id, expr))).body?.cancel();
    await (await post(`${base}/models/${id}/mutations`, { "$.s": "a".repeat(28) + "!" })).body?.cancel();
    const latencies: number[] = [];
    let running = true;
    const reader = (async () => {
      while (running) {
        const started = performance.now();
        await (await fetch(`${base}/models/bystander/state`)).body?.cancel();
        latencies.push(performance.now() - started);
      }
    })();
    const started = performance.now();
    const response = await post(`${base}/models/${id}/mutations`, { "$.go": true });
    const elapsed = performance.now() - started;
    await response.body?.cancel();
    running = false;
    await reader;
    latencies.sort((a, b) => a - b);
    const ms = (v: number) => v.toFixed(1);
    console.log(
      `| ${name} | ${response.status} | ${elapsed.toFixed(0)} | ${latencies.length} | ${
        ms(percentile(latencies, 50))
      } | ${ms(percentile(latencies, 99))} | ${ms(latencies[latencies.length - 1] ?? NaN)} |`,
    );
  }
} finally {
  server.child.kill("SIGTERM");
  await server.child.status;
}
