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
  // Loops and concatenation rather than map/filter/join: this runs for every audit record.
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      out += value[i] === undefined ? "null" : canonicalJson(value[i]);
    }
    return out + "]";
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = "{";
  for (const key of keys) {
    const member = record[key];
    if (member === undefined) continue;
    if (out.length > 1) out += ",";
    out += JSON.stringify(key) + ":" + canonicalJson(member);
  }
  return out + "}";
}
