import assert from "node:assert/strict";
import { commitMutation, commitPatch, rejectsWith, runtimeOf } from "../_test_utils.ts";
import type { Json } from "../json/value.ts";
import { orderRuntime } from "./test_support.ts";

Deno.test("defaultValues fill newly created containers; existing values are kept; mutatedPaths lists them after the caller's keys", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.items[3].price": 7 });
  assert.deepEqual(result!.mutatedPaths, ["$.items[3].price", "$.items[3].qty", "$.items[3].type"]);
  assert.deepEqual(await runtime.readField("$.items[3]"), { price: 7, qty: 1, type: "std", lineTotal: 7 });
  const explicit = await commitMutation(runtime, { "$.items[4]": { qty: 9, price: 1 } });
  assert.deepEqual(explicit!.mutatedPaths, ["$.items[4]", "$.items[4].type"]);
  assert.deepEqual(await runtime.readField("$.items[4]"), { qty: 9, price: 1, type: "std", lineTotal: 9 });
  const existing = await commitMutation(runtime, { "$.items[0].qty": 2 });
  assert.deepEqual(existing!.mutatedPaths, ["$.items[0].qty"], "an existing element is not a new container");
});

Deno.test("schema defaults fill newly created objects", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.customer.name": "Ada" });
  assert.deepEqual(result!.mutatedPaths, ["$.customer.name", "$.customer.tier"]);
  assert.deepEqual(await runtime.readField("$.customer"), { name: "Ada", tier: "basic" });
  await commitMutation(runtime, { "$.customer.tier": "gold" });
  await commitMutation(runtime, { "$.customer.name": "Bob" });
  assert.deepEqual(await runtime.readField("$.customer"), { name: "Bob", tier: "gold" });
});

const DEFAULTED = {
  id: "defaulted",
  schema: {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          properties: { qty: { type: "integer", default: "many" }, tag: { type: "string" } },
        },
      },
      rows: {
        type: "array",
        items: { type: "object", properties: { size: { type: "integer", minimum: 1 } } },
      },
    },
  },
  defaultValues: [{ path: "$.rows[*]", expr: "{'size': 0}" }],
};

Deno.test("a schema default the schema refuses fails the write naming it, state untouched", async () => {
  const { runtime } = await runtimeOf(DEFAULTED);
  const before = structuredClone(await runtime.readState());
  await rejectsWith(
    () => commitMutation(runtime, { "$.items[0].tag": "a" }),
    "validation_failed",
    /default for \$\.items\[0\]\.qty from the schema default violates the schema/,
  );
  assert.deepEqual(await runtime.readState(), before);
});

Deno.test("a defaultValues rule producing a value the schema refuses fails the write naming the rule", async () => {
  const { runtime } = await runtimeOf(DEFAULTED);
  await rejectsWith(
    () => commitMutation(runtime, { "$.rows[0].size": 3, "$.rows[1]": {} }),
    "validation_failed",
    /defaultValues rule \$\.rows\[\*\]/,
    /minimum|>= 1/,
  );
  assert.deepEqual(await runtime.readState(), {});
});

Deno.test("a schema default fills a member named like an Object.prototype property", async () => {
  const { runtime } = await runtimeOf({
    id: "proto-default",
    schema: {
      type: "object",
      properties: {
        car: { type: "object", properties: { constructor: { type: "string", default: "Ferrari" } } },
      },
    },
  });
  const result = await commitMutation(runtime, { "$.car.seats": 2 });
  assert.deepEqual(result!.mutatedPaths, ["$.car.seats", "$.car.constructor"]);
  assert.deepEqual(runtime.state.doc, { car: { seats: 2, constructor: "Ferrari" } });
});

const NESTED = {
  id: "nested",
  schema: {
    type: "object",
    properties: {
      orders: {
        type: "array",
        items: {
          type: "object",
          properties: {
            ref: { type: "string" },
            ship: { type: "object", properties: { carrier: { type: "string", default: "UPS" } } },
            lines: {
              type: "array",
              items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "number" } } },
            },
          },
        },
      },
    },
  },
  defaultValues: [
    { path: "$.orders[*]", expr: "{'ref': 'R'}" },
    { path: "$.orders[*].lines[*]", expr: "{'qty': 1}" },
  ],
};

Deno.test("a JSON Patch add fills the containers nested in its value, as the same write as a mutation does", async () => {
  const order: Json = { ship: {}, lines: [{ sku: "a" }, { sku: "b", qty: 5 }] };
  const filled = { ship: { carrier: "UPS" }, lines: [{ sku: "a", qty: 1 }, { sku: "b", qty: 5 }], ref: "R" };
  const mutated = (await runtimeOf(NESTED)).runtime;
  const byMutation = await commitMutation(mutated, { "$.orders[0]": order });
  const patched = (await runtimeOf(NESTED)).runtime;
  const byPatch = await commitPatch(patched, [{ op: "add", path: "/orders", value: [] }, {
    op: "add",
    path: "/orders/-",
    value: order,
  }]);
  assert.deepEqual(mutated.state.doc, { orders: [filled] });
  assert.deepEqual(patched.state.doc, { orders: [filled] });
  assert.deepEqual(byPatch!.mutatedPaths.slice(2), byMutation!.mutatedPaths.slice(1));
});

Deno.test("every element of an array written whole gets defaults, whatever the old array's length", async () => {
  const { runtime } = await runtimeOf(NESTED);
  await commitMutation(runtime, { "$.orders": [{ ref: "A", lines: [{ sku: "x", qty: 2 }] }] });
  const result = await commitMutation(runtime, { "$.orders": [{ lines: [{ sku: "y" }] }, { ref: "C" }] });
  assert.deepEqual(runtime.state.doc, {
    orders: [{ lines: [{ sku: "y", qty: 1 }], ref: "R" }, { ref: "C" }],
  });
  assert.deepEqual(result!.mutatedPaths, ["$.orders", "$.orders[0].ref", "$.orders[0].lines[0].qty"]);
  const replaced = await commitPatch(runtime, [{ op: "replace", path: "/orders/1", value: { lines: [{}] } }]);
  assert.deepEqual(replaced!.mutatedPaths, ["$.orders[1]", "$.orders[1].ref", "$.orders[1].lines[0].qty"]);
  const inserted = await commitPatch(runtime, [{ op: "add", path: "/orders/0", value: { ref: "N" } }]);
  assert.deepEqual(inserted!.mutatedPaths, ["$.orders[0]"], "the elements it moved keep what they had");
  const field = await commitMutation(runtime, { "$.orders[1].lines[0].sku": "z" });
  assert.deepEqual(field!.mutatedPaths, ["$.orders[1].lines[0].sku"], "a field write re-defaults nothing");
  assert.deepEqual(runtime.state.doc, {
    orders: [{ ref: "N" }, { lines: [{ sku: "z", qty: 1 }], ref: "R" }, { lines: [{ qty: 1 }], ref: "R" }],
  });
});
