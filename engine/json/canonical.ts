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
  // Most containers of a record (paths, a write's few members) hold only scalars and keep their keys
  // in order: there the native serialiser writes the same text, several times faster.
  if (isFlatAndOrdered(value)) return JSON.stringify(value);
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

/** Whether a JSON scalar: what `JSON.stringify` writes the same inside a container as alone. */
function isScalar(value: unknown): boolean {
  const type = typeof value;
  return value === null || type === "string" || type === "number" || type === "boolean";
}

/**
 * Whether every member of a container is a scalar and an object's keys are
 * already in code-unit order, without a `toJSON` of its own: then
 * `JSON.stringify` writes exactly the canonical text.
 */
function isFlatAndOrdered(value: object): boolean {
  return membersInOrder(value, isScalar);
}

/**
 * Whether `JSON.stringify(value)` writes exactly `canonicalJson(value)`: at
 * every depth, object keys in code-unit order without a `toJSON`, and nothing
 * but JSON values (no `undefined`, which the two would write differently).
 * One walk that builds nothing, then one native serialisation, is several
 * times cheaper than the general way for a value that already is in order.
 */
export function stringifiesCanonically(value: unknown): boolean {
  return value !== null && typeof value === "object"
    ? membersInOrder(value, stringifiesCanonically)
    : isScalar(value);
}

/** Whether every member of a container is `accepted`, an object's keys in code-unit order, without a `toJSON`. */
function membersInOrder(value: object, accepted: (member: unknown) => boolean): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!accepted(value[i])) return false;
    return true;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && !(keys[i - 1] < keys[i])) return false;
    if (!accepted((value as Record<string, unknown>)[keys[i]])) return false;
  }
  return true;
}
