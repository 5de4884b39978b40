/**
 * JSONata builtins that can make a huge value, or do a huge amount of work, in
 * one call, replaced (through the expression's environment) by guarded
 * versions with the same signatures and results:
 *
 * - `$pad`, `$join`: the size of the result is charged to the evaluation's
 *   memory budget before it is built; `$replace` after (it builds a rope);
 * - `$string`: serialised by a loop that checks the deadline and yields, not
 *   by one `JSON.stringify` call (JSONata's takes about 1 µs per number);
 * - `$distinct`: linear (a set of canonical keys) instead of quadratic;
 * - `$fromMillis`, `$formatInteger`: picture widths are capped (the cycle's
 *   `$now(picture)`, see `clock.ts`, formats through `$fromMillis`);
 * - `$match`, `$replace`, `$split` with a regex: the walk over the matches
 *   checks the deadline and yields every {@link MATCH_CHUNK} matches (a regex
 *   is linear, but one call may still find 100,000 matches; each is charged
 *   to the memory budget by the regex engine).
 *
 * What JSONata already limits: the range operator (1e7 entries, and the
 * sequence limit given as its `sequence` option), evaluation depth (`stack`).
 *
 * @module
 */
import jsonata from "jsonata";
import { failure, type Frame, guardOf } from "./guard.ts";

/** A JSONata builtin as its environment holds it. */
export interface Builtin {
  _jsonata_function: true;
  implementation: (this: Focus, ...args: never[]) => unknown;
  signature: unknown;
}

/** The `this` JSONata calls builtins with. */
interface Focus {
  environment: Frame;
  input: unknown;
  createSequence(): unknown[];
}

const NAMES = [
  "pad",
  "join",
  "replace",
  "match",
  "split",
  "string",
  "distinct",
  "fromMillis",
  "formatInteger",
  "now",
  "millis",
] as const;
type Name = typeof NAMES[number];

let originals: Promise<Record<Name, Builtin>> | undefined;

/**
 * JSONata's own builtins, read once through an expression that returns them,
 * on first use: a process that compiles no expression (a console's first
 * command, an MCP handshake) does not start JSONata.
 */
function jsonataBuiltins(): Promise<Record<Name, Builtin>> {
  return originals ??= jsonata(`{${NAMES.map((n) => `"${n}": $${n}`).join(",")}}`)
    .evaluate({}) as Promise<Record<Name, Builtin>>;
}

/** Widest field a date or integer picture may ask for. */
export const MAX_PICTURE_WIDTH = 1000;

/** Nodes serialised between two deadline checks in `$string`. */
const STRING_CHUNK = 4096;

function guarded(focus: Focus) {
  return guardOf(focus.environment);
}

/** Matches a builtin walks between two deadline checks. */
const MATCH_CHUNK = 256;

/** What a regex closure answers (JSONata's shape). */
interface RegexMatch {
  match?: string;
  next?: () => unknown;
}

/**
 * A regex closure whose walk over successive matches (`next`) is paced by the
 * guard; anything else (a string pattern, a JSONata lambda) as given.
 */
function paced(matcher: unknown, focus: Focus): unknown {
  const guard = guarded(focus);
  if (typeof matcher !== "function" || !guard) return matcher;
  let count = 0;
  // JSONata hands a native builtin its function arguments wrapped as async functions: answers may be promises.
  const settle = (answer: unknown): unknown =>
    answer instanceof Promise ? answer.then(wrap) : wrap(answer as RegexMatch | undefined);
  const wrap = (result: RegexMatch | undefined): RegexMatch | undefined => {
    if (!result || typeof result.next !== "function") return result;
    // Each answer is a fresh object of the closure's: its `next` is ours to replace.
    const next = result.next;
    result.next = () => {
      if (++count % MATCH_CHUNK) return settle(next());
      const waiting = guard.enter();
      return waiting ? waiting.then(() => settle(next())) : settle(next());
    };
    return result;
  };
  return (str: string) => settle((matcher as (s: string) => unknown)(str));
}

