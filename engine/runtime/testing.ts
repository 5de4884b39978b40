/**
 * Embedded tests and the verification report. Each case runs in a fresh runtime
 * of the same compiled model: defaults applied, `given` applied as one mutation,
 * every `expect` entry compared (numbers by value, expected `null` matches
 * absent, `{$meta: {...}}` against the effective schema).
 *
 * @module
 */
import { type ConstraintViolation, describeRollback, ServiceError } from "../errors.ts";
import { shortMessage } from "../quoted.ts";
import { getAt } from "../json/document.ts";
import { isObject, type Json, jsonEqual, setMember } from "../json/value.ts";
import { ownMember } from "../json/wide_object.ts";
import type { CompiledModel } from "../model/compile.ts";
import { isPrefixOf, parsePath } from "../json/path.ts";
import type { TestCase } from "../model/types.ts";
import { clockBoundPatterns } from "./clock_bound.ts";
import { ModelRuntime, type RuntimeEnv } from "./runtime.ts";

/** One failed expectation. */
export interface TestFailure {
  path: string;
  expected: Json;
  actual: Json;
  message: string;
}

/** The outcome of one test case. */
export interface TestCaseResult {
  description: string;
  passed: boolean;
  failures: TestFailure[];
  /** Set when `given` was rejected (the case fails). */
  error: string | null;
  /** The merged state after `given`, for reports. */
  state: Json;
  /** Actual values per expected address. */
  actual: Record<string, Json>;
}

/** Summary of a test run. */
export interface TestRunResult {
  passed: boolean;
  total: number;
  passedCount: number;
  failedCount: number;
  cases: TestCaseResult[];
}

/**
 * Numbers compare within 1e-9 × max(1, |expected|): relative from magnitude 1
 * up, absolute below, so a result that should cancel (`0.1 + 0.2 - 0.3`
 * expected 0) or lost digits to cancellation still matches; else deep equality.
 */
export function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof actual === "number" && typeof expected === "number") {
    return actual === expected || Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
  }
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return actual.length === expected.length && actual.every((a, i) => sameValue(a, expected[i]));
  }
  if (isObject(actual) && isObject(expected)) {
    const keys = Object.keys(expected);
    return keys.length === Object.keys(actual).length &&
      keys.every((k) => k in actual && sameValue(actual[k], expected[k]));
  }
  return jsonEqual(actual, expected);
}

/** True for an `{$meta: {...}}` expectation. */
export function isMetaExpectation(value: unknown): value is { $meta: Record<string, Json> } {
  return isObject(value) && isObject(value.$meta);
}

/** Runs one case in a fresh runtime. */
export async function runTestCase(
  model: CompiledModel,
  env: RuntimeEnv,
  test: TestCase,
): Promise<TestCaseResult> {
  const description = test.description ?? "";
  const { runtime } = await ModelRuntime.create(model, env);
  const base = { description, failures: [] as TestFailure[], actual: {} as Record<string, Json> };
  try {
    const outcome = test.given ? await runtime.evaluateMutation(test.given) : null;
    if (outcome) runtime.commit(outcome);
  } catch (err) {
    // A case keeps no body, so a rollback's text names the constraints its body lists (as an MCP or REST
    // caller sees them); any message is cut as errors.ts cuts a ServiceError's (a cut one stays).
    const violations = err instanceof ServiceError && err.kind === "constraint_violation" &&
      err.body?.violations as ConstraintViolation[] | undefined;
    const message = shortMessage(
      violations
        ? describeRollback(violations, true)
        : err instanceof ServiceError
        ? err.message
        : String(err),
    );
    return {
      ...base,
      passed: false,
      error: `given was rejected: ${message}`,
      state: await runtime.readState(),
    };
  }
  const state = await runtime.readState();
  for (const [address, expected] of Object.entries(test.expect ?? {})) {
    const parsed = parsePath(address);
    if (!parsed.ok) {
      base.failures.push({ path: address, expected, actual: null, message: parsed.message });
      continue;
    }
    if (isMetaExpectation(expected)) {
      const schema = runtime.effectiveSchema(address);
      const actualMeta: Record<string, Json> = {};
      for (const [prop, want] of Object.entries(expected.$meta)) {
        const got = ownMember(schema, prop);
        setMember(actualMeta, prop, got === undefined ? null : got);
        if (!(want === null && got === undefined) && !sameValue(got, want)) {
          base.failures.push({
            path: `${address}#${prop}`,
            expected: want,
            actual: got === undefined ? null : got,
            message: `${address}#${prop}: expected ${JSON.stringify(want)}, got ${
              JSON.stringify(got ?? null)
            }`,
          });
        }
      }
      base.actual[address] = { $meta: actualMeta };
      continue;
    }
    const got = getAt(state, parsed.path);
    base.actual[address] = got === undefined ? null : got;
    if (got === undefined ? expected !== null : !sameValue(got, expected)) {
      base.failures.push({
        path: address,
        expected,
        actual: got === undefined ? null : got,
        message: got === undefined
          ? `${address}: absent, expected ${JSON.stringify(expected)}`
          : `${address}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(got)}`,
      });
    }
  }
  return { ...base, passed: base.failures.length === 0, error: null, state };
}

