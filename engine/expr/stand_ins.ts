/**
 * Short stand-ins for long strings that jsonata-js parses with native calls.
 *
 * `$number` tests a string against two regexes, then `parseFloat`s it and
 * `isFinite`s it; `$toMillis` tests it against its ISO-8601 regex, then
 * `Date.parse`s it. Each is one native pass (about 0.3 s each over 40 million
 * characters) that the guard cannot interrupt. These walk a long string in
 * paced chunks of {@link UNITS_PER_PACE} and give a short string for which
 * jsonata-js's own code gives the same answer (value, or failure code), so
 * the builtin runs on the stand-in. Strings of at most {@link LONG_TEXT}
 * characters are their own stand-ins.
 *
 * @module
 */
import { type Pace, UNITS_PER_PACE } from "./code_points.ts";

/** Longest string jsonata-js parses as it is. */
export const LONG_TEXT = 1000;

/**
 * The end of the run of characters of `kind` (a one-character class, `/[0-9]/`)
 * that starts at unit `from`: its regex is tested on chunks, not on the string.
 */
async function runEnd(text: string, from: number, kind: RegExp, pace: Pace): Promise<number> {
  const other = new RegExp(`[^${kind.source.slice(1, -1)}]`);
  for (let at = from; at < text.length; at += UNITS_PER_PACE) {
    const found = text.slice(at, at + UNITS_PER_PACE).search(other);
    if (found >= 0) return at + found;
    await pace();
  }
  return text.length;
}

/** Whether a character of `kind` occurs in units `from` to `to`. */
async function occurs(text: string, from: number, to: number, kind: RegExp, pace: Pace): Promise<boolean> {
  for (let at = from; at < to; at += UNITS_PER_PACE) {
    if (kind.test(text.slice(at, Math.min(to, at + UNITS_PER_PACE)))) return true;
    await pace();
  }
  return false;
}

/** Significant digits a decimal stand-in keeps: V8 rounds from the first 772 and whether any other is not 0. */
const SIGNIFICANT_DIGITS = 800;

/** Exponents beyond this make any stand-in's value 0 or Infinity: larger ones are clamped. */
const EXPONENT_CLAMP = 1e10;

/** A stand-in nothing parses: jsonata-js refuses it (`$number` D3030, `$toMillis` D3110). */
const UNPARSABLE = "x";

/**
 * A decimal number (`-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?`, jsonata-js's
 * first test) as a sign, at most {@link SIGNIFICANT_DIGITS} digits (plus a `1`
 * when a dropped digit is not 0) and an exponent; null when `text` is not one.
 */
async function decimalStandIn(text: string, pace: Pace): Promise<string | null> {
  const digit = /[0-9]/;
  const zero = /[0]/;
  const sign = text[0] === "-" ? "-" : "";
  const intEnd = await runEnd(text, sign.length, digit, pace);
  if (intEnd === sign.length) return null;
  let digitsEnd = intEnd;
  if (text[intEnd] === ".") {
    digitsEnd = await runEnd(text, intEnd + 1, digit, pace);
    if (digitsEnd === intEnd + 1) return null;
  }
  const fraction = digitsEnd === intEnd ? 0 : digitsEnd - intEnd - 1;
  let exponent = 0;
  let end = digitsEnd;
  if (text[end] === "e" || text[end] === "E") {
    const expStart = end + (text[end + 1] === "-" || text[end + 1] === "+" ? 2 : 1);
    end = await runEnd(text, expStart, digit, pace);
    if (end === expStart) return null;
    const significant = await runEnd(text, expStart, zero, pace);
    const magnitude = end - significant > 10 ? EXPONENT_CLAMP : Number(text.slice(significant, end) || 0);
    exponent = text[expStart - 1] === "-" ? -magnitude : magnitude;
  }
  if (end !== text.length) return null;
  // The significant digits (the point left out) start at the first digit that is not 0.
  let first = await runEnd(text, sign.length, zero, pace);
  if (first === intEnd && fraction) first = await runEnd(text, intEnd + 1, zero, pace);
  if (first >= digitsEnd) return `${sign}0`;
  const spansPoint = first < intEnd && fraction > 0;
  const count = digitsEnd - first - (spansPoint ? 1 : 0);
  let kept = text.slice(first, Math.min(digitsEnd, first + SIGNIFICANT_DIGITS + 1)).replace(".", "")
    .slice(0, SIGNIFICANT_DIGITS);
  const keptEnd = first + kept.length + (spansPoint && first + kept.length > intEnd ? 1 : 0);
  if (await occurs(text, keptEnd, digitsEnd, /[1-9]/, pace)) kept += "1";
  return `${sign}${kept}e${exponent - fraction + count - kept.length}`;
}