function checkPicture(picture: unknown): void {
  if (typeof picture !== "string") return;
  for (const match of picture.matchAll(/\d+/g)) {
    if (Number(match[0]) > MAX_PICTURE_WIDTH) {
      throw failure("U1004", `a picture width of ${match[0]} is over the limit of ${MAX_PICTURE_WIDTH}`);
    }
  }
}

/** JSONata's number formatting inside `$string`: 15 significant digits for non-integers. */
function numberText(value: number): string {
  if (!Number.isFinite(value)) {
    throw failure("D3001", "Attempting to invoke string function on Infinity or NaN");
  }
  return JSON.stringify(Number.isInteger(value) ? value : Number(value.toPrecision(15)));
}

function isJsonataFunction(value: unknown): boolean {
  return typeof value === "function" ||
    (typeof value === "object" && value !== null &&
      ((value as Builtin)._jsonata_function === true ||
        (value as { _jsonata_lambda?: boolean })._jsonata_lambda === true));
}

/**
 * `JSON.stringify(value, jsonataReplacer, space)` as a loop over an explicit
 * stack, checking the deadline (and yielding) every {@link STRING_CHUNK} nodes.
 */
async function serialize(value: unknown, space: number, focus: Focus): Promise<string> {
  const guard = guarded(focus);
  const out: string[] = [];
  type Task = { value: unknown; depth: number; key?: string; first?: boolean } | string;
  const stack: Task[] = [{ value, depth: 0 }];
  const indent = (depth: number) => space ? "\n" + " ".repeat(space * depth) : "";
  const parts: string[] = [];
  let nodes = 0;
  let chars = 0;
  const emit = (text: string) => {
    out.push(text);
    chars += text.length;
  };
  while (stack.length) {
    const task = stack.pop()!;
    if (typeof task === "string") {
      emit(task);
      continue;
    }
    if (++nodes % STRING_CHUNK === 0) {
      parts.push(out.join(""));
      out.length = 0;
      guard?.chargeChars(chars);
      chars = 0;
      await guard?.enter();
    }
    const { depth } = task;
    let v = task.value;
    if (isJsonataFunction(v)) v = "";
    if (v === null || v === undefined) emit("null");
    else if (typeof v === "number") emit(numberText(v));
    else if (typeof v === "string" || typeof v === "boolean") emit(JSON.stringify(v));
    else if (Array.isArray(v)) {
      if (!v.length) {
        emit("[]");
        continue;
      }
      emit("[");
      stack.push(indent(depth) + "]");
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] === undefined ? null : v[i], depth: depth + 1 });
        stack.push((i ? "," : "") + indent(depth + 1));
      }
    } else {
      const entries = Object.entries(v as Record<string, unknown>).filter(([, item]) => item !== undefined);
      if (!entries.length) {
        emit("{}");
        continue;
      }
      emit("{");
      stack.push(indent(depth) + "}");
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push({ value: entries[i][1], depth: depth + 1 });
        stack.push((i ? "," : "") + indent(depth + 1) + JSON.stringify(entries[i][0]) + (space ? ": " : ":"));
      }
    }
  }
  guard?.chargeChars(chars);
  parts.push(out.join(""));
  return parts.join("");
}

