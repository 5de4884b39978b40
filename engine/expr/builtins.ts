/**
 * JSONata builtins that can make a huge value, or do a huge amount of work, in
 * one call, replaced (through the expression's environment) by guarded
 * versions with the same signatures and results:
 *
 * - `$pad`, `$join`: the size of the result is charged to the evaluation's
 *   memory budget before it is built; `$replace` after (it builds a rope);
 * - `$length`, `$substring`, `$pad`: code points counted and sliced by a paced
 *   walk (`code_points.ts`), not by spreading the string into an array;
 * - `$trim`: one linear pass instead of a regex replacement per run of spaces;
 * - `$string`: serialised by a loop that checks the deadline and yields, not
 *   by one `JSON.stringify` call (JSONata's takes about 1 µs per number); a
 *   long string's JSON is charged before it is built;
 * - `$encodeUrl`, `$encodeUrlComponent`, `$decodeUrl`, `$decodeUrlComponent`,
 *   `$base64encode`, `$uppercase`, `$lowercase`: converted in paced chunks;
 * - `$split` by a string: its pieces counted and charged before they are
 *   built, and built in paced steps (`split.ts`);
 * - `$number`, `$toMillis`: a long string is read by paced walks into a short
 *   stand-in with the same answer (`stand_ins.ts`);
 * - `$number`, `$toMillis`, `$decodeUrl`, …, `$error`, `$assert`: a failure
 *   quotes at most 1000 characters of a value or message ({@link quoted})
 *   (jsonata-js built, and flattened, a message the size of the value);
 * - `$distinct`: linear (a set of canonical keys) instead of quadratic;
 * - `$sort`: jsonata-js's merge sort without its quadratic copies, paced by
 *   the guard even with the default comparator, which runs no step
 *   (`merge_sort.ts`); its slots are charged before they are built;
 * - `$formatNumber`, `$formatInteger`, `$parseInteger`, `$fromMillis`,
 *   `$toMillis`: pictures are capped in length (a picture of 20 million `0`s asks for 20 million
 *   digits) and date width modifiers (`[Y,400000000]`) in value (the cycle's
 *   `$now(picture)`, see `clock.ts`, formats through `$fromMillis`);
 * - `$toMillis` without a picture: a time of day without an offset is UTC
 *   (jsonata-js read it in the host's time zone);
 * - `$toMillis` with a picture: its regex runs on RE2, not by backtracking,
 *   over a timestamp of at most {@link MAX_PARSED_CHARS} (`date_picture.ts`);
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
import { failure, type Frame, type GuardFailure, guardOf } from "./guard.ts";
import { type Greater, mergeSort } from "./merge_sort.ts";
import { jsonStringBytes } from "../json/measure.ts";
import { codePointLength, codePointRepeat, codePointSlice, type Pace } from "./code_points.ts";
import { splitByString } from "./split.ts";
import { numberStandIn, timestampStandIn } from "./stand_ins.ts";
import { parsedWith } from "./date_picture.ts";
import { loadRegexEngine } from "./re2.ts";
import { quoted } from "../quoted.ts";

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
  "length",
  "substring",
  "trim",
  "join",
  "replace",
  "match",
  "split",
  "string",
  "distinct",
  "sort",
  "fromMillis",
  "encodeUrl",
  "encodeUrlComponent",
  "decodeUrl",
  "decodeUrlComponent",
  "base64encode",
  "uppercase",
  "lowercase",
  "number",
  "error",
  "assert",
  "formatInteger",
  "formatNumber",
  "parseInteger",
  "toMillis",
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

/** Longest picture of `$formatNumber`, `$formatInteger`, `$parseInteger`, `$fromMillis` and `$toMillis`. */
export const MAX_PICTURE_LENGTH = 1000;

/** Longest timestamp `$toMillis` reads with a picture (see `date_picture.ts`). */
export const MAX_PARSED_CHARS = 100;

/** Widest field a date picture's width modifier may ask for. */
export const MAX_PICTURE_WIDTH = 1000;

/** Nodes serialised between two deadline checks in `$string`. */
const STRING_CHUNK = 4096;

function guarded(focus: Focus) {
  return guardOf(focus.environment);
}

