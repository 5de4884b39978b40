/**
 * The authoring tools: validate, evaluate, test and dry-run a candidate spec,
 * and the domain guidance menu. They never touch the registry and always run
 * in the caller's process, even when the other operations go to a server.
 *
 * @module
 */
import { z } from "zod";
import { GUIDANCE_MENU, GUIDANCE_TOPIC_IDS, loadGuidance } from "../authoring/guidance/menu.ts";
import { withRegexEngine } from "../expr/re2.ts";
import type { Json } from "../json/value.ts";
import { localOperation } from "./operation.ts";
import {
  DRY_RUN,
  EVALUATION,
  GUIDANCE,
  MUTATIONS,
  SPEC_ARGUMENT,
  TEST_RUN,
  VALIDATION_REPORT,
} from "./schemas.ts";
import { publishedAs } from "./json_schema.ts";

const candidate = SPEC_ARGUMENT.describe("the candidate ModelSpec");

/** Validates a candidate spec. */
export const validateSpec = localOperation({
  name: "validateSpec",
  summary: "validate a candidate ModelSpec without registering it: {valid, errors, warnings}",
  input: z.object({ spec: candidate }),
  output: VALIDATION_REPORT,
  run: async ({ authoring }, { spec }) => {
    const tools = await authoring();
    return await withRegexEngine(() => tools.validateSpec(spec));
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
  input: z.object({
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
  },
});

/** Runs a spec's tests (or ad-hoc ones) in throwaway runtimes. */
export const testSpec = localOperation({
  name: "testSpec",
  summary: "run a spec's embedded tests, or the given ones instead, each in a throwaway runtime",
  input: z.object({
    spec: candidate,
    tests: publishedAs(
      z.array(z.unknown()),
      { type: "array", items: { $ref: "svc://schema/model-spec#/$defs/TestCase" } },
    ).describe("cases to run instead of the spec's own").optional(),
  }),
  output: TEST_RUN,
  run: async ({ authoring }, { spec, tests }) => (await authoring()).testSpec(spec, tests),
  console: { command: "test-spec" },
  mcp: {
    tool: "test_spec",
    title: "Run spec tests",
    description: "Run the spec's embedded tests, or the ad-hoc `tests` instead ({given, expect} keyed by " +
      "address), each in a throwaway runtime: pass or fail with per-field failures.",
    kind: "read",
  },
});

/** Compiles a candidate spec in isolation and applies sample mutations. */
export const dryRun = localOperation({
  name: "dryRun",
  summary: "compile a candidate spec in isolation, apply mutations in order, return the merged state",
  input: z.object({
    spec: candidate,
    mutations: z.union([MUTATIONS, z.array(MUTATIONS)]).describe(
      "mutation maps applied one after another (a single map is one step)",
    ).optional(),
  }),
  output: DRY_RUN,
  run: async ({ authoring }, { spec, mutations }) =>
    (await authoring()).dryRun(
      spec,
      (mutations === undefined ? [] : Array.isArray(mutations) ? mutations : [mutations]) as Record<
        string,
        Json
      >[],
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
  input: z.object({
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
