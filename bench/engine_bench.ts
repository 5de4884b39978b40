/**
 * Engine benchmarks (`deno task bench`): the cost of one mutation through
 * ModelService.mutate (the real path: queue, pipeline, audit hashing, history)
 * and through ModelRuntime.evaluateMutation + commit (the pipeline alone),
 * against the raw JSONata cost of the expressions that mutation has to
 * recompute, evaluated directly on an equivalent document, and against
 * HyperFormula's one-cell change on the same order as a spreadsheet, all in
 * the same run. The service runs on the platform of the Deno hosts (the
 * server and the CLI: SHA-256 from `node:crypto`); then the interpreter against compiled closures on the
 * compiled subset (`compiled_ratio.ts`).
 *
 *     deno task bench
 *
 * With `--cpu [sizes]` (`deno task bench:cpu`) it times instead, for orders
 * of the given sizes (default 10), service, pipeline and HyperFormula by this
 * thread's CPU time rather than the wall clock (`cpu_time.ts`), so the ratios
 * hold on a loaded, shared machine:
 *
 *     deno run -A bench/engine_bench.ts --cpu 10,1000
 *
 * @module
 */
import jsonata from "jsonata";
import { DEFAULT_CONFIG, type Json, ModelRuntime, ModelService } from "../engine/mod.ts";
import { serverPlatform } from "../server/platform.ts";
import { compiledRatios, type RatioRow } from "./compiled_ratio.ts";
import { spreadsheet } from "./hyperformula.ts";
import { measureCpu, threadCpuClock } from "./cpu_time.ts";
import { measure } from "./measure.ts";
import { type Evaluation, independentDerivations, orderItems, type Scenario } from "./scenarios.ts";

/** The figures of one scenario, in microseconds per mutation. */
interface Row {
  label: string;
  evaluations: number;
  serviceUs: number;
  pipelineUs: number;
  rawUs: number;
  /** HyperFormula's one-cell change and recalculation, where the scenario has a spreadsheet. */
  sheetUs: number | null;
  fullRawUs: number;
}

/** Compiles expressions once, with the guard options the engine evaluates them with. */
function rawEvaluator(): (work: Evaluation[], doc: Json) => Promise<void> {
  const compiled = new Map<string, jsonata.Expression>();
  const options = { timeout: DEFAULT_CONFIG.expressionTimeoutMs, stack: DEFAULT_CONFIG.expressionMaxDepth };
  return async (work, doc) => {
    for (const { expression, parent } of work) {
      let expr = compiled.get(expression);
      if (!expr) compiled.set(expression, expr = jsonata(expression, options as never));
      await expr.evaluate(doc, { const: {}, parent });
    }
  };
}

/** A scenario's service and bare runtime, seeded, with the operations every mode times. */
async function setUp(scenario: Scenario) {
  const service = await ModelService.open({ platform: serverPlatform() });
  const { id } = await service.createModel(scenario.spec);
  await service.mutate(id, scenario.seed);
  const doc = await service.getState(id);
  const evaluations = (await service.mutate(id, scenario.mutation(0))).derivedUpdated.length;

  const { runtime } = await ModelRuntime.create(await service.compiledModel(id), service.runtimeEnv);
  runtime.commit((await runtime.evaluateMutation(scenario.seed))!);
  const evaluate = rawEvaluator();
  const sheet = scenario.spreadsheet ? spreadsheet(scenario.spreadsheet) : null;
  const operations = {
    service: (call: number) => service.mutate(id, scenario.mutation(call)),
    pipeline: async (call: number) =>
      runtime.commit((await runtime.evaluateMutation(scenario.mutation(call)))!),
    raw: (call: number) => evaluate(scenario.recompute(doc, call), doc),
    sheet: (call: number) => sheet?.change(call),
  };
  return { service, doc, evaluations, evaluate, hasSheet: sheet !== null, operations };
}

async function runScenario(scenario: Scenario): Promise<Row> {
  const { service, doc, evaluations, evaluate, hasSheet, operations } = await setUp(scenario);
  try {
    const times = await measure(operations);
    const everything = scenario.everything(doc);
    const full = await measure({ full: () => evaluate(everything, doc) }, { budgetMs: 600, minSamples: 3 });
    return {
      label: scenario.label,
      evaluations,
      serviceUs: times.service.medianUs,
      pipelineUs: times.pipeline.medianUs,
      rawUs: times.raw.medianUs,
      sheetUs: hasSheet ? times.sheet.medianUs : null,
      fullRawUs: full.full.medianUs,
    };
  } finally {
    await service.close();
  }
}

/**
 * The CPU-time mode (`--cpu`): service, pipeline and HyperFormula of the
 * order at each size, timed by this thread's CPU time in blocks of 100 calls
 * in turns, in both orders (`cpu_time.ts`); wall-clock medians on a loaded
 * machine carry the other processes' load, CPU time does not.
 */
