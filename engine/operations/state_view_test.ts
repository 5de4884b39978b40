import assert from "node:assert/strict";
import { withBrowserProtoAccessor } from "../_test_utils.ts";
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

Deno.test("selectPaths splices a __proto__ member as data under a browser's accessor, never into the prototype", async () => {
  const doc = JSON.parse('{"o":{"__proto__":{"x":1,"y":[5]}},"p":{"q":2}}');
  const selected = await withBrowserProtoAccessor(() =>
    selectPaths(doc, ["$.o.__proto__.x", "$.o.__proto__.y[0]", "$.p.__proto__.z", "$.p.q"])
  );
  assert.equal(JSON.stringify(selected), '{"o":{"__proto__":{"x":1,"y":[5]}},"p":{"q":2}}');
  assert.equal(Object.getPrototypeOf(selected.o), Object.prototype);
  assert.equal(({} as Record<string, unknown>).x, undefined, "Object.prototype is untouched");
});
