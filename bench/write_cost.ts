/**
 * The cost of a write itself (`deno task bench`, after the engine benchmarks):
 * how it grows with the part of the document a write does not touch, and the
 * fixed cost the service adds around the pipeline (queue, audit SHA-256,
 * history, commit, result; hashed with node:crypto as the server and the CLI
 * do), each measured for this engine and, side by side
 * in the same process, for the engine of a baseline commit (by default the one
 * this work started from; `--baseline <git ref>` to pick another, `none` to
 * skip it). The baseline's `engine/` is exported with `git archive` into the
 * system's temporary directory (outside the project, so no test or check
 * walks it) and imported from there; without git it is left out.
 *
 *     deno run -A bench/write_cost.ts [--baseline <git ref> | none]
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import * as current from "../engine/mod.ts";
import { serverPlatform } from "../server/platform.ts";
import { measure, type Operation } from "./measure.ts";
import { independentDerivations, orderItems, type Scenario } from "./scenarios.ts";

/** The commit before the write-path work (issue 15): what "before" means by default. */
const DEFAULT_BASELINE = "583d764e7b217e37246f9187e3b14c79993b5aa3";

type Engine = typeof current;

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The engine of `ref`, exported once; the reason instead when git cannot give it. */
async function baselineEngine(ref: string): Promise<{ engine: Engine; sha: string } | { reason: string }> {
  const run = async (args: string[]) => {
    const out = await new Deno.Command("git", { args, cwd: ROOT, stdout: "piped", stderr: "piped" }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr).trim());
    return out.stdout;
  };
  try {
    const sha = new TextDecoder().decode(await run(["rev-parse", "--verify", `${ref}^{commit}`])).trim();
    const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/svc-bench-baseline/${sha}`;
    try {
      await Deno.stat(`${dir}/engine/mod.ts`);
    } catch {
      await Deno.mkdir(dir, { recursive: true });
      const archive = await run(["archive", "--format=tar", sha, "engine"]);
      const tar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
      const writer = tar.stdin.getWriter();
      await writer.write(archive);
      await writer.close();
      if (!(await tar.status).success) throw new Error("tar could not unpack the baseline");
    }
    return { engine: await import(`${dir}/engine/mod.ts`) as Engine, sha };
  } catch (err) {
    return { reason: (err as Error).message };
  }
}

/** A service and a bare runtime of `scenario` on `engine`, seeded, with its two timed operations. */
async function prepare(engine: Engine, scenario: Scenario) {
  // The hashing of the hosts that run the service (server, CLI): node:crypto, for both engines.
  const service = await engine.ModelService.open({ platform: serverPlatform() });
  await service.createModel(scenario.spec);
  await service.mutate(scenario.spec.id, scenario.seed);
  const { runtime } = await engine.ModelRuntime.create(
    await service.compiledModel(scenario.spec.id),
    service.runtimeEnv,
  );
  runtime.commit((await runtime.evaluateMutation(scenario.seed))!);
  // Every input written once, so a write's first-time costs (a schema fragment compiled) are behind us.
  for (let call = 0; call < 1000; call++) {
    await service.mutate(scenario.spec.id, scenario.mutation(call));
    runtime.commit((await runtime.evaluateMutation(scenario.mutation(call)))!);
  }
  const operations: { service: Operation; pipeline: Operation } = {
    service: (call) => service.mutate(scenario.spec.id, scenario.mutation(call)),
    pipeline: async (call) => runtime.commit((await runtime.evaluateMutation(scenario.mutation(call)))!),
  };
  return { service, operations };
}

/**
 * µs per write of each engine's service and pipeline on every scenario, all
 * sampled in turns in one measurement: a ratio between two scenarios (the
 * 1,000-derivation model against the 10-derivation one) then compares writes
 * taken under the same load of this shared machine, not two spells of it.
 */
async function measureScenarios(engines: Map<string, Engine>, scenarios: Scenario[]) {
  const operations: Record<string, Operation> = {};
  const services: Awaited<ReturnType<typeof prepare>>["service"][] = [];
  for (const [at, scenario] of scenarios.entries()) {
    for (const [name, engine] of engines) {
      const { service, operations: ops } = await prepare(engine, scenario);
      services.push(service);
      operations[`${at} ${name} service`] = ops.service;
      operations[`${at} ${name} pipeline`] = ops.pipeline;
    }
  }
  const times = await measure(operations, { budgetMs: 1600 * engines.size * scenarios.length });
  for (const service of services) await service.close();
  return (scenario: Scenario, name: string) => {
    const at = scenarios.indexOf(scenario);
    return {
      service: times[`${at} ${name} service`].medianUs,
      pipeline: times[`${at} ${name} pipeline`].medianUs,
    };
  };
}

/**
 * ms per model creation (and deletion, so the registry stays small) of `spec`
 * under a fresh id, for each engine, sampled in turns: the spec compiled,
 * its schema's validator built, the model's first cycle. `distinct`: each
 * call's schema has a member of its own, so no compiled schema is reused.
 */
async function measureCreation(engines: Map<string, Engine>, spec: Scenario["spec"], distinct: boolean) {
  const services = new Map<string, Awaited<ReturnType<Engine["ModelService"]["open"]>>>();
  const operations: Record<string, Operation> = {};
  for (const [name, engine] of engines) {
    const service = await engine.ModelService.open({ platform: serverPlatform() });
    services.set(name, service);
    operations[name] = async (call) => {
      const id = `${spec.id}-${call}`;
      const schema = spec.schema as { properties: Record<string, unknown> };
      await service.createModel(
        distinct
          ? { ...spec, id, schema: { ...schema, properties: { ...schema.properties, [`note${call}`]: {} } } }
          : { ...spec, id },
      );
      await service.deleteModel(id);
    };
  }
  const times = await measure(operations, { budgetMs: 1200 * engines.size });
  for (const service of services.values()) await service.close();
  return (name: string) => times[name].medianUs / 1000;
}

const us = (n: number) => n < 100 ? n.toFixed(1) : Math.round(n).toLocaleString("en");
const ratio = (n: number) => `${n.toFixed(2)}x`;

function table(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i].length)));
  const line = (cells: string[]) =>
    "| " + cells.map((c, i) => i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])).join(" | ") + " |";
  const rule = "|" +
    widths.map((w, i) => (i === 0 ? ":" : "") + "-".repeat(w + 1) + (i === 0 ? "" : ":")).join("|") +
    "|";
  return [line(header), rule, ...body.map(line)].join("\n");
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--baseline");
  const ref = at >= 0 ? Deno.args[at + 1] : DEFAULT_BASELINE;
  const engines = new Map<string, Engine>([["after", current]]);
  let baselineNote = "no baseline (--baseline none)";
  if (ref !== "none") {
    const baseline = await baselineEngine(ref);
    if ("engine" in baseline) {
      engines.set("before", baseline.engine);
      baselineNote = `before = engine/ of ${baseline.sha.slice(0, 7)}`;
    } else baselineNote = `no baseline: ${baseline.reason}`;
  }
  const names = [...engines.keys()];
  console.log(
    `\nwrite cost (µs per write, median; ${baselineNote}; service = ModelService.mutate, pipeline =`,
  );
  console.log("ModelRuntime.evaluateMutation + commit, fixed = service − pipeline):");

  // (a) at growing sizes: only the document around the one changed input grows.
  const sized = new Map([10, 100, 1000].map((size) => [size, independentDerivations(size)]));
  const orderScenario = orderItems(10);
  const times = await measureScenarios(engines, [...sized.values(), orderScenario]);
  const order = (name: string) => times(orderScenario, name);
  const body: string[][] = [];
  for (const name of names) {
    const base = times(sized.get(10)!, name);
    for (const [size, scenario] of sized) {
      const { service, pipeline } = times(scenario, name);
      body.push([
        `${name}: (a) ${size.toLocaleString("en")} independent derivations`,
        us(service),
        us(pipeline),
        us(service - pipeline),
        ratio(service / base.service),
        ratio(pipeline / base.pipeline),
      ]);
    }
    const { service, pipeline } = order(name);
    body.push([`${name}: (b) order, N = 10`, us(service), us(pipeline), us(service - pipeline), "", ""]);
  }
  console.log(
    table(["scenario", "service", "pipeline", "fixed", "service / (a) 10", "pipeline / (a) 10"], body),
  );
  const after = times(sized.get(1000)!, "after").service / times(sized.get(10)!, "after").service;
  console.log(`(a) 1,000 / (a) 10 through the service: ${ratio(after)} (aim: at most 2x)`);
  if (engines.has("before")) {
    const fixed = (name: string) => order(name).service - order(name).pipeline;
    console.log(
      `fixed cost of a write at (b) N = 10: ${us(fixed("before"))} µs before, ${
        us(fixed("after"))
      } µs after; ` +
        `service.mutate ${ratio(order("after").service / order("before").service)} of before`,
    );
  }
  for (const distinct of [true, false]) {
    const creation = await measureCreation(engines, orderItems(10).spec, distinct);
    console.log(
      `creating a model (the order's spec${
        distinct ? " with a schema of its own" : ", one schema for all"
      }, ` +
        `then deleting it): ${names.map((name) => `${creation(name).toFixed(2)} ms ${name}`).join(", ")}`,
    );
  }
  // A large spec: linking its nodes and compiling its schema must grow with its size, not its square.
  const wide = await measureCreation(engines, independentDerivations(1000).spec, true);
  console.log(
    `creating a model of 1,000 derivations over 2,000 fields (a schema of its own, then deleting it): ${
      names.map((name) => `${wide(name).toFixed(0)} ms ${name}`).join(", ")
    }`,
  );
}
