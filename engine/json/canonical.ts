/**
 * Canonical JSON: object keys sorted by code unit, no whitespace. Used for the
 * audit hash chain so that the same record always hashes the same way.
 *
 * @module
 */

/** Serialises a value with sorted keys and no whitespace (`undefined` members dropped). */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text === undefined ? "null" : text;
  }
  if (Array.isArray(value)) {
    return "[" + value.map((v) => v === undefined ? "null" : canonicalJson(v)).join(",") + "]";
  }
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return "{" +
    keys.map((k) => JSON.stringify(k) + ":" + canonicalJson((value as Record<string, unknown>)[k]))
      .join(",") +
    "}";
}
