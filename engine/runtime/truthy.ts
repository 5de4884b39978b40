/**
 * JSONata's boolean casting (`$boolean`), used for triggers and constraints.
 *
 * @module
 */

/** JSONata truthiness: false, 0, "", null, empty arrays/objects and functions are false. */
export function truthy(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.some(truthy);
  switch (typeof value) {
    case "boolean":
      return value;
    case "number":
      return value !== 0;
    case "string":
      return value.length > 0;
    case "object":
      return Object.keys(value).length > 0;
    default:
      return false;
  }
}
