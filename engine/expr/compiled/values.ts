/**
 * JSONata's value rules as compiled expressions apply them: what counts as a
 * number, effective boolean value, deep equality, and `$string`'s text.
 * Ported from jsonata 2.2.2 (`isNumeric`, `fn.boolean`, `isDeepEqual`,
 * `fn.string`); where jsonata-js throws, these bail (see `context.ts`).
 *
 * @module
 */
import { bail } from "./context.ts";

/** `isFunction` of a value of a document: an object flagged as a JSONata function or lambda. */
export function isFunctionLike(value: unknown): boolean {
  const flagged = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flagged._jsonata_function === true || flagged._jsonata_lambda === true;
}

/** `isNumeric`: a number that is not NaN; an infinite one is an error (D1001). */
export function isNumeric(value: unknown): value is number {
  if (typeof value !== "number" || Number.isNaN(value)) return false;
  if (!Number.isFinite(value)) bail();
  return true;
}

/** `fn.boolean`: JSONata's effective boolean value (undefined for nothing). */
export function toBoolean(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 1) return toBoolean(value[0]);
    if (value.length > 1) {
      let trues = 0;
      for (let i = 0; i < value.length; i++) if (toBoolean(value[i])) trues++;
      return trues > 0;
    }
    return false;
  }
  if (typeof value === "string") return value.length > 0;
  if (isNumeric(value)) return value !== 0;
  if (value !== null && typeof value === "object") {
    return !isFunctionLike(value) && Object.keys(value).length > 0;
  }
  return value === true;
}

/** `isDeepEqual`, except that an array compared with an object bails (jsonata-js compares their property names). */
export function deepEqual(lhs: unknown, rhs: unknown): boolean {
  if (lhs === rhs) return true;
  if (typeof lhs !== "object" || typeof rhs !== "object" || lhs === null || rhs === null) return false;
  const lArray = Array.isArray(lhs);
  if (lArray !== Array.isArray(rhs)) bail();
  if (lArray) {
    const l = lhs as unknown[];
    const r = rhs as unknown[];
    if (l.length !== r.length) return false;
    for (let i = 0; i < l.length; i++) if (!deepEqual(l[i], r[i])) return false;
    return true;
  }
  const lKeys = Object.getOwnPropertyNames(lhs).sort();
  const rKeys = Object.getOwnPropertyNames(rhs).sort();
  if (lKeys.length !== rKeys.length) return false;
  for (let i = 0; i < lKeys.length; i++) if (lKeys[i] !== rKeys[i]) return false;
  for (const key of lKeys) {
    if (!deepEqual((lhs as Record<string, unknown>)[key], (rhs as Record<string, unknown>)[key])) {
      return false;
    }
  }
  return true;
}

/** JSONata's number formatting: 15 significant digits for non-integers. Non-finite numbers bail. */
function replacer(_key: string, value: unknown): unknown {
  if (typeof value === "number") {
    // jsonata-js fails on a bare NaN (D3001) and on ±Infinity, and writes a nested NaN as null: the interpreter says which.
    if (!Number.isFinite(value)) bail();
    return Number.isInteger(value) ? value : Number(value.toPrecision(15));
  }
  return value !== null && typeof value === "object" && isFunctionLike(value) ? "" : value;
}

/** `fn.string` of a defined value. */
export function stringOf(value: unknown, prettify = false): string {
  if (typeof value === "string") return value;
  // What JSON.stringify writes for a number through the replacer, without its machinery.
  if (typeof value === "number") return String(replacer("", value));
  if (value !== null && typeof value === "object" && isFunctionLike(value)) return "";
  const target = Array.isArray(value) && (value as { outerWrapper?: boolean }).outerWrapper
    ? value[0]
    : value;
  return JSON.stringify(target, replacer, prettify ? 2 : 0);
}