/**
 * The stand-in of a string jsonata-js's `$number` does not read as a decimal:
 * it then tests `^(0[xX][0-9A-Fa-f]+)|(0[oO][0-7]+)|(0[bB][0-1]+)$` (whose
 * last two alternatives are not anchored at the start) and answers
 * `Number(text)`: a whole hexadecimal, octal or binary literal between
 * whitespace, else NaN.
 */
async function prefixedStandIn(text: string, pace: Pace): Promise<string> {
  const hex = /^0[xX][0-9A-Fa-f]$/.test(text.slice(0, 3));
  const binaryRun = await trailingRun(text, /[01]/, pace);
  const binary = binaryRun > 0 &&
    /^0[bB]$/.test(text.slice(Math.max(0, text.length - binaryRun - 2), text.length - binaryRun));
  if (!hex && !binary && !await occursAcross(text, /0[oO][0-7]/, pace)) return UNPARSABLE;
  // `Number` reads the text between whitespace (that of regexes' `\s`).
  const space = /[\s]/;
  const start = await runEnd(text, 0, space, pace);
  const end = text.length - await trailingRun(text, space, pace);
  const radix = text.slice(start, start + 2);
  const kind = /^0[xX]$/.test(radix)
    ? /[0-9A-Fa-f]/
    : /^0[oO]$/.test(radix)
    ? /[0-7]/
    : /^0[bB]$/.test(radix)
    ? /[01]/
    : null;
  // Not one whole literal: NaN, which this stand-in (passing the test, no literal) gives too.
  if (!kind || end - start < 3 || await runEnd(text, start + 2, kind, pace) < end) return "x0o7";
  const first = await runEnd(text, start + 2, /[0]/, pace);
  // Over 1100 significant digits is over 2^1100: Infinity, as 1101 ones are.
  return radix + (end - first > 1100 ? "1".repeat(1101) : text.slice(first, end) || "0");
}

/** The length of the run of characters of `kind` (a one-character class) that ends `text`. */
async function trailingRun(text: string, kind: RegExp, pace: Pace): Promise<number> {
  const last = new RegExp(`[^${kind.source.slice(1, -1)}]${kind.source}*$`);
  for (let to = text.length; to > 0; to -= UNITS_PER_PACE) {
    const from = Math.max(0, to - UNITS_PER_PACE);
    const other = text.slice(from, to).search(last);
    if (other >= 0) return text.length - (from + other + 1);
    await pace();
  }
  return text.length;
}

/** Whether `pattern` (of at most three characters) occurs in `text`, tested on overlapping chunks. */
async function occursAcross(text: string, pattern: RegExp, pace: Pace): Promise<boolean> {
  for (let at = 0; at < text.length; at += UNITS_PER_PACE) {
    if (pattern.test(text.slice(at, at + UNITS_PER_PACE + 2))) return true;
    await pace();
  }
  return false;
}

/** A string with jsonata-js's `$number` answer (or failure) for `text`. */
export async function numberStandIn(text: string, pace: Pace): Promise<string> {
  if (text.length <= LONG_TEXT) return text;
  const decimal = await decimalStandIn(text, pace);
  // A decimal that is not finite fails the second test too: it holds no x, o or b.
  return decimal ?? await prefixedStandIn(text, pace);
}

/** Fraction digits an ISO-8601 stand-in keeps, past its leading zeros (V8's `Date.parse` reads 9). */
const FRACTION_DIGITS = 20;

/**
 * A string with jsonata-js's `$toMillis` answer (or D3110) for `text` without
 * a picture. Its regex bounds every part of a timestamp but the fraction of a
 * second (`(\.\d+)?`): a long timestamp keeps its date, time and zone and at
 * most 20 of the fraction's leading zeros and 20 of its other digits, which
 * `Date.parse` reads alike.
 */
export async function timestampStandIn(text: string, pace: Pace): Promise<string> {
  if (text.length <= LONG_TEXT) return text;
  const point = text.indexOf(".");
  // Without a fraction the regex matches at most 25 characters; date and time take at most 19.
  if (point < 0 || point > 19) return UNPARSABLE;
  const digitsEnd = await runEnd(text, point + 1, /[0-9]/, pace);
  if (text.length - digitsEnd > 6) return UNPARSABLE;
  const significant = await runEnd(text, point + 1, /[0]/, pace);
  const zeros = Math.min(significant, digitsEnd) - point - 1;
  return text.slice(0, point + 1) + "0".repeat(Math.min(zeros, FRACTION_DIGITS)) +
    text.slice(point + 1 + zeros, Math.min(digitsEnd, point + 1 + zeros + FRACTION_DIGITS)) +
    text.slice(digitsEnd);
}
