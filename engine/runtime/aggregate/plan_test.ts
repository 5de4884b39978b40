import assert from "node:assert/strict";
import { compileValid } from "../../_test_utils.ts";
import type { DerivedNode } from "../../model/nodes.ts";
import { aggregatePlan, arrayAt, elementNumber, UNSUPPORTED } from "./plan.ts";

function planFor(expr: string) {
  const model = compileValid({
    id: "plans",
    schema: {
      type: "object",
      properties: {
        order: { type: "object", properties: { lines: { type: "array" } } },
        items: { type: "array", items: { type: "object", properties: { tags: { type: "array" } } } },
      },
    },
    derivations: [{ path: "$.out", expr }],
  });
  const node = model.graph.derivedOrder[0] as DerivedNode;
  return aggregatePlan(node.compiled.ast, node.reads);
}

Deno.test("aggregates of a plain path through one array are planned", () => {
  assert.deepEqual(
    { ...planFor("$sum(items.lineTotal)"), read: undefined },
    {
      kind: "sum",
      arrayPath: ["items"],
      fieldKeys: ["lineTotal"],
      elementPattern: ["items", -1],
      read: undefined,
    },
  );
  assert.deepEqual(planFor("$max($$.order.lines.amount.net)")?.fieldKeys, ["amount", "net"]);
  assert.deepEqual(planFor("$count($.items.qty)")?.arrayPath, ["items"]);
});

Deno.test("anything else is evaluated", () => {
  for (
    const expr of [
      "$sum(items)",
      "$sum(items[0].qty)",
      "$sum(items.qty) + 1",
      "$sum(items.(qty * 2))",
      "$sum(items.tags.x)",
      "$sum(order.total)",
      "$round(items.qty)",
      "$sum(items.qty)[0]",
      "$sum($parent.items.qty)",
    ]
  ) {
    assert.equal(planFor(expr), null, expr);
  }
});

Deno.test("element numbers follow JSONata's field lookup; other data is unsupported", () => {
  assert.equal(elementNumber({ a: { b: 2 } }, ["a", "b"]), 2);
  assert.equal(elementNumber({ a: null }, ["a", "b"]), undefined);
  assert.equal(elementNumber(5, ["a"]), undefined);
  assert.equal(elementNumber({}, ["toString"]), undefined);
  assert.equal(elementNumber({ a: "1" }, ["a"]), UNSUPPORTED);
  assert.equal(elementNumber({ a: [1] }, ["a"]), UNSUPPORTED);
  assert.equal(elementNumber([{ a: 1 }], ["a"]), UNSUPPORTED);
  assert.equal(elementNumber({ _jsonata_function: true, a: 1 }, ["a"]), UNSUPPORTED);
  assert.deepEqual(arrayAt({ o: { l: [1] } }, ["o", "l"]), [1]);
  assert.equal(arrayAt({ o: [{ l: [1] }] }, ["o", "l"]), UNSUPPORTED);
  assert.equal(arrayAt({ o: { l: {} } }, ["o", "l"]), UNSUPPORTED);
});
