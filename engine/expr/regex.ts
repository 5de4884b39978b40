/**
 * Safe pattern matching for schema `pattern` checks: RE2 semantics (linear time,
 * no catastrophic backtracking), an input length cap and a wall-clock budget.
 *
 * @module
 */
import type { RE2JS } from "re2js";
import { regexEngine } from "./re2.ts";

/** Limits of one pattern check. */
export interface RegexLimits {
  maxInput: number;
  timeoutMs: number;
  now: () => number;
}

/** A pattern check that could not run (input too long, budget exceeded). */
export class RegexLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegexLimitError";
  }
}

/** A compiled pattern. */
export type Pattern = Pick<RE2JS, "test">;

/**
 * The patterns of the JSON Schema 2020-12 meta-schema (`$id`, `$anchor`), which ajv checks every
 * schema against: fixed, linear and read alike by RE2 and JavaScript, so they run on the platform's
 * RegExp and a schema without patterns of its own needs no RE2 (which the browser loads on demand).
 */
const META_SCHEMA_PATTERNS = new Set(["^[^#]*#?$", "^[A-Za-z_][-A-Za-z0-9._]*$"]);

const compiled = new Map<string, Pattern>();

/** Compiles a pattern with RE2 semantics; throws with RE2's message when unsupported. */
export function compilePattern(pattern: string): Pattern {
  let re = compiled.get(pattern);
  if (!re) {
    re = META_SCHEMA_PATTERNS.has(pattern) ? new RegExp(pattern, "u") : regexEngine().compile(pattern);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re;
}

/** Tests `input` against `pattern` (unanchored, like JSON Schema) within the limits. */
export function testPattern(pattern: string, input: string, limits: RegexLimits): boolean {
  if (input.length > limits.maxInput) {
    throw new RegexLimitError(
      `value of ${input.length} characters exceeds svc.limits.regex-max-input (${limits.maxInput}) for pattern checks`,
    );
  }
  const started = limits.now();
  const matched = compilePattern(pattern).test(input);
  if (limits.now() - started > limits.timeoutMs) {
    throw new RegexLimitError(
      `pattern check exceeded svc.limits.regex-timeout-ms (${limits.timeoutMs} ms)`,
    );
  }
  return matched;
}

/** An ajv `code.regExp` engine backed by {@link testPattern}. */
export function ajvRegExpEngine(limits: RegexLimits) {
  const engine = (pattern: string) => {
    compilePattern(pattern);
    // ajv shares compiled patterns by their string form, so it must be the pattern itself
    return { test: (input: string) => testPattern(pattern, input, limits), toString: () => pattern };
  };
  engine.code = "safeRegExp";
  return engine;
}
