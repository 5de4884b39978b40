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
 * @module
 */
import jsonata from "jsonata";
import { DEFAULT_CONFIG, type Json, ModelRuntime, ModelService } from "../engine/mod.ts";
import { serverPlatform } from "../server/platform.ts";
import { compiledRatios, type RatioRow } from "./compiled_ratio.ts";
import { spreadsheet } from "./hyperformula.ts";
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

async function runScenario(scenario: Scenario): Promise<Row> {
  const service = await ModelService.open({ platform: serverPlatform() });
  try {
    const { id } = await service.createModel(scenario.spec);
    await service.mutate(id, scenario.seed);
    const doc = await service.getState(id);
    const evaluations = (await service.mutate(id, scenario.mutation(0))).derivedUpdated.length;

    const { runtime } = await ModelRuntime.create(await service.compiledModel(id), service.runtimeEnv);
    runtime.commit((await runtime.evaluateMutation(scenario.seed))!);
    const evaluate = rawEvaluator();
    const sheet = scenario.spreadsheet ? spreadsheet(scenario.spreadsheet) : null;
    const times = await measure({
      service: (call) => service.mutate(id, scenario.mutation(call)),
      pipeline: async (call) => runtime.commit((await runtime.evaluateMutation(scenario.mutation(call)))!),
      raw: (call) => evaluate(scenario.recompute(doc, call), doc),
      sheet: (call) => sheet?.change(call),
    });
    const everything = scenario.everything(doc);
    const full = await measure({ full: () => evaluate(everything, doc) }, { budgetMs: 600, minSamples: 3 });
    return {
      label: scenario.label,
      evaluations,
      serviceUs: times.service.medianUs,
      pipelineUs: times.pipeline.medianUs,
      rawUs: times.raw.medianUs,
      sheetUs: sheet ? times.sheet.medianUs : null,
      fullRawUs: full.full.medianUs,
    };
  } finally {
    await service.close();
  }
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

if (import.meta.main) {
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