/** A canonical key of a JSON value: equal keys for deep-equal values (object key order ignored). */
function canonicalKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalKey).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${
      keys.map((k) => `${JSON.stringify(k)}:${canonicalKey((value as Record<string, unknown>)[k])}`).join(",")
    }}`;
  }
  return JSON.stringify(value);
}

/** The guarded builtins, ready to bind into an expression's environment. */
export async function guardedBuiltins(): Promise<Record<string, Builtin>> {
  const o = await jsonataBuiltins();
  const wrap = (name: Name, implementation: Builtin["implementation"]): Builtin => ({
    ...o[name],
    implementation,
  });
  return {
    pad: wrap("pad", function (this: Focus, str: unknown, width: unknown, char?: unknown) {
      if (typeof width === "number" && Number.isFinite(width)) {
        const charLength = typeof char === "string" && char.length ? char.length : 1;
        guarded(this)?.chargeChars(Math.abs(Math.trunc(width)) * charLength);
      }
      return (o.pad.implementation as (...a: unknown[]) => unknown).call(this, str, width, char);
    } as never),
    join: wrap("join", function (this: Focus, strs: unknown, separator?: unknown) {
      if (Array.isArray(strs)) {
        const sep = typeof separator === "string" ? separator.length : 0;
        let total = Math.max(0, strs.length - 1) * sep;
        for (const s of strs) total += typeof s === "string" ? s.length : 0;
        guarded(this)?.chargeChars(total);
      }
      return (o.join.implementation as (...a: unknown[]) => unknown).call(this, strs, separator);
    } as never),
    match: wrap("match", function (this: Focus, str: unknown, regex: unknown, limit?: unknown) {
      return (o.match.implementation as (...a: unknown[]) => unknown).call(
        this,
        str,
        paced(regex, this),
        limit,
      );
    } as never),
    split: wrap("split", function (this: Focus, str: unknown, separator: unknown, limit?: unknown) {
      return (o.split.implementation as (...a: unknown[]) => unknown).call(
        this,
        str,
        paced(separator, this),
        limit,
      );
    } as never),
    replace: wrap("replace", async function (this: Focus, ...args: unknown[]) {
      args[1] = paced(args[1], this);
      const [str, pattern, replacement, limit] = args;
      if (
        typeof str === "string" && typeof pattern === "string" && typeof replacement === "string" && pattern
      ) {
        const most = typeof limit === "number" ? limit : Infinity;
        let count = 0;
        for (
          let at = str.indexOf(pattern);
          at >= 0 && count < most;
          at = str.indexOf(pattern, at + pattern.length)
        ) {
          count++;
        }
        guarded(this)?.chargeChars(str.length + count * replacement.length);
      }
      const result = await (o.replace.implementation as (...a: unknown[]) => unknown).apply(this, args);
      if (typeof result === "string") guarded(this)?.chargeChars(result.length);
      return result;
    } as never),
    string: wrap("string", function (this: Focus, arg: unknown, prettify?: unknown) {
      if (arg === undefined) return undefined;
      if (typeof arg === "string") return arg;
      if (isJsonataFunction(arg)) return "";
      if (typeof arg === "number") return numberText(arg);
      const value = Array.isArray(arg) && (arg as { outerWrapper?: boolean }).outerWrapper ? arg[0] : arg;
      return serialize(value, prettify === true ? 2 : 0, this);
    } as never),
    distinct: wrap("distinct", function (this: Focus, arr: unknown) {
      if (!Array.isArray(arr) || arr.length <= 1) return arr;
      if (arr.some(isJsonataFunction)) {
        return (o.distinct.implementation as (...a: unknown[]) => unknown).call(this, arr);
      }
      // Primitives are their own keys (a Set tells 1 from "1"); containers go by canonical JSON.
      const primitives = new Set<unknown>();
      const containers = new Set<string>();
      const out = (arr as { sequence?: boolean }).sequence ? this.createSequence() : [];
      for (const value of arr) {
        const seen = typeof value === "object" && value !== null ? containers : primitives;
        const key = seen === containers ? canonicalKey(value) : value;
        if (!seen.has(key as string)) {
          seen.add(key as string);
          out.push(value);
        }
      }
      return out;
    } as never),
    fromMillis: wrap("fromMillis", function (this: Focus, ...args: unknown[]) {
      checkPicture(args[1]);
      return (o.fromMillis.implementation as (...a: unknown[]) => unknown).apply(this, args);
    } as never),
    formatInteger: wrap("formatInteger", function (this: Focus, ...args: unknown[]) {
      checkPicture(args[1]);
      return (o.formatInteger.implementation as (...a: unknown[]) => unknown).apply(this, args);
    } as never),
  };
}
