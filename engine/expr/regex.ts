/**
 * Safe pattern matching for schema `pattern` checks: RE2 semantics (linear time,
 * no catastrophic backtracking), an input length cap and a wall-clock budget.
 *
 * @module
 */
import { RE2JS } from "re2js";

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

const compiled = new Map<string, RE2JS>();

/** Compiles a pattern with RE2 semantics; throws with RE2's message when unsupported. */
export function compilePattern(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
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
