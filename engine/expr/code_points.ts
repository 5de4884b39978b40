/**
 * Strings as sequences of code points without building the sequence.
 *
 * jsonata-js's `$length`, `$substring` and `$pad` spread a string into an
 * array of code points (`for…of`) before counting or slicing it: 8.5 s and
 * gigabytes for a 40-million-character string, in one native step the guard
 * cannot interrupt. These give the same answers by walking the UTF-16 units
 * (a lone surrogate is a code point of its own, as `for…of` yields it) in
 * chunks of {@link UNITS_PER_PACE}, calling the caller's pacing (deadline,
 * yield) between chunks, and skip the walk when the string holds no surrogate.
 *
 * @module
 */

/** Units walked between two calls of the pacing callback. */
export const UNITS_PER_PACE = 1 << 20;

/** Called between chunks of a walk: may throw (a deadline) or return a promise to wait for (a yield). */
export type Pace = () => Promise<void> | undefined;

const SURROGATE = /[\uD800-\uDFFF]/;

/** Whether a surrogate pair (one code point) starts at unit `i`. */
function isPairAt(str: string, i: number): boolean {
  const unit = str.charCodeAt(i);
  if (unit < 0xd800 || unit > 0xdbff || i + 1 >= str.length) return false;
  const next = str.charCodeAt(i + 1);
  return next >= 0xdc00 && next <= 0xdfff;
}

/**
 * The unit offset `points` code points after unit `from` (the string's
 * length when it ends first), and how many code points were passed.
 */
async function advance(str: string, from: number, points: number, pace: Pace): Promise<[number, number]> {
  let unit = from;
  let passed = 0;
  while (passed < points && unit < str.length) {
    const stop = Math.min(str.length, unit + UNITS_PER_PACE);
    for (; passed < points && unit < stop; passed++) unit += isPairAt(str, unit) ? 2 : 1;
    if (passed < points && unit < str.length) await pace();
  }
  return [unit, passed];
}

/** The number of code points of `str` (`Array.from(str).length`). */
export async function codePointLength(str: string, pace: Pace): Promise<number> {
  return SURROGATE.test(str) ? (await advance(str, 0, Infinity, pace))[1] : str.length;
}

/** An `Array.prototype.slice` index (ToIntegerOrInfinity, from the end when negative), at least 0. */
async function sliceIndex(str: string, index: number, pace: Pace): Promise<number> {
  const n = Number.isNaN(index) ? 0 : Math.trunc(index);
  return n < 0 ? Math.max(await codePointLength(str, pace) + n, 0) : n;
}

/**
 * `Array.from(str).slice(start, end).join("")`: the code points from `start`
 * to `end` (exclusive; `Array.prototype.slice` rules for negative, fractional
 * and out-of-range indexes).
 */
export async function codePointSlice(
  str: string,
  start: number,
  end: number | undefined,
  pace: Pace,
): Promise<string> {
  const from = await sliceIndex(str, start, pace);
  const to = end === undefined ? Infinity : await sliceIndex(str, end, pace);
  if (from >= to) return "";
  if (!SURROGATE.test(str)) return str.slice(from, to);
  const [unitFrom] = await advance(str, 0, from, pace);
  const [unitTo] = await advance(str, unitFrom, to - from, pace);
  return str.slice(unitFrom, unitTo);
}

/**
 * `fill` repeated to `points` code points (jsonata-js's `$pad` padding:
 * `Array.from(fill.repeat(points)).slice(0, points).join("")`), built from
 * whole copies of `fill` when repeating it forms no new surrogate pair.
 */
export async function codePointRepeat(fill: string, points: number, pace: Pace): Promise<string> {
  const joins = fill.length > 1 && isPairAt(fill.charAt(fill.length - 1) + fill.charAt(0), 0);
  if (joins) return codePointSlice(fill.repeat(points), 0, points, pace);
  const size = await codePointLength(fill, pace);
  return fill.repeat(Math.floor(points / size)) + await codePointSlice(fill, 0, points % size, pace);
}
