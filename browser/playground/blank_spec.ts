/**
 * The spec "New model" starts from: two fields, a derivation, a rollback
 * constraint, a view and a test, so every panel has something to show.
 *
 * @module
 */

/** A blank spec to start a new model from. */
export const BLANK_SPEC = {
  id: "my-model",
  version: "1.0.0",
  schema: { type: "object", properties: { qty: { type: "integer", minimum: 0 }, price: { type: "number" } } },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  constraints: [{
    id: "cap",
    expr: "$not(total > 1000)",
    message: "The total may not exceed 1000",
    policy: "rollback",
  }],
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "My model",
      components: [
        { id: "qty", type: "numericField", label: "Quantity", bind: "$.qty" },
        { id: "price", type: "currencyField", label: "Price", bind: "$.price", currency: "EUR" },
        {
          id: "total",
          type: "statTile",
          label: "Total",
          bind: "$.total",
          format: "currency",
          currency: "EUR",
        },
      ],
    }],
  },
  tests: [{
    description: "total is qty times price",
    given: { "$.qty": 2, "$.price": 3 },
    expect: { "$.total": 6 },
  }],
};