/** Pacing of a builtin's long walk by the evaluation's guard: the deadline, and yields. */
function pacer(focus: Focus): Pace {
  const guard = guarded(focus);
  return () => guard?.enter();
}

/** Bytes a piece of a `$split` costs: its slot and a short string. */
const PIECE_BYTES = 32;

/** Matches a builtin walks between two deadline checks. */
export const MATCH_CHUNK = 256;

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

/** A picture's length is capped: each of its digit signs (or literal characters) is output. */
function checkPicture(picture: unknown): void {
  if (typeof picture === "string" && picture.length > MAX_PICTURE_LENGTH) {
    throw failure(
      "U1004",
      `a picture of ${picture.length} characters is over the limit of ${MAX_PICTURE_LENGTH}`,
    );
  }
}

/** A date picture: its length, and the widths its markers' modifiers (after the comma: `[Y,2-4]`) ask for. */
function checkDatePicture(picture: unknown): void {
  checkPicture(picture);
  if (typeof picture !== "string") return;
  for (const [, modifier] of picture.matchAll(/\[[^\]]*,([^\]]*)\]/g)) {
    for (const [width] of modifier.matchAll(/\d+/g)) {
      if (Number(width) > MAX_PICTURE_WIDTH) {
        throw failure("U1004", `a picture width of ${width} is over the limit of ${MAX_PICTURE_WIDTH}`);
      }
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

/**
 * A number within the value `$string` serialises, as jsonata-js's replacer
 * leaves it to `JSON.stringify`: NaN is written `null`, ±Infinity is out of
 * range (D1001); only a bare non-finite argument is D3001.
 */
function memberNumberText(value: number): string {
  if (Number.isNaN(value)) return "null";
  if (!Number.isFinite(value)) throw { ...failure("D1001", ""), value };
  return numberText(value);
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
    else if (typeof v === "number") emit(memberNumberText(v));
    else if (typeof v === "string" || typeof v === "boolean") {
      // A long string's JSON (escapes up to 6 units a character) is charged before it is built: its UTF-8 size bounds it.
      if (typeof v === "string" && v.length > STRING_CHUNK) guard?.chargeChars(jsonStringBytes(v));
      emit(JSON.stringify(v));
    } else if (Array.isArray(v)) {
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

/**
 * jsonata-js's check before `$sort` without a comparator: numbers (not NaN;
 * ±Infinity fails as out of range, D1001) or strings, else D3070.
 */
function checkSortable(items: readonly unknown[]): void {
  let numbers = true;
  for (const item of items) {
    if (typeof item !== "number" || Number.isNaN(item)) numbers = false;
    else if (!Number.isFinite(item)) throw { ...failure("D1001", ""), value: item };
  }
  if (!numbers && !items.every((item) => typeof item === "string")) {
    throw { ...failure("D3070", ""), index: 1 };
  }
}

/** Whether `a` sorts after `b` by default (numbers or strings, as jsonata-js compares them). */
const greaterByDefault: Greater<unknown> = (a, b) => (a as number) > (b as number);

/** Units turned into a string per `String.fromCharCode` call. */
const UNITS_PER_CALL = 8192;

/**
 * jsonata-js's `$trim` (runs of space, tab, CR and LF become one space, then a
 * leading and a trailing space go) in one linear pass, paced every
 * {@link UNITS_PER_CHUNK} characters: its regex replacement took 50 s over 20
 * million runs of spaces.
 */
async function trimmed(str: string, pace: Pace): Promise<string> {
  let result = str;
  if (/[\t\n\r]| {2}/.test(str)) {
    const out = new Uint16Array(str.length);
    let n = 0;
    let inRun = false;
    for (let i = 0; i < str.length; i++) {
      if (i % UNITS_PER_CHUNK === UNITS_PER_CHUNK - 1) await pace();
      const unit = str.charCodeAt(i);
      const space = unit === 32 || unit === 9 || unit === 10 || unit === 13;
      if (!space) out[n++] = unit;
      else if (!inRun) out[n++] = 32;
      inRun = space;
    }
    const parts: string[] = [];
    for (let i = 0; i < n; i += UNITS_PER_CALL) {
      parts.push(String.fromCharCode(...out.subarray(i, Math.min(n, i + UNITS_PER_CALL))));
    }
    result = parts.join("");
  }
  if (result.startsWith(" ")) result = result.substring(1);
  if (result.endsWith(" ")) result = result.substring(0, result.length - 1);
  return result;
}

/** Characters a chunked builtin (`$encodeUrl`, `$base64encode`, …) converts between two pacing calls. */
export const UNITS_PER_CHUNK = 3 << 18;

/** Where a chunk ending before unit `end` may end instead, so that the pieces convert as the whole does. */
type Cut = (str: string, end: number) => number;

/** A chunk never ends inside a surrogate pair: a high surrogate goes with the next one (its pair, or its own error). */
const pairCut: Cut = (str, end) => (str.charCodeAt(end - 1) & 0xfc00) === 0xd800 ? end + 1 : end;

/**
 * A URL-decoded chunk ends at an escape's `%`, never inside `%XX` (a `%` always
 * starts one, so that is where the whole string's decoding is too), and never
 * before a continuation byte (`%80` to `%BF`): valid UTF-8 has at most three
 * in a row, so a valid string is cut between code points, and an invalid one
 * fails in some chunk as it fails whole.
 */
const escapeCut: Cut = (str, end) => {
  let cut = str[end - 1] === "%" ? end - 1 : str[end - 2] === "%" ? end - 2 : end;
  for (let n = 0; n < 3 && str[cut] === "%" && /^[89ABab]$/.test(str[cut + 1] ?? ""); n++) cut += 3;
  return cut;
};

/**
 * Lower-casing maps each code point on its own but Σ, whose form (σ, or ς at
 * the end of a word) depends on the nearest characters on either side that
 * are not case-ignorable (marks, apostrophes, periods are skipped). A string
 * holding a Σ is cut between two characters that are not case-ignorable,
 * searched for from `end` on (a string with no such pair is converted in one
 * piece), and each chunk is converted between them: see {@link lowerInContext}.
 */
const sigmaCut: Cut = (str, end) => {
  const boundary = /\P{Case_Ignorable}(?=\P{Case_Ignorable})/gu;
  boundary.lastIndex = end - 1;
  const found = boundary.exec(str);
  return found ? found.index + found[0].length : str.length;
};

/** The code point that ends before unit `at`, or starts at it (`after`). */
function codePointNear(str: string, at: number, after: boolean): string {
  if (after) return at < str.length ? String.fromCodePoint(str.codePointAt(at)!) : "";
  if (at === 0) return "";
  const pair = at > 1 && (str.charCodeAt(at - 1) & 0xfc00) === 0xdc00 &&
    (str.charCodeAt(at - 2) & 0xfc00) === 0xd800;
  return str.slice(pair ? at - 2 : at - 1, at);
}

/**
 * Units `from` to `to` of `str` lower-cased as in the whole string: converted
 * with the code point on each side, whose own lower case (its length does not
 * depend on the context) is cut off again, so a Σ at a chunk's edge sees its
 * neighbours.
 */
function lowerInContext(str: string, from: number, to: number, lower: (text: string) => string): string {
  const before = codePointNear(str, from, false);
  const after = codePointNear(str, to, true);
  const text = lower(before + str.slice(from, to) + after);
  return text.slice(lower(before).length, text.length - lower(after).length);
}

/**
 * `convert(0, str.length)` as the concatenation of `convert` over chunks of about
 * {@link UNITS_PER_CHUNK} characters, each result charged and the guard paced
 * between chunks: for conversions that map pieces of the string on their own,
 * where `cut` puts the chunks' ends (`$encodeUrl` code points, `$base64encode`
 * groups of three units: the chunk size is a multiple of 3), so the pieces
 * join to the whole and a failure is the whole's.
 */
async function chunked(
  str: string,
  focus: Focus,
  convert: (from: number, to: number) => unknown,
  cut: Cut = pairCut,
): Promise<unknown> {
  if (str.length <= UNITS_PER_CHUNK) return convert(0, str.length);
  const guard = guarded(focus);
  const parts: string[] = [];
  for (let at = 0; at < str.length;) {
    const end = at + UNITS_PER_CHUNK < str.length ? cut(str, at + UNITS_PER_CHUNK) : str.length;
    const part = convert(at, end) as string;
    guard?.chargeChars(part.length);
    parts.push(part);
    at = end;
    if (at < str.length) await guard?.enter();
  }
  return parts.join("");
}

/**
 * Rethrows a failure naming a value (D3030, D3110, D3140) with `value`
 * quoted: that of one chunk, or of a stand-in, as the whole string's.
 */
function quotingValue(value: string): (err: unknown) => never {
  return (err) => {
    const code = (err as GuardFailure).code;
    throw code === "D3030" || code === "D3110" || code === "D3140"
      ? { ...(err as object), value: quoted(value) }
      : err;
  };
}

/** The guarded builtins, ready to bind into an expression's environment. */
export async function guardedBuiltins(): Promise<Record<string, Builtin>> {
  const o = await jsonataBuiltins();
  const wrap = (name: Name, implementation: Builtin["implementation"]): Builtin => ({
    ...o[name],
    implementation,
  });
  /** JSONata's own implementation of `name`. */
  const original = (name: Name, focus: Focus, ...args: unknown[]): unknown =>
    (o[name].implementation as (...a: unknown[]) => unknown).apply(focus, args);
  /** A builtin of one string converted in chunks (see {@link chunked}); a failure quotes the string. */
  const inChunks = (name: Name, cut?: Cut): Builtin =>
    wrap(name, function (this: Focus, str: unknown) {
      if (typeof str !== "string") return undefined;
      return chunked(str, this, (from, to) => original(name, this, str.slice(from, to)), cut)
        .catch(quotingValue(str));
    } as never);
  /** A builtin whose second argument is a number picture, capped (see {@link checkPicture}). */
  const pictured = (name: Name): Builtin =>
    wrap(name, function (this: Focus, ...args: unknown[]) {
      checkPicture(args[1]);
      return original(name, this, ...args);
    } as never);
  return {
    pad: wrap("pad", async function (this: Focus, str: unknown, width: unknown, char?: unknown) {
      if (typeof width === "number" && Number.isFinite(width)) {
        const charLength = typeof char === "string" && char.length ? char.length : 1;
        guarded(this)?.chargeChars(Math.abs(Math.trunc(width)) * charLength);
      }
      if (typeof str !== "string" || typeof width !== "number") {
        return original("pad", this, str, width, char);
      }
      // jsonata-js's steps, with code points counted and sliced without spreading the strings.
      const pace = pacer(this);
      const padLength = Math.abs(Math.trunc(width)) - await codePointLength(str, pace);
      if (!(padLength > 0)) return str;
      if (!Number.isFinite(padLength)) return original("pad", this, str, width, char);
      const padding = await codePointRepeat(
        typeof char === "string" && char.length ? char : " ",
        padLength,
        pace,
      );
      return width > 0 ? str + padding : padding + str;
    } as never),
    length: wrap("length", function (this: Focus, str: unknown) {
      return typeof str === "string" ? codePointLength(str, pacer(this)) : undefined;
    } as never),
    substring: wrap("substring", async function (this: Focus, str: unknown, start: number, length?: number) {
      if (typeof str !== "string") return undefined;
      // jsonata-js's rules over the code points (its `strArray`); the length is only needed from the end.
      const pace = pacer(this);
      const strLength = start < 0 ? await codePointLength(str, pace) : 0;
      const from = start < 0 && strLength + start < 0 ? 0 : start;
      if (length === undefined) return codePointSlice(str, from, undefined, pace);
      if (length <= 0) return "";
      return codePointSlice(str, from, from >= 0 ? from + length : strLength + from + length, pace);
    } as never),
    trim: wrap("trim", function (this: Focus, str: unknown) {
      if (typeof str !== "string") return undefined;
      guarded(this)?.chargeChars(str.length);
      return trimmed(str, pacer(this));
    } as never),
    join: wrap("join", function (this: Focus, strs: unknown, separator?: unknown) {
      if (Array.isArray(strs)) {
        const sep = typeof separator === "string" ? separator.length : 0;
        let total = Math.max(0, strs.length - 1) * sep;
        for (const s of strs) total += typeof s === "string" ? s.length : 0;
        guarded(this)?.chargeChars(total);
      }
      return original("join", this, strs, separator);
    } as never),
    match: wrap("match", function (this: Focus, str: unknown, regex: unknown, limit?: unknown) {
      return original("match", this, str, paced(regex, this), limit);
    } as never),
    split: wrap("split", function (this: Focus, str: unknown, separator: unknown, limit?: unknown) {
      if (typeof str !== "string" || typeof separator !== "string" || (limit as number) < 0) {
        return original("split", this, str, paced(separator, this), limit);
      }
      const guard = guarded(this);
      const charge = (pieces: number) => guard?.charge(pieces * PIECE_BYTES);
      return splitByString(str, separator, limit as number | undefined, charge, pacer(this));
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
      const result = await original("replace", this, ...args);
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
        return original("distinct", this, arr);
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
    sort: wrap("sort", async function (this: Focus, arr: unknown, comparator?: unknown) {
      // As jsonata-js: undefined stays undefined, an array of one is returned as it is (the signature wraps a non-array).
      if (arr === undefined) return undefined;
      const items = arr as unknown[];
      if (items.length <= 1) return items;
      if (comparator === undefined) checkSortable(items);
      const guard = guarded(this);
      guard?.chargeSlots(2 * items.length); // the copy being sorted and the merge buffer
      return await mergeSort(
        items,
        (comparator as Greater<unknown>) ?? greaterByDefault,
        () => guard?.enter(),
      );
    } as never),
    encodeUrl: inChunks("encodeUrl"),
    encodeUrlComponent: inChunks("encodeUrlComponent"),
    decodeUrl: inChunks("decodeUrl", escapeCut),
    decodeUrlComponent: inChunks("decodeUrlComponent", escapeCut),
    // Buffer's "binary" encoding takes each unit as a byte: a surrogate pair may be cut, a group of three may not.
    base64encode: inChunks("base64encode", (_str, end) => end),
    uppercase: inChunks("uppercase"),
    lowercase: wrap("lowercase", function (this: Focus, str: unknown) {
      if (typeof str !== "string") return undefined;
      const lower = (text: string) => original("lowercase", this, text) as string;
      // Without a Σ no code point's lower case depends on another: any cut between code points does.
      const cut = str.includes("\u03A3") ? sigmaCut : pairCut;
      return chunked(str, this, (from, to) => lowerInContext(str, from, to, lower), cut);
    } as never),
    number: wrap("number", async function (this: Focus, arg: unknown) {
      if (typeof arg !== "string") return original("number", this, arg);
      const standIn = await numberStandIn(arg, pacer(this));
      try {
        return original("number", this, standIn);
      } catch (err) {
        return quotingValue(arg)(err);
      }
    } as never),
    error: wrap("error", function (this: Focus, message?: unknown) {
      return original("error", this, typeof message === "string" ? quoted(message) : message);
    } as never),
    assert: wrap("assert", function (this: Focus, condition: unknown, message?: unknown) {
      return original("assert", this, condition, typeof message === "string" ? quoted(message) : message);
    } as never),
    fromMillis: wrap("fromMillis", function (this: Focus, ...args: unknown[]) {
      checkDatePicture(args[1]);
      return original("fromMillis", this, ...args);
    } as never),
    formatInteger: pictured("formatInteger"),
    formatNumber: pictured("formatNumber"),
    parseInteger: pictured("parseInteger"),
    toMillis: wrap("toMillis", async function (this: Focus, timestamp: unknown, picture?: unknown) {
      checkDatePicture(picture);
      if (typeof timestamp !== "string") return undefined;
      const Engine = picture === undefined ? undefined : guarded(this)?.regexEngine;
      if (Engine) {
        if (timestamp.length > MAX_PARSED_CHARS) {
          throw failure(
            "U1004",
            `a timestamp of ${timestamp.length} characters read by a picture is over the limit of ${MAX_PARSED_CHARS}`,
          );
        }
        await loadRegexEngine();
      }
      // A time without an offset is read as UTC, not in the host's zone (whose answer differed per server).
      const text = picture === undefined
        ? (await timestampStandIn(timestamp, pacer(this))).replace(/[T.][\d:.]*$/, "$&Z")
        : timestamp;
      try {
        const parse = () => original("toMillis", this, text, picture);
        return Engine ? parsedWith(Engine as never, parse) : parse();
      } catch (err) {
        return quotingValue(timestamp)(err);
      }
    } as never),
  };
}
