import assert from "node:assert/strict";
import jsonata from "jsonata";
import { FALLBACK, nativeAggregate } from "./native_aggregate.ts";
import type { AstNode } from "./compiler.ts";

const astOf = (expression: string) => jsonata(expression).ast() as unknown as AstNode;

const DOCUMENTS: unknown[] = [
  { items: [{ lineTotal: 1.1 }, { lineTotal: 2.2 }, { lineTotal: 3.3 }] },
  { items: [{ lineTotal: 5 }] },
  { items: { lineTotal: 7 } },
  { items: [{ lineTotal: 1 }, {}, { other: 2 }, { lineTotal: -4 }] },
  { items: [{ lineTotal: [1, 2] }, { lineTotal: 3 }] },
  { items: [[{ lineTotal: 1 }, { lineTotal: 2 }], [{ lineTotal: 3 }]] },
  { items: [{ lineTotal: 1e308 }, { lineTotal: 1e308 }] },
  { orders: [{ lines: [{ qty: 1 }, { qty: 2 }] }, { lines: [] }, { lines: [{ qty: 4 }] }] },
  { orders: [{ lines: { qty: 9 } }, { lines: [{ qty: 1 }] }] },
  { x: 5, "a b": { c: [2, 3] } },
];

const EXPRESSIONS = [
  "$sum(items.lineTotal)",
  "$max(items.lineTotal)",
  "$min(items.lineTotal)",
  "$average(items.lineTotal)",
  "$sum(orders.lines.qty)",
  "$average(orders.lines.qty)",
  "$sum($$.items.lineTotal)",
  "$sum($.orders.lines.qty)",
  "$sum(x)",
  "$max(`a b`.c)",
];

Deno.test("the native aggregate agrees with JSONata wherever it answers", async () => {
  let answered = 0;
  for (const expression of EXPRESSIONS) {
    const native = nativeAggregate(astOf(expression));
    assert.ok(native, `${expression} should have a fast path`);
    for (const doc of DOCUMENTS) {
      const fast = native(doc);
      if (fast === FALLBACK) continue;
      answered++;
      assert.deepEqual(
        fast,
        await jsonata(expression).evaluate(doc),
        `${expression} on ${JSON.stringify(doc)}`,
      );
    }
  }
  assert.ok(answered > 30, `only ${answered} answers`);
});

Deno.test("the native aggregate hands back what JSONata must decide", () => {
  const sum = nativeAggregate(astOf("$sum(items.v)"))!;
  assert.equal(sum({ items: [{ v: 1 }, { v: "2" }] }), FALLBACK, "a string is an error in JSONata");
  assert.equal(sum({ items: [{ v: [[1]] }] }), FALLBACK, "nested arrays");
  assert.equal(sum({ items: [] }), FALLBACK, "empty: absent and [] differ");
  assert.equal(sum({ other: 1 }), FALLBACK);
  assert.equal(sum([{ items: [{ v: 1 }] }]), FALLBACK, "a root array");
  assert.equal(sum({ items: [{ v: null }] }), FALLBACK);
});

Deno.test("only a plain field path under one aggregate call has a fast path", () => {
  for (
    const expression of [
      "$sum(items[0].v)",
      "$sum(items[v > 1].v)",
      "$sum(items.(v * 2))",
      "$sum(items.v, 1)",
      "$count(items.v)",
      "$sum(items.v) + 1",
      "$sum($parent.v)",
      "$sum(items#$i.v)",
      "items.v",
      "$sum([1, 2])",
    ]
  ) {
    assert.equal(nativeAggregate(astOf(expression)), null, expression);
  }
});
