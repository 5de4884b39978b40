import assert from "node:assert/strict";
import { commitMutation, rejectsWith, runtimeOf } from "../_test_utils.ts";
import { assertUntouched, ORDER, orderRuntime, THREE_ITEMS } from "./test_support.ts";

Deno.test("creation seeds the document from the $ rule and computes every eager derivation", async () => {
  const { runtime } = await runtimeOf(ORDER);
  // $sum over no elements is undefined in JSONata: the aggregates stay absent
  assert.deepEqual(await runtime.readState(), { discount: 0, items: [] });
  await commitMutation(runtime, THREE_ITEMS);
  assert.deepEqual(await runtime.readState(), {
    discount: 0,
    items: [
      { qty: 1, price: 10, type: "a", lineTotal: 10 },
      { qty: 2, price: 5, type: "b", lineTotal: 10 },
      { qty: 3, price: 1, type: "a", lineTotal: 3 },
    ],
    subtotal: 23,
    total: 23,
    aQty: 4,
  });
});

Deno.test("a committed mutation returns the full result shape", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.discount": 5 });
  assert.deepEqual(Object.keys(result!).sort(), [
    "derivedUpdated",
    "dispatchedEffects",
    "flaggedConstraints",
    "metaUpdated",
    "mutatedPaths",
    "success",
    "traces",
  ]);
  assert.equal(result!.success, true);
  assert.deepEqual(result!.mutatedPaths, ["$.discount"]);
  assert.deepEqual(result!.derivedUpdated, ["$.total"]);
  assert.deepEqual(result!.flaggedConstraints, []);
  assert.deepEqual(result!.dispatchedEffects, []);
  assert.deepEqual(await runtime.readField("$.total"), 23 - 5);
});

Deno.test("the keys of one mutation apply in order: a later key sees what an earlier one created", async () => {
  const runtime = await orderRuntime();
  await commitMutation(runtime, { "$.scratch": 5 });
  await rejectsWith(
    () => runtime.evaluateMutation({ "$.scratch.x": 1 }),
    "schema_violation",
    /holds a number/,
  );
  await commitMutation(runtime, { "$.scratch": {}, "$.scratch.x": 1 });
  assert.deepEqual(await runtime.readField("$.scratch"), { x: 1 });
  // every violation is still reported, and none of the mutation is applied
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.discount": -1, "$.note": "fine", "$.items[0].qty": -2 }),
      "schema_violation",
      /\$\.discount \(minimum\).*\$\.items\[0\]\.qty \(minimum\)/,
    ));
});

Deno.test("an empty mutation writes nothing", async () => {
  const runtime = await orderRuntime();
  const before = runtime.state;
  assert.equal(await runtime.evaluateMutation({}), null);
  assert.equal(runtime.state, before);
});

Deno.test("a runaway expression fails its mutation cleanly (timeout) and leaves state untouched", async () => {
  // The deadline must also let the creation cycle (no recursion) finish on a loaded machine: 30 ms did not.
  const { runtime } = await runtimeOf({
    id: "runaway",
    schema: { type: "object", properties: { n: { type: "number" } } },
    derivations: [{
      path: "$.spin",
      expr: "n > 0 ? ($f := function($i){ $i > 0 ? $f($i - 1) : 0 }; $f(100000000)) : 0",
    }],
  }, { expressionTimeoutMs: 300, expressionMaxDepth: 100_000_000 });
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.n": 1 }),
      "validation_failed",
      /Evaluation of derivation \$\.spin failed: D1012: Evaluation timeout/,
    ));
});

Deno.test("deep recursion fails its mutation cleanly (depth guard) and leaves state untouched", async () => {
  const { runtime } = await runtimeOf({
    id: "deep",
    schema: { type: "object", properties: { n: { type: "number" } } },
    derivations: [{ path: "$.depth", expr: "($f := function($i){ $i > 0 ? 1 + $f($i - 1) : 0 }; $f(n))" }],
  }, { expressionMaxDepth: 100 });
  await commitMutation(runtime, { "$.n": 3 });
  assert.equal(await runtime.readField("$.depth"), 3);
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.n": 10_000 }),
        "validation_failed",
        /D1011: Stack overflow/,
      ),
  );
});

Deno.test("a derivation grouping 1,000 items evaluates: the depth limit holds per branch, not summed over them", async () => {
  // A lambda keeps the derivation with jsonata-js (no compiled closure), whose depth counted every group at once.
  const { runtime } = await runtimeOf({
    id: "grouped",
    schema: {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: { type: "object", properties: { sku: { type: "string" }, qty: { type: "number" } } },
        },
      },
    },
    derivations: [{ path: "$.bySku", expr: "items{sku: qty ~> function($q){ $q * 2 }}" }],
  });
  const items = Array.from({ length: 1000 }, (_, i) => ({ sku: `s${i}`, qty: i }));
  await commitMutation(runtime, { "$.items": items });
  assert.deepEqual(
    await runtime.readField("$.bySku"),
    Object.fromEntries(items.map(({ sku, qty }) => [sku, qty * 2])),
  );
});
