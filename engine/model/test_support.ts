/**
 * Fixtures shared by the unit tests of the spec compiler and its sections.
 *
 * @module
 */

/** A small valid spec; tests override sections. */
export function spec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "shop/order",
    schema: {
      type: "object",
      properties: {
        qty: { type: "number" },
        price: { type: "number" },
        items: { type: "array", items: { type: "object", properties: { qty: { type: "number" } } } },
      },
    },
    ...extra,
  };
}
