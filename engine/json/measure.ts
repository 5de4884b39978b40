/**
 * Measuring JSON values without recursion: their serialized size in UTF-8
 * bytes (exactly `JSON.stringify`'s, escapes included), their nesting depth, and whether they hold anything JSON cannot store (a
 * non-finite number). The walk is iterative, so a value nested 100,000 deep is
 * measured (and refused) instead of overflowing the stack; it stops as soon as
 * the value is known to be too deep.
 *
 * @module
 */

/** What a walk found. */
export type Measure =
  | { ok: true; bytes: number; depth: number }
  | { ok: false; reason: "depth"; depth: number }
  | { ok: false; reason: "non-finite"; path: (string | number)[] };

/** Strings that are their own JSON text between the quotes, one byte a character: printable ASCII but `"` and `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** UTF-8 bytes of each ASCII character in a JSON string: `\n`-style escapes 2, other controls `\u00XX` 6. */
const ASCII_BYTES = Uint8Array.from(
  { length: 128 },
  (_, c) =>
    c === 8 || c === 9 || c === 10 || c === 12 || c === 13 || c === 0x22 || c === 0x5c ? 2 : c < 0x20 ? 6 : 1,
);

/**
 * The UTF-8 bytes of `JSON.stringify(value)`, quotes included: escapes, 2 or 3
 * bytes a BMP character, 4 a surrogate pair, 6 a lone surrogate (`\udXXX`).
 * A string of printable ASCII (most) is answered by one native regex test.
 */
export function jsonStringBytes(value: string): number {
  if (PLAIN.test(value)) return value.length + 2;
  let bytes = 2;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) bytes += ASCII_BYTES[unit];
    else if (unit < 0x800) bytes += 2;
    else if (unit < 0xd800 || unit > 0xdfff) bytes += 3;
    else if (unit <= 0xdbff && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 6;
  }
  return bytes;
}

/**
 * JSON bytes of a scalar. A number other than an integer below 1e15 is
 * measured by formatting it (about 0.2 µs; `JSON.stringify` writes what
 * `String` does, all ASCII).
 */
function scalarBytes(value: unknown): number {
  switch (typeof value) {
    case "string":
      return jsonStringBytes(value);
    case "number":
      return Number.isInteger(value) && Math.abs(value) < 1e15 ? integerLength(value) : String(value).length;
    case "boolean":
      return value ? 4 : 5;
    default:
      return 4; // null
  }
}

/** `String(value).length` of an integer below 1e15 in magnitude, without building the string. */
function integerLength(value: number): number {
  let length = value < 0 ? 2 : 1;
  for (let limit = 10, magnitude = Math.abs(value); magnitude >= limit; limit *= 10) length++;
  return length;
}

/**
 * Measures `value`: JSON bytes (the UTF-8 length of its serialization) and
 * depth (a scalar is 0, a container one more than its deepest member). Stops with `depth` as soon as a
 * container lies deeper than `maxDepth`, and with `non-finite` (and where) at
 * the first NaN or Infinity. `undefined` members count as absent. Past
 * `maxBytes` it stops too: `bytes` then only says the value is larger.
 */
export function measureJson(value: unknown, maxDepth = Infinity, maxBytes = Infinity): Measure {
  let bytes = 0;
  let depth = 0;
  const stack: { value: unknown; depth: number; key: string | number | null; parent: number }[] = [
    { value, depth: 0, key: null, parent: -1 },
  ];
  // Parent links, only to name the path of a non-finite number.
  const visited: { key: string | number | null; parent: number }[] = [];
  while (stack.length && bytes <= maxBytes) {
    const item = stack.pop()!;
    const v = item.value;
    if (v === null || typeof v !== "object") {
      if (typeof v === "number" && !Number.isFinite(v)) {
        const path: (string | number)[] = [item.key as string | number];
        for (let p = item.parent; p >= 0 && visited[p].key !== null; p = visited[p].parent) {
          path.unshift(visited[p].key as string | number);
        }
        return { ok: false, reason: "non-finite", path: item.key === null ? [] : path };
      }
      bytes += scalarBytes(v);
      continue;
    }
    const level = item.depth + 1;
    if (level > maxDepth) return { ok: false, reason: "depth", depth: level };
    if (level > depth) depth = level;
    const index = visited.push({ key: item.key, parent: item.parent }) - 1;
    bytes += 2;
    if (Array.isArray(v)) {
      bytes += Math.max(0, v.length - 1);
      // An element is a byte at least: an array past `maxBytes` by its length alone is not walked.
      if (bytes + v.length > maxBytes) bytes += v.length;
      else {
        for (let i = v.length - 1; i >= 0; i--) {
          stack.push({ value: v[i], depth: level, key: i, parent: index });
        }
      }
    } else {
      let members = 0;
      for (const key of Object.keys(v)) {
        if (bytes > maxBytes) break;
        const member = (v as Record<string, unknown>)[key];
        if (member === undefined) continue;
        bytes += jsonStringBytes(key) + 1;
        members++;
        stack.push({ value: member, depth: level, key, parent: index });
      }
      bytes += Math.max(0, members - 1);
    }
  }
  return { ok: true, bytes, depth };
}

/** JSON bytes of a value (see {@link measureJson}, `maxBytes` too); `undefined` is 0. */
export function jsonBytes(value: unknown, maxBytes?: number): number {
  if (value === undefined) return 0;
  // Most writes are scalars: measured without the walk (a non-finite number is 0, as the walk refuses it).
  if (value === null || typeof value !== "object") {
    return typeof value === "number" && !Number.isFinite(value) ? 0 : scalarBytes(value);
  }
  const measured = measureJson(value, Infinity, maxBytes);
  return measured.ok ? measured.bytes : 0;
}
