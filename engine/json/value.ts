/**
 * JSON values as the engine stores them, and the few helpers every module needs.
 *
 * Documents are treated as immutable outside a mutation cycle: writers copy the
 * containers they touch (see `runtime/document.ts`), readers may share structure.
 *
 * @module
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/**
 * Sets `object[key] = value` as an own enumerable data member whatever the key.
 * Where `Object.prototype` has the standard `__proto__` accessor (every browser;
 * Deno has only a stub), assigning `__proto__` would set the object's prototype
 * instead, losing a member that JSON.parse makes and documents may hold, so
 * that one name is defined; every other name is a plain, fast assignment.
 */
export function setMember<T>(object: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  } else object[key] = value;
}

/** True for a non-null, non-array object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** True for an object or an array. */
export function isContainer(value: unknown): value is JsonObject | Json[] {
  return typeof value === "object" && value !== null;
}

/** Deep structural equality of two JSON values (numbers by value). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return false;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!jsonEqual((a as JsonObject)[k], (b as JsonObject)[k])) return false;
  }
  return true;
}

/**
 * A deep copy of a JSON value (callers get copies, never the live state). A plain
 * recursive copy: an order of magnitude faster than `structuredClone` on the small
 * documents of the mutation path.
 */
export function cloneJson<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copy(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setMember(out, key, copy((value as Record<string, unknown>)[key]));
  }
  return out;
}

/**
 * Converts a JSONata result into plain JSON: sequences become arrays, functions
 * and `undefined` members are dropped. Returns `undefined` for "no value".
 * A NaN or Infinity anywhere in it throws a {@link RangeError}: JSON has no such number.
 * JSONata's lambdas and built-in functions are objects it marks (as its own
 * `isFunction` tests), so they are dropped as functions too.
 * A result nested deeper than `maxDepth` throws a {@link RangeError}.
 */
export function toPlainJson(value: unknown, maxDepth = Infinity, depth = 0): Json | undefined {
  if (value === undefined || typeof value === "function") return undefined;
  if (value === null || typeof value !== "object") {
    // Refused as an input is (engine/service/limits.ts), not stored as null in silence.
    if (typeof value === "number" && !isFinite(value)) {
      throw new RangeError(`the result holds ${value}, not a JSON number`);
    }
    return value as Json;
  }
  const fn = value as { _jsonata_lambda?: unknown; _jsonata_function?: unknown };
  if (fn._jsonata_lambda === true || fn._jsonata_function === true) return undefined;
  if (depth >= maxDepth) throw new RangeError(`the result is nested deeper than ${maxDepth} levels`);
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const item of value) {
      const plain = toPlainJson(item, maxDepth, depth + 1);
      if (plain !== undefined) out.push(plain);
    }
    return out;
  }
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const plain = toPlainJson(v, maxDepth, depth + 1);
    if (plain !== undefined) setMember(out, k, plain);
  }
  return out;
}
