/**
 * jsonata-js's grouping over an empty array pushes an undefined item into
 * that array (so a literal object is still built), and the array may be the
 * caller's: `tags{'k': n}` over `tags: []` left `tags: [null]` in the committed
 * state. A JSON value never holds undefined, so a one-item array of undefined
 * is such an extension, and emptying it again undoes it. The guard undoes the
 * one it can name on the spot (guard.ts); else the evaluation's input and
 * bindings are scanned once it ends.
 *
 * @module
 */

/** True for an array jsonata-js's grouping extended. */
export function isExtended(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length === 1 && value[0] === undefined;
}

/** Empties every extended array reachable through the plain objects and arrays of `value`. */
export function restoreExtended(value: unknown, seen = new Set<object>()): void {
  if (value === null || typeof value !== "object" || seen.has(value)) return;
  seen.add(value);
  if (isExtended(value)) value.length = 0;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value) || proto === Object.prototype || proto === null) {
    for (const item of Object.values(value)) restoreExtended(item, seen);
  }
}
