/**
 * Replays the embedded tests of example specs through an engine module handed in
 * by the caller: in Deno the engine's source (browser/mod.ts), in Chromium the
 * esbuild bundle. The module imports nothing at run time (types only), so the very
 * same code runs on both sides and the two result lists can be compared as data.
 *
 * @module
 */
import type * as Engine from "../../browser/mod.ts";
import type { Json, ModelSpec, TestCase } from "../../browser/mod.ts";

/** An example spec as read from the conformance folder. */
export interface Example {
  /** File name without `.json`. */
  name: string;
  spec: ModelSpec;
}

/** One embedded test case replayed through the service, like the conformance runner does. */
export interface ReplayedCase {
  example: string;
  index: number;
  description: string;
  passed: boolean;
  failures: string[];
  /** Actual value per expected address (`{$meta: {...}}` for meta expectations); `null` when absent. */
  actual: Record<string, Json>;
}

/** An example's embedded tests as the engine's own runner reports them. */
export interface EmbeddedRun {
  example: string;
  result: Engine.TestRunResult;
}

/** Everything one environment produced. */
export interface ReplayReport {
  /** Per case, through ModelService: create, mutate `given`, read fields and effective schemas, compare. */
  cases: ReplayedCase[];
  /** Per example, through the engine's `runTests`. */
  embedded: EmbeddedRun[];
}

/**
 * Replays every example's tests with a fresh in-memory service on the web
 * platform, its clock fixed so both runtimes record the same instants (effect
 * status documents carry the time they changed), its expression deadline
 * generous.
 */
export async function replayExamples(engine: typeof Engine, examples: Example[]): Promise<ReplayReport> {
  const service = await engine.ModelService.open({
    platform: { ...engine.webPlatform(), clock: { now: () => Date.UTC(2026, 0, 1) } },
    // The expression deadline is wall clock: a loaded CI machine once took the loan example's first
    // evaluation past the default second (D1012). What is replayed is results, not speed.
    config: { ...engine.DEFAULT_CONFIG, expressionTimeoutMs: 30_000 },
  });
  const cases: ReplayedCase[] = [];
  const embedded: EmbeddedRun[] = [];
  for (const { name, spec } of examples) {
    const tests: TestCase[] = spec.tests ?? [];
    for (const [index, test] of tests.entries()) {
      cases.push(await replayCase(engine, service, name, spec, index, test));
    }
    await service.createModel(spec);
    embedded.push({
      example: name,
      result: await engine.runTests(await service.compiledModel(spec.id), service.runtimeEnv),
    });
    await service.deleteModel(spec.id);
  }
  await service.close();
  return { cases, embedded };
}

/** One case: recreate the model, apply `given` as one mutation, compare every `expect` entry. */
async function replayCase(
  engine: typeof Engine,
  service: Engine.ModelService,
  example: string,
  spec: ModelSpec,
  index: number,
  test: TestCase,
): Promise<ReplayedCase> {
  const outcome: ReplayedCase = {
    example,
    index,
    description: test.description ?? "",
    passed: false,
    failures: [],
    actual: {},
  };
  await service.createModel(spec);
  try {
    if (test.given && Object.keys(test.given).length > 0) await service.mutate(spec.id, test.given);
    for (const [address, expected] of Object.entries(test.expect ?? {})) {
      if (engine.isMetaExpectation(expected)) {
        const schema = await service.getSchema(spec.id, address);
        const actualMeta: Record<string, Json> = {};
        for (const [property, want] of Object.entries(expected.$meta)) {
          const got = schema[property] ?? null;
          actualMeta[property] = got;
          if (!engine.sameValue(got, want)) {
            outcome.failures.push(
              `${address}#${property}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`,
            );
          }
        }
        outcome.actual[address] = { $meta: actualMeta };
        continue;
      }
      const got = await readField(engine, service, spec.id, address);
      outcome.actual[address] = got;
      if (!engine.sameValue(got, expected)) {
        outcome.failures.push(`${address}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`);
      }
    }
  } catch (err) {
    outcome.failures.push(`${(err as Error).name}: ${(err as Error).message}`);
  } finally {
    await service.deleteModel(spec.id);
  }
  outcome.passed = outcome.failures.length === 0;
  return outcome;
}

/** The merged value at `address`, `null` when absent (an expected `null` matches an absent field). */
async function readField(
  engine: typeof Engine,
  service: Engine.ModelService,
  id: string,
  address: string,
): Promise<Json> {
  try {
    return await service.getField(id, address);
  } catch (err) {
    if (err instanceof engine.ServiceError && err.kind === "not_found") return null;
    throw err;
  }
}