/** Runs test cases (the spec's own by default); an abort of `signal` stops it between cases. */
export async function runTests(
  model: CompiledModel,
  env: RuntimeEnv,
  tests = model.tests,
  signal?: AbortSignal,
): Promise<TestRunResult> {
  const cases: TestCaseResult[] = [];
  for (const t of tests) {
    signal?.throwIfAborted();
    cases.push(await runTestCase(model, env, t));
  }
  const passedCount = cases.filter((c) => c.passed).length;
  return {
    passed: passedCount === cases.length,
    total: cases.length,
    passedCount,
    failedCount: cases.length - passedCount,
    cases,
  };
}

/** One case of the verification report. */
export interface VerificationCase {
  description: string;
  verifiable: boolean;
  passed: boolean;
  given: Json;
  expect: Json;
  actual: Json;
  reason: string | null;
}

/** The verification report (DECISIONS.md "Verification report"). */
export interface VerificationReport {
  modelId: string;
  specVersion: string;
  state: "green" | "amber" | "neutral";
  checkedCount: number;
  passedCount: number;
  unverifiableCount: number;
  cases: VerificationCase[];
}

/**
 * Builds the verification report: which embedded tests are auto-checkable and whether they pass; an abort of
 * `signal` stops it between cases.
 */
export async function verify(
  model: CompiledModel,
  env: RuntimeEnv,
  signal?: AbortSignal,
): Promise<VerificationReport> {
  const clockBound = clockBoundPatterns(model);
  const checkable = (address: string, expected: Json): boolean => {
    if (expected !== null && typeof expected === "object") return false;
    const parsed = parsePath(address);
    return parsed.ok && !clockBound.some((pattern) => isPrefixOf(pattern, parsed.path));
  };
  const cases: VerificationCase[] = [];
  for (const test of model.tests) {
    signal?.throwIfAborted();
    const checked = Object.entries(test.expect ?? {}).filter(([a, e]) => checkable(a, e));
    const result = await runTestCase(model, env, { ...test, expect: Object.fromEntries(checked) });
    const verifiable = checked.length > 0 || result.error !== null;
    cases.push({
      description: test.description ?? "",
      verifiable,
      passed: verifiable && result.passed,
      given: test.given ?? {},
      expect: test.expect ?? {},
      actual: result.actual,
      reason: result.error ??
        (verifiable
          ? (result.failures.length ? result.failures.map((f) => f.message).join("; ") : null)
          : "no auto-checkable assertion (arrays, objects, $meta or clock-dependent values)"),
    });
  }
  const checkedCount = cases.filter((c) => c.verifiable).length;
  const passedCount = cases.filter((c) => c.verifiable && c.passed).length;
  return {
    modelId: model.id,
    specVersion: model.version,
    state: checkedCount === 0 ? "neutral" : passedCount === checkedCount ? "green" : "amber",
    checkedCount,
    passedCount,
    unverifiableCount: cases.length - checkedCount,
    cases,
  };
}
