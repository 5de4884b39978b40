/**
 * Regular expressions of JSONata expressions on RE2 (re2js): linear-time
 * matching, so `/^(a+)+$/` against a hostile string cannot stall a write.
 *
 * JSONata takes a `RegexEngine` constructor and uses a small part of the
 * RegExp surface: `new RegexEngine(regexLiteral)`, `lastIndex`, and `exec(str)`
 * returning an array (`[0]` the match, `[1..]` the groups, `index`) or `null`.
 * Regex literals carry JSONata's flags (`i`, `m`) plus the `g` JSONata always
 * adds. RE2 refuses what it cannot match in linear time (backreferences,
 * lookaround): such an expression fails to compile (see {@link checkRegexLiterals}).
 *
 * @module
 */
import type { RE2JS } from "re2js";
import { regexEngine } from "./re2.ts";
import type { AstNode } from "./compiler.ts";
import type { EvaluationGuard } from "./guard.ts";

/** Bytes charged per match, for the objects JSONata builds from it. */
const MATCH_BYTES = 64;

const compiledCache = new Map<string, RE2JS>();

/** The RE2 program of a regex literal (cached by flags and source). */
function compileLiteral(source: string, flags: string): RE2JS {
  const key = `${flags}/${source}`;
  let re = compiledCache.get(key);
  if (!re) {
    const RE2 = regexEngine();
    let bits = 0;
    if (flags.includes("i")) bits |= RE2.CASE_INSENSITIVE;
    if (flags.includes("m")) bits |= RE2.MULTILINE;
    re = RE2.compile(source, bits);
    if (compiledCache.size > 1000) compiledCache.clear();
    compiledCache.set(key, re);
  }
  return re;
}

/** The match array of `exec`, shaped like RegExp's. */
type ExecResult = string[] & { index: number };

/** The RegExp-like class JSONata's `RegexEngine` option takes, bound to one evaluation's guard. */
export function re2RegexEngine(guard: EvaluationGuard, maxInput: number): new (literal: RegExp) => unknown {
  return class Re2RegExp {
    lastIndex = 0;
    readonly #re: RE2JS;
    #matcher: ReturnType<RE2JS["matcher"]> | null = null;
    #input: string | null = null;

    constructor(literal: RegExp) {
      this.#re = compileLiteral(literal.source, literal.flags);
    }

    exec(input: string): ExecResult | null {
      if (input.length > maxInput) {
        throw {
          code: "U1003",
          message: `a regular expression was applied to ${input.length} characters, over ` +
            `svc.limits.regex-max-input (${maxInput})`,
        };
      }
      guard.checkDeadline();
      guard.charge(MATCH_BYTES);
      if (this.#input !== input || !this.#matcher) {
        this.#matcher = this.#re.matcher(input);
        this.#input = input;
      }
      const m = this.#matcher;
      if (this.lastIndex > input.length || !m.find(this.lastIndex)) {
        this.lastIndex = 0;
        return null;
      }
      const groups: string[] = [m.group(0) ?? ""];
      // A group that did not take part is undefined, as with RegExp.
      for (let i = 1; i <= m.groupCount(); i++) groups.push(m.group(i) ?? undefined as unknown as string);
      const result = groups as ExecResult;
      result.index = m.start();
      this.lastIndex = m.end();
      return result;
    }
  };
}

/**
 * Compiles every regex literal of an AST with RE2, so an expression using
 * syntax RE2 cannot run in linear time fails at compile time; returns the
 * first refusal as a message, or null.
 */
export function checkRegexLiterals(ast: AstNode): string | null {
  const stack: unknown[] = [ast];
  const seen = new Set<unknown>();
  while (stack.length) {
    const node = stack.pop();
    if (seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    if (node === null || typeof node !== "object") continue;
    const n = node as AstNode;
    if (n.type === "regex" && n.value instanceof RegExp) {
      try {
        compileLiteral(n.value.source, n.value.flags);
      } catch (err) {
        return `regular expression /${n.value.source}/ is not supported (RE2 syntax, linear time): ${
          (err as Error).message
        }`;
      }
      continue;
    }
    for (const [key, value] of Object.entries(n)) {
      if (key !== "value" && typeof value === "object" && value !== null) stack.push(value);
    }
  }
  return null;
}
