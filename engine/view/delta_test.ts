import assert from "node:assert/strict";
import type { Json } from "../json/value.ts";
import type { ModelRuntime } from "../runtime/runtime.ts";
import { evaluateViewDelta } from "./delta.ts";
import { viewStateOf } from "./evaluate.ts";
import { runtimeOf, specWithView } from "./test_support.ts";
import { withBrowserProtoAccessor } from "../_test_utils.ts";

const ORDER = specWithView([
  { id: "customer", type: "textField", bind: "$.customer" },
  {
    id: "list",
    type: "sectionList",
    bind: "$.items",
    components: [
      { id: "qty", type: "numericField", bind: "$.items[*].qty" },
      { id: "line", type: "label", bind: "$.items[*].lineTotal" },
    ],
  },
  { id: "table", type: "dataTable", bind: "$.items" },
  { id: "total", type: "statTile", bind: "$.total" },
  { id: "big", type: "badge", text: "$.total > 100 ? 'Big order' : 'Small order'" },
  { id: "note", type: "textAreaField", bind: "$.note" },
  { id: "all", type: "jsonViewer", bind: "$" },
], {
  spec: {
    schema: {
      type: "object",
      properties: {
        customer: { type: "string" },
        rush: { type: "boolean" },
        note: { type: "string" },
        items: { type: "array", items: { type: "object", properties: { qty: { type: "number" } } } },
      },
    },
    derivations: [
      { path: "$.items[*].lineTotal", expr: "$parent.qty * 10" },
      { path: "$.total", expr: "$sum(items.lineTotal)" },
    ],
    metaDerivations: [{ path: "$.note", property: "relevant", expr: "rush = true" }],
  },
});

async function mutateAndDelta(runtime: ModelRuntime, mutations: Record<string, Json>) {
  const outcome = await runtime.evaluateMutation(mutations);
  assert.ok(outcome);
  runtime.commit(outcome);
  return await evaluateViewDelta(runtime.model, await viewStateOf(runtime), "main", outcome.result);
}

Deno.test("viewDelta: components bound to mutated and derived paths, with their new values", async () => {
  const runtime = await runtimeOf(ORDER);
  await mutateAndDelta(runtime, { "$.items": [{ qty: 1 }, { qty: 2 }] });
  const delta = await mutateAndDelta(runtime, { "$.items[1].qty": 5 });
  assert.deepEqual(Object.keys(delta).sort(), [
    "all",
    "big",
    "list",
    "list[1]",
    "list[1].line",
    "list[1].qty",
    "table",
    "total",
  ]);
  assert.equal(delta["list[1].qty"].value, 5);
  assert.equal(delta["list[1].line"].value, 50);
  assert.equal(delta.total.value, 60);
  assert.equal(delta.big.text, "Small order");
});

Deno.test("viewDelta: a write elsewhere leaves unrelated components out; meta changes bring theirs in", async () => {
  const runtime = await runtimeOf(ORDER);
  const byCustomer = await mutateAndDelta(runtime, { "$.customer": "Ada" });
  assert.deepEqual(Object.keys(byCustomer).sort(), ["all", "customer"]);
  assert.equal(byCustomer.customer.value, "Ada");
  const byRush = await mutateAndDelta(runtime, { "$.rush": true });
  assert.deepEqual(Object.keys(byRush).sort(), ["all", "note"]);
  assert.equal(byRush.note.visible, true);
});

Deno.test("viewDelta: an empty result touches nothing; an unknown view is not_found", async () => {
  const runtime = await runtimeOf(ORDER);
  const state = await viewStateOf(runtime);
  const empty = { mutatedPaths: [], derivedUpdated: [], metaUpdated: [] };
  assert.deepEqual(await evaluateViewDelta(runtime.model, state, "main", empty), {});
  await assert.rejects(evaluateViewDelta(runtime.model, state, "ghost", empty), { kind: "not_found" });
});

Deno.test("viewDelta: components without bind join through the fields their expressions read", async () => {
  const runtime = await runtimeOf(specWithView([
    { id: "cell", type: "button", text: "$.board[0] ? $.board[0] : ' '", enabled: "$.board[0] = ''" },
    { id: "other", type: "button", text: "$.board[1] ? $.board[1] : ' '" },
    { id: "status", type: "staticText", text: "$.winner & ' wins'" },
  ], {
    spec: {
      schema: {
        type: "object",
        properties: {
          board: { type: "array", items: { type: "string" }, default: ["", ""] },
          winner: { type: "string" },
        },
      },
    },
  }));
  const delta = await mutateAndDelta(runtime, { "$.board[0]": "X" });
  assert.deepEqual(Object.keys(delta), ["cell"]);
  assert.deepEqual([delta.cell.text, delta.cell.enabled], ["X", false]);
});

Deno.test("viewDelta: a component with the id __proto__ is a member of the delta under a browser's accessor", async () => {
  const runtime = await runtimeOf(specWithView([{ id: "__proto__", type: "textField", bind: "$.customer" }], {
    spec: { schema: { type: "object", properties: { customer: { type: "string" } } } },
  }));
  const delta = await withBrowserProtoAccessor(() => mutateAndDelta(runtime, { "$.customer": "Ada" }));
  assert.deepEqual(Object.keys(delta), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(delta), Object.prototype);
  assert.equal(delta["__proto__"].value, "Ada");
});

Deno.test("viewDelta: a component calling a built-in the library hands out joins through the context of the call", async () => {
  const runtime = await runtimeOf(specWithView([
    { id: "shout", type: "staticText", text: "name.$upper()()" },
    { id: "other", type: "staticText", text: "tag" },
  ], {
    spec: {
      schema: { type: "object", properties: { name: { type: "string" }, tag: { type: "string" } } },
      library: '( $upper := function() { $uppercase }; ["upper"] )',
    },
  }));
  const delta = await mutateAndDelta(runtime, { "$.name": "ab" });
  assert.deepEqual(Object.keys(delta), ["shout"]);
  assert.equal(delta.shout.text, "AB");
});
