/**
 * The benchmark models: each names its spec, the mutation of its n-th timed call,
 * and the JSONata evaluations that mutation needs at minimum (what an ideal
 * incremental engine recomputes) or at most (what a full recompute evaluates).
 *
 * @module
 */
import type { Json, JsonObject, ModelSpec } from "../engine/mod.ts";
import type { SpreadsheetWorkload } from "./hyperformula.ts";

/** One JSONata evaluation: an expression, with `$parent` bound for per-element ones. */
export interface Evaluation {
  expression: string;
  parent?: Json;
}

/** A benchmark model and the work of one mutation on it. */
export interface Scenario {
  label: string;
  spec: ModelSpec;
  /** Written once before timing (as one mutation) to populate the document. */
  seed: Record<string, Json>;
  /** The mutation of the n-th call. */
  mutation(call: number): Record<string, Json>;
  /** The evaluations the n-th mutation needs on `doc` (the merged state). */
  recompute(doc: Json, call: number): Evaluation[];
  /** Every evaluation of the model on `doc`, as a non-incremental engine would do. */
  everything(doc: Json): Evaluation[];
  /** The same workload as a spreadsheet, where there is one. */
  spreadsheet?: SpreadsheetWorkload;
}

/** (a) `count` inputs, each read by exactly one derivation; one input changes per mutation. */
export function independentDerivations(count: number): Scenario {
  const input = (i: number) => `in${i}`;
  const expression = (i: number) => `${input(i)} * 2 + 1`;
  const properties: JsonObject = {};
  const seed: Record<string, Json> = {};
  for (let i = 0; i < count; i++) {
    properties[input(i)] = { type: "number" };
    properties[`out${i}`] = { type: "number", readOnly: true };
    seed[`$.${input(i)}`] = i;
  }
  const indices = [...Array(count).keys()];
  return {
    label: `(a) ${count.toLocaleString("en")} independent derivations`,
    spec: {
      id: "bench-independent",
      schema: { type: "object", properties },
      derivations: indices.map((i) => ({ path: `$.out${i}`, expr: expression(i) })),
    },
    seed,
    mutation: (call) => ({ [`$.${input(call % count)}`]: call }),
    recompute: (_doc, call) => [{ expression: expression(call % count) }],
    everything: () => indices.map((i) => ({ expression: expression(i) })),
  };
}

const LINE_TOTAL = "$parent.price * $parent.qty";
const ORDER_TOTAL = "$sum(items.lineTotal)";

/**
 * (b) An order with `count` items, a per-item lineTotal and their sum; one item's qty changes per
 * mutation. Prices in quarters keep every sum exact (the O(1) path of the incremental `$sum`);
 * decimal prices (`x.37`) round, so the sum is refolded in order on each change.
 */
export function orderItems(count: number, prices: "quarters" | "decimal" = "quarters"): Scenario {
  const items = Array.from({ length: count }, (_, i) => ({
    sku: `sku-${i}`,
    price: prices === "quarters" ? 1 + (i % 100) / 4 : 1 + (i % 100) * 0.37,
    qty: 1 + (i % 5),
  }));
  // Spread the touched items over the whole array (7919 is prime, so every index comes up).
  const itemOf = (call: number) => (call * 7919) % count;
  const itemsOf = (doc: Json) => (doc as { items: Json[] }).items;
  const qtyOf = (call: number) => 1 + (call % 97);
  return {
    label: `(b) order, N = ${count.toLocaleString("en")}${prices === "decimal" ? ", decimal prices" : ""}`,
    spec: {
      id: "bench-order",
      schema: {
        type: "object",
        properties: {
          items: {
            type: "array",
            items: {
              type: "object",
              properties: {
                sku: { type: "string" },
                price: { type: "number", minimum: 0 },
                qty: { type: "integer", minimum: 1 },
                lineTotal: { type: "number", readOnly: true },
              },
              required: ["sku", "price", "qty"],
            },
          },
          total: { type: "number", readOnly: true },
        },
      },
      derivations: [
        { path: "$.items[*].lineTotal", expr: LINE_TOTAL },
        { path: "$.total", expr: ORDER_TOTAL },
      ],
    },
    seed: { "$.items": items },
    mutation: (call) => ({ [`$.items[${itemOf(call)}].qty`]: qtyOf(call) }),
    recompute: (doc, call) => [
      { expression: LINE_TOTAL, parent: itemsOf(doc)[itemOf(call)] },
      { expression: ORDER_TOTAL },
    ],
    everything: (doc) => [
      ...itemsOf(doc).map((item) => ({ expression: LINE_TOTAL, parent: item })),
      { expression: ORDER_TOTAL },
    ],
    spreadsheet: { rows: items, change: (call) => ({ row: itemOf(call), qty: qtyOf(call) }) },
  };
}
