import assert from "node:assert/strict";
import { commitPatch, rejectsWith } from "../_test_utils.ts";
import type { Json } from "../json/value.ts";
import { assertUntouched, orderRuntime } from "./test_support.ts";

Deno.test("JSON Patch add with '-' appends; the new element gets defaults and only it is derived", async () => {
  const runtime = await orderRuntime();
  const result = await commitPatch(runtime, [{ op: "add", path: "/items/-", value: { price: 4 } }]);
  assert.deepEqual(result!.mutatedPaths, ["$.items[3]", "$.items[3].qty", "$.items[3].type"]);
  assert.deepEqual(result!.derivedUpdated, ["$.items[3].lineTotal", "$.aQty", "$.subtotal", "$.total"]);
  assert.deepEqual(await runtime.readField("$.items[3]"), { price: 4, qty: 1, type: "std", lineTotal: 4 });
});

Deno.test("JSON Patch insert shifts later elements without recomputing them", async () => {
  const runtime = await orderRuntime();
  const result = await commitPatch(runtime, [{
    op: "add",
    path: "/items/0",
    value: { qty: 2, price: 2, type: "b" },
  }]);
  assert.deepEqual(result!.derivedUpdated, ["$.items[0].lineTotal", "$.aQty", "$.subtotal", "$.total"]);
  const items = await runtime.readField("$.items") as Record<string, Json>[];
  assert.deepEqual(items.map((i) => i.lineTotal), [4, 10, 10, 3]);
  assert.equal(await runtime.readField("$.subtotal"), 27);
});

Deno.test("JSON Patch remove, replace, move (reorder), copy and test", async () => {
  const runtime = await orderRuntime();
  const removed = await commitPatch(runtime, [{ op: "remove", path: "/items/0" }]);
  assert.deepEqual(removed!.derivedUpdated, ["$.aQty", "$.subtotal", "$.total"]);
  assert.equal(await runtime.readField("$.subtotal"), 13);

  await commitPatch(runtime, [{ op: "replace", path: "/items/0/qty", value: 3 }]);
  assert.equal(await runtime.readField("$.items[0].lineTotal"), 15);

  await commitPatch(runtime, [{ op: "move", from: "/items/1", path: "/items/0" }]);
  const reordered = await runtime.readField("$.items") as Record<string, Json>[];
  assert.deepEqual(reordered.map((i) => i.lineTotal), [3, 15]);

  await commitPatch(runtime, [{ op: "copy", from: "/items/1", path: "/items/-" }]);
  assert.equal(await runtime.readField("$.subtotal"), 33);

  const tested = await commitPatch(runtime, [
    { op: "test", path: "/items/0/qty", value: 3 },
    { op: "replace", path: "/discount", value: 3 },
  ]);
  assert.deepEqual(tested!.mutatedPaths, ["$.discount"]);
  assert.equal(await runtime.readField("$.total"), 30);
});

Deno.test("JSON Patch failures leave state untouched: failed test, missing path, bad shape, derived target, schema", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () =>
        runtime.evaluatePatch([
          { op: "replace", path: "/discount", value: 1 },
          { op: "test", path: "/discount", value: 2 },
        ]),
      "conflict",
      /Patch operation 1 \(test \/discount\)/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "remove", path: "/nothing/here" }]),
      "validation_failed",
      /Patch operation 0/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "jump", path: "/a" }]),
      "bad_request",
      /Invalid JSON Patch/,
    );
    await rejectsWith(() => runtime.evaluatePatch({} as never), "bad_request", /array of operations/);
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "replace", path: "/subtotal", value: 1 }]),
      "schema_violation",
      /readOnly/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "add", path: "/items/-", value: { qty: -5 } }]),
      "schema_violation",
      /\$\.items\[3\]\.qty \(minimum\)/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "add", path: "/items/x", value: {} }]),
      "validation_failed",
      /not an array index/,
    );
  });
});

// A per-element node that reads no field of its element still belongs to each new element.
