import assert from "node:assert/strict";
import { collapsedMarker, limitDepth, narrowState, selectPaths } from "./state_view.ts";

const state = { a: 1, b: { c: { d: 2 }, e: [1, 2] }, items: [{ sku: "x", qty: 1 }, { sku: "y", qty: 2 }] };

Deno.test("selectPaths splices subtrees back at their addresses, skipping absent ones", () => {
  assert.deepEqual(selectPaths(state, ["$.b.c", "$.missing", "$.items[1].sku"]), {
    b: { c: { d: 2 } },
    items: [null, { sku: "y" }],
  });
  assert.deepEqual(selectPaths(state, ["$.items[*].qty"]), { items: [{ qty: 1 }, { qty: 2 }] });
  assert.deepEqual(selectPaths(state, ["$"]), state);
  assert.throws(() => selectPaths(state, ["items"]), /Invalid address in 'paths'/);
});

Deno.test("limitDepth collapses containers deeper than the limit into markers", () => {
  assert.deepEqual(limitDepth(state, 0), {
    a: 1,
    b: "<object with 2 fields>",
    items: "<array with 2 items>",
  });
  assert.deepEqual(limitDepth(state, 1), {
    a: 1,
    b: { c: "<object with 1 field>", e: "<array with 2 items>" },
    items: ["<object with 2 fields>", "<object with 2 fields>"],
  });
  assert.deepEqual(limitDepth(state, 5), state);
  assert.equal(collapsedMarker([1]), "<array with 1 item>");
});

Deno.test("narrowState applies paths first, then depth", () => {
  assert.deepEqual(narrowState(state, { paths: ["$.b"], depth: 0 }), { b: "<object with 2 fields>" });
  assert.equal(narrowState(state, {}), state);
});
