/**
 * The authoring tools: validate, evaluate, test and dry-run a candidate spec,
 * and the domain guidance menu. They never change the registry and always run
 * in the caller's process, even when the other operations go to a server; a
 * candidate that names another model (a branch's `template`, a library's
 * `extends`) is first flattened where the models are ({@link flattenSpec}).
 *
 * @module
 */
import { z } from "zod";
import { GUIDANCE_MENU, GUIDANCE_TOPIC_IDS, loadGuidance } from "../authoring/guidance/menu.ts";
import { isBranch } from "../composition/flatten.ts";
import { type Finding, ServiceError } from "../errors.ts";
import { withRegexEngine } from "../expr/re2.ts";
import { isObject, type Json } from "../json/value.ts";
import { flattenSpec } from "./composition.ts";
import { type InvokeFn, localOperation } from "./operation.ts";
import {
  DRY_RUN,
  EVALUATION,
  GUIDANCE,
  MUTATIONS,
  SPEC_ARGUMENT,
  TEST_RUN,
  VALIDATION_REPORT,
} from "./schemas.ts";
import { lazySchema, publishedAs } from "./json_schema.ts";

const candidate = lazySchema(() => SPEC_ARGUMENT().describe("the candidate ModelSpec"));

/** Ad-hoc test cases: published as the ModelSpec's own; the test runner checks each. */
const TEST_CASES = publishedAs(
  () => z.array(z.unknown()),
  { type: "array", items: { $ref: "svc://schema/model-spec#/$defs/TestCase" } },
);

/** Whether a candidate names another model: a branch's template, or a library it extends. */
function namesAnotherModel(spec: unknown): boolean {
  return isBranch(spec) ||
    (isObject(spec) && isObject(spec.library) && typeof spec.library.extends === "string");
}

/** The candidate as creating it would compile it: flattened where the models are (remote stays remote). */
async function flattened(invoke: InvokeFn, spec: unknown): Promise<unknown> {
  return namesAnotherModel(spec) ? await invoke(flattenSpec, { spec }) : spec;
}

/** Validates a candidate spec. */
export const validateSpec = localOperation({
  name: "validateSpec",
  summary: "validate a candidate ModelSpec without registering it: {valid, errors, warnings}",
  input: () => z.object({ spec: candidate() }),
  output: VALIDATION_REPORT,
  run: async ({ authoring, invoke }, { spec }) => {
    const tools = await authoring();
    let flat: unknown;
    try {
      flat = await flattened(invoke, spec);
    } catch (err) {
      // An unresolvable template or library is a finding of the candidate, like any other.
      if (!(err instanceof ServiceError) || err.kind !== "validation_failed" || !err.body) throw err;
      return {
        valid: false,
        errors: err.body.errors as unknown as Finding[],
        warnings: (err.body.warnings ?? []) as unknown as Finding[],
      };
    }
    return await withRegexEngine(() => tools.validateSpec(flat));
  },
  console: { command: "validate-spec" },
  mcp: {
    tool: "validate_spec",
    title: "Validate a spec",
    description: "Validate a candidate ModelSpec without registering it: {valid, errors, warnings}, each " +
      "finding with a location and a message.",
    kind: "read",
  },
});

/** Evaluates a JSONata expression against a sample. */
export const evalExpression = localOperation({
  name: "evalExpression",
  summary: "evaluate a JSONata expression against a sample input: {result, type}",
  input: () =>
    z.object({
      expr: z.string().describe("the JSONata expression"),
      input: z.unknown().describe("the sample document the expression reads (default null)").optional(),
      constants: z.record(z.string(), z.unknown()).describe("values bound as $const.<name>").optional(),
    }),
  output: EVALUATION,
  run: async ({ authoring }, { expr, input, constants }) =>
    (await authoring()).evalExpression(
      expr,
      input as Json | undefined,
      constants as Record<string, Json> | undefined,
    ),
  console: { command: "eval-expression" },
  mcp: {
    tool: "eval_expression",
    title: "Evaluate a JSONata expression",
    description: "Evaluate a JSONata expression against a sample input (constants bound as $const): " +
      "{result, type}, type 'undefined' meaning no value; or the exact compile or evaluation error.",
    kind: "read",
    narrowingHint: "select or aggregate less in `expr`",
  },
});

/** Runs a spec's tests (or ad-hoc ones) in throwaway runtimes. */
export const testSpec = localOperation({
  name: "testSpec",
  summary: "run a spec's embedded tests, or the given ones instead, each in a throwaway runtime",
  input: () =>
    z.object({
      spec: candidate(),
      tests: TEST_CASES().describe("cases to run instead of the spec's own").optional(),
    }),
  output: TEST_RUN,
  run: async ({ authoring, invoke }, { spec, tests }, options) =>
    (await authoring()).testSpec(await flattened(invoke, spec), tests, options?.signal),
  console: { command: "test-spec" },
  mcp: {
    tool: "test_spec",
    title: "Run spec tests",
    description: "Run the spec's embedded tests, or the ad-hoc `tests` instead ({given, expect} keyed by " +
      "address), each in a throwaway runtime: pass or fail with per-field failures.",
    kind: "read",
    narrowingHint: "pass `tests` with fewer cases (each returns its final state)",
  },
});

/** Compiles a candidate spec in isolation and applies sample mutations. */
export const dryRun = localOperation({
  name: "dryRun",
  summary: "compile a candidate spec in isolation, apply mutations in order, return the merged state",
  input: () =>
    z.object({
      spec: candidate(),
      mutations: z.union([MUTATIONS(), z.array(MUTATIONS())]).describe(
        "mutation maps applied one after another (a single map is one step)",
      ).optional(),
    }),
  output: DRY_RUN,
  run: async ({ authoring, invoke }, { spec, mutations }, options) =>
    (await authoring()).dryRun(
      await flattened(invoke, spec),
      (mutations === undefined ? [] : Array.isArray(mutations) ? mutations : [mutations]) as Record<
        string,
        Json
      >[],
      options?.signal,
    ),
  console: { command: "dry-run" },
  mcp: {
    tool: "dry_run",
    title: "Dry-run a spec",
    description: "Compile a candidate spec in an isolated runtime, apply optional mutations in order and " +
      "return the merged state and each step's result; nothing is registered.",
    kind: "read",
    narrowingHint: "pass fewer or smaller mutations, or check the spec with test_spec",
  },
});

/** Worked JSONata patterns by topic. */
export const getDomainGuidance = localOperation({
  name: "getDomainGuidance",
  summary: "worked JSONata patterns as spec fragments with a sample run, by topic",
  input: () =>
    z.object({
      topics: z.array(z.enum(GUIDANCE_TOPIC_IDS as [string, ...string[]])).min(1).meta({ uniqueItems: true })
        .describe("topic ids from the menu"),
    }),
  output: GUIDANCE,
  run: async (_, { topics }) => ({ topics: await loadGuidance(topics) }),
  console: { command: "get-domain-guidance" },
  mcp: {
    tool: "get_domain_guidance",
    title: "Domain guidance",
    description: "Worked JSONata patterns as spec fragments with a sample run: " +
      GUIDANCE_MENU.map((t) => `${t.id} (${t.title})`).join(", ") + ".",
    kind: "read",
  },
});