async function cpuMode(sizes: number[]): Promise<void> {
  const clock = threadCpuClock();
  const body: string[][] = [];
  for (const size of sizes) {
    const scenario = orderItems(size);
    const { service, operations } = await setUp(scenario);
    try {
      const { forward, reversed } = await measureCpu(
        {
          service: operations.service,
          pipeline: operations.pipeline,
          sheet: operations.sheet,
        },
        {},
        clock,
      );
      for (
        const [order, times] of [["service, pipeline, HF", forward], [
          "HF, pipeline, service",
          reversed,
        ]] as const
      ) {
        body.push([
          `${scenario.label} (${order})`,
          us(times.service),
          us(times.pipeline),
          us(times.sheet),
          ratio(times.service / times.sheet),
          ratio(times.pipeline / times.sheet),
        ]);
      }
    } finally {
      await service.close();
    }
  }
  console.log(markdown(
    [
      "scenario (turn order)",
      "service.mutate µs",
      "pipeline µs",
      "HyperFormula µs",
      "service/HF",
      "pipeline/HF",
    ],
    body,
  ));
  console.log(
    [
      "CPU µs of this thread per mutation (clock_gettime(CLOCK_THREAD_CPUTIME_ID) through FFI), median of",
      "40 blocks of 100 calls per turn order, rounds of the two orders alternating; V8's helper threads not counted.",
    ].join("\n"),
  );
}

const us = (n: number) => n < 100 ? n.toFixed(1) : Math.round(n).toLocaleString("en");
const ratio = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)}x`;

/** A Markdown table, the first column left-aligned. */
function markdown(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
  const line = (cells: string[]) =>
    "| " + cells.map((c, i) => i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])).join(" | ") + " |";
  const rule = "|" +
    widths.map((w, i) => (i === 0 ? ":" : "") + "-".repeat(w + 1) + (i === 0 ? "" : ":")).join("|") +
    "|";
  return [line(header), rule, ...body.map(line)].join("\n");
}

function table(rows: Row[]): string {
  const header = [
    "scenario",
    "evals",
    "service.mutate µs",
    "pipeline µs",
    "raw JSONata µs",
    "HyperFormula µs",
    "service/raw",
    "pipeline/raw",
    "service/HF",
    "pipeline/HF",
    "full recompute µs",
  ];
  const body = rows.map((r) => [
    r.label,
    String(r.evaluations),
    us(r.serviceUs),
    us(r.pipelineUs),
    us(r.rawUs),
    r.sheetUs === null ? "–" : us(r.sheetUs),
    ratio(r.serviceUs / r.rawUs),
    ratio(r.pipelineUs / r.rawUs),
    r.sheetUs === null ? "–" : ratio(r.serviceUs / r.sheetUs),
    r.sheetUs === null ? "–" : ratio(r.pipelineUs / r.sheetUs),
    us(r.fullRawUs),
  ]);
  return markdown(header, body);
}

function ratioTable(rows: RatioRow[]): string {
  const body = rows.map((r) => [
    `\`${r.expression}\``,
    us(r.interpretedUs),
    us(r.compiledUs),
    ratio(r.interpretedUs / r.compiledUs),
  ]);
  const logs = rows.map((r) => Math.log(r.interpretedUs / r.compiledUs));
  const mean = Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length);
  body.push(["geometric mean", "", "", ratio(mean)]);
  return markdown(
    ["expression (compiled subset)", "interpreter µs", "compiled µs", "interpreter/compiled"],
    body,
  );
}

function machine(): string {
  let cpu = "unknown CPU";
  try {
    cpu = Deno.readTextFileSync("/proc/cpuinfo").match(/^model name\s*:\s*(.+)$/m)?.[1] ?? cpu;
  } catch {
    // Not Linux, or no read permission: the CPU model is only context.
  }
  const load = (() => {
    try {
      return Deno.loadavg().map((l) => l.toFixed(2)).join(" ");
    } catch {
      return "n/a";
    }
  })();
  return `Deno ${Deno.version.deno} (V8 ${Deno.version.v8}), ${Deno.build.os}/${Deno.build.arch}, ` +
    `${navigator.hardwareConcurrency} × ${cpu}, load average ${load}`;
}

/** `--cpu [sizes]`: the CPU-time mode for orders of the given sizes (comma-separated, default 10). */
function cpuSizes(args: string[]): number[] | null {
  const at = args.indexOf("--cpu");
  if (at < 0) return null;
  const list = args[at + 1] && !args[at + 1].startsWith("--") ? args[at + 1] : "10";
  const sizes = list.split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`--cpu takes order sizes separated by commas, e.g. 10,1000 (got ${list})`);
  }
  return sizes;
}

const cpuOrders = import.meta.main ? cpuSizes(Deno.args) : null;
if (cpuOrders) {
  console.log(`engine benchmarks, CPU time: ${machine()}, ${new Date().toISOString().slice(0, 10)}`);
  await cpuMode(cpuOrders);
} else if (import.meta.main) {
  console.log(`engine benchmarks: ${machine()}, ${new Date().toISOString().slice(0, 10)}`);
  const scenarios = [
    independentDerivations(1000),
    orderItems(10),
    orderItems(1000),
    orderItems(10_000),
    orderItems(10_000, "decimal"),
  ];
  const rows: Row[] = [];
  for (const scenario of scenarios) rows.push(await runScenario(scenario));
  console.log(table(rows));
  console.log(
    [
      "µs per mutation, median of samples taken in turns. evals: derivation evaluations per mutation",
      "(derivedUpdated).",
      "raw JSONata: the same expressions evaluated directly with jsonata-js on an equivalent document (only",
      "what the mutation must recompute); full recompute: every expression of the model, as a",
      "non-incremental engine would evaluate them. service = ModelService.mutate (queue, pipeline, audit",
      "SHA-256, history); pipeline = ModelRuntime.evaluateMutation + commit; HyperFormula: the order as a",
      "sheet (C = A*B per row, SUM(C1:CN)), one qty cell set and the sum read.",
    ].join("\n"),
  );
  console.log();
  console.log(ratioTable(await compiledRatios()));
  console.log(
    "µs per evaluation through ExpressionCompiler.evaluateNow (as the runtime calls it), compiled closures off and on.",
  );
}
