import assert from "node:assert/strict";
import { commitMutation, commitPatch, rejectsWith, runtimeOf } from "../_test_utils.ts";
import type { Json } from "../json/value.ts";
import { assertUntouched, metaRuntime, orderRuntime } from "./test_support.ts";

Deno.test("an aggregate over per-element derivations recomputes when one element changes, and only that element", async () => {
  const runtime = await orderRuntime();
  assert.deepEqual(await runtime.readField("$.subtotal"), 10 + 10 + 3);
  const result = await commitMutation(runtime, { "$.items[1].price": 10 });
  assert.deepEqual(result!.derivedUpdated, ["$.items[1].lineTotal", "$.subtotal", "$.total"]);
  assert.deepEqual(await runtime.readField("$.items[1].lineTotal"), 20);
  assert.deepEqual(await runtime.readField("$.subtotal"), 33);
  assert.deepEqual(await runtime.readField("$.total"), 33);
});

Deno.test("a filter predicate's fields are element-scoped: writing them recomputes the filtered aggregate", async () => {
  const runtime = await orderRuntime();
  assert.equal(await runtime.readField("$.aQty"), 4);
  const result = await commitMutation(runtime, { "$.items[1].type": "a" });
  assert.deepEqual(result!.derivedUpdated, ["$.aQty"]);
  assert.equal(await runtime.readField("$.aQty"), 6);
});

Deno.test("dirty propagation: a field no derivation reads recomputes nothing", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.note": "hello" });
  assert.deepEqual(result!.derivedUpdated, []);
  assert.deepEqual(result!.traces, []);
});

Deno.test("dirty propagation: replacing a container recomputes what lies below it", async () => {
  const runtime = await orderRuntime();
  const whole = await commitMutation(runtime, { "$.items": [{ qty: 1, price: 1 }, { qty: 1, price: 2 }] });
  assert.deepEqual(whole!.derivedUpdated, [
    "$.items[0].lineTotal",
    "$.items[1].lineTotal",
    "$.aQty",
    "$.subtotal",
    "$.total",
  ]);
  const element = await commitMutation(runtime, { "$.items[0]": { qty: 5, price: 1, type: "a" } });
  assert.deepEqual(element!.derivedUpdated, ["$.items[0].lineTotal", "$.aQty", "$.subtotal", "$.total"]);
  assert.equal(await runtime.readField("$.total"), 7);
});

Deno.test("dirty propagation: a read of a container sees writes below it", async () => {
  const { runtime } = await runtimeOf({
    id: "ancestor",
    schema: { type: "object", properties: { customer: { type: "object" }, other: { type: "number" } } },
    derivations: [{ path: "$.label", expr: "$string(customer)" }],
  });
  const below = await commitMutation(runtime, { "$.customer.name": "Ada" });
  assert.deepEqual(below!.derivedUpdated, ["$.label"]);
  assert.equal(await runtime.readField("$.label"), '{"name":"Ada"}');
  const unrelated = await commitMutation(runtime, { "$.other": 1 });
  assert.deepEqual(unrelated!.derivedUpdated, []);
});

Deno.test("a level sees earlier levels' new values within one mutation", async () => {
  const { runtime } = await runtimeOf({
    id: "chain",
    schema: { type: "object", properties: { x: { type: "number" } } },
    derivations: [
      { path: "$.c", expr: "b * 10" },
      { path: "$.b", expr: "a + 1" },
      { path: "$.a", expr: "x * 2" },
    ],
  });
  const result = await commitMutation(runtime, { "$.x": 1 });
  assert.deepEqual(result!.derivedUpdated, ["$.a", "$.b", "$.c"]);
  assert.deepEqual(await runtime.readState(), { x: 1, a: 2, b: 3, c: 30 });
});

const LAZY = {
  id: "lazy",
  schema: { type: "object", properties: { x: { type: "number" } } },
  derivations: [
    { path: "$.eager", expr: "x + 1" },
    { path: "$.report", expr: "'x is ' & $string(x)", evaluation: "lazy" },
  ],
};

Deno.test("lazy derivations are stale after a commit until a read evaluates them", async () => {
  const { runtime } = await runtimeOf(LAZY);
  const result = await commitMutation(runtime, { "$.x": 1 });
  assert.ok(!result!.derivedUpdated.includes("$.report"), "a lazy derivation is not evaluated in the cycle");
  assert.ok(runtime.state.stale.has("$.report"));
  assert.equal(await runtime.readField("$.report"), "x is 1");
  assert.equal(runtime.state.stale.size, 0, "the read evaluated it");
  await commitMutation(runtime, { "$.x": 2 });
  assert.ok(runtime.state.stale.has("$.report"));
  assert.deepEqual((await runtime.readState() as Record<string, Json>).report, "x is 2");
});

Deno.test("a cycle never changes the stale set of the state it started from; one that leaves it shares it", async () => {
  const { runtime } = await runtimeOf({
    ...LAZY,
    schema: { type: "object", properties: { x: { type: "number" }, note: { type: "string" } } },
  });
  await commitMutation(runtime, { "$.x": 1 });
  const stale = runtime.state.stale;
  assert.deepEqual([...stale], ["$.report"]);
  // A write the lazy derivation does not read keeps the committed set (sets are not changed once committed).
  await commitMutation(runtime, { "$.note": "n" });
  assert.equal(runtime.state.stale, stale);
  // Reading evaluates it in a cycle of its own, from a copy: the committed set stays as it was.
  assert.equal(await runtime.readField("$.report"), "x is 1");
  assert.deepEqual([...stale], ["$.report"]);
  await commitMutation(runtime, { "$.x": 2 });
  assert.deepEqual([...stale], ["$.report"]);
  assert.deepEqual((await runtime.readState() as Record<string, Json>).report, "x is 2");
});

Deno.test("an eager derivation reading a lazy one evaluates it first", async () => {
  const { runtime } = await runtimeOf({
    ...LAZY,
    derivations: [...LAZY.derivations, { path: "$.afterLazy", expr: "report & '!'" }],
  });
  const result = await commitMutation(runtime, { "$.x": 5 });
  assert.deepEqual(result!.derivedUpdated, ["$.eager", "$.report", "$.afterLazy"]);
  assert.equal(runtime.state.doc && (runtime.state.doc as Record<string, Json>).afterLazy, "x is 5!");
  assert.equal(await runtime.readField("$.afterLazy"), "x is 5!");
  assert.equal(await runtime.readField("$.eager"), 6);
});

Deno.test("meta derivations run per element for [*] paths, keyed by the concrete path", async () => {
  const runtime = await metaRuntime();
  const result = await commitMutation(runtime, { "$.rows": [{ qty: 1, max: 3 }, { qty: 1, max: 5 }] });
  assert.deepEqual(result!.metaUpdated, ["$.rows[0].qty#maximum", "$.rows[1].qty#maximum"]);
  assert.equal(runtime.state.meta.get("$.rows[0].qty#maximum"), 3);
  assert.equal(runtime.state.meta.get("$.rows[1].qty#maximum"), 5);
  await rejectsWith(() => runtime.evaluateMutation({ "$.rows[1].qty": 6 }), "schema_violation", /maximum/);
  const one = await commitMutation(runtime, { "$.rows[1].max": 9 });
  assert.deepEqual(one!.metaUpdated, ["$.rows[1].qty#maximum"]);
  await commitMutation(runtime, { "$.rows[1].qty": 6 });
});

Deno.test("per-element meta values follow their elements on insert and remove, and vanish with them", async () => {
  const runtime = await metaRuntime();
  await commitMutation(runtime, { "$.rows": [{ qty: 1, max: 3 }, { qty: 1, max: 5 }] });
  const rowMetas = () => [...runtime.state.meta].filter(([k]) => k.startsWith("$.rows"));
  await commitPatch(runtime, [{ op: "remove", path: "/rows/0" }]);
  assert.deepEqual(rowMetas(), [["$.rows[0].qty#maximum", 5]]);
  await commitMutation(runtime, { "$.rows[0].qty": 4 }); // the remaining row's own maximum (5) applies
  await commitPatch(runtime, [{ op: "add", path: "/rows/0", value: { qty: 0, max: 1 } }]);
  assert.deepEqual(rowMetas().sort(), [["$.rows[0].qty#maximum", 1], ["$.rows[1].qty#maximum", 5]]);
  await commitMutation(runtime, { "$.rows": [] });
  assert.deepEqual(rowMetas(), []);
  await commitMutation(runtime, { "$.rows[0].qty": 50 }); // no stale maximum left behind
});

Deno.test("meta keys use snake_case property names", async () => {
  const runtime = await metaRuntime();
  assert.deepEqual([...runtime.state.meta.keys()].sort(), [
    "$.amount#maximum",
    "$.amount#minimum",
    "$.code#pattern",
    "$.color#enum",
    "$.email#required",
    "$.locked#read_only",
    "$.step#multiple_of",
    "$.text#max_length",
    "$.text#min_length",
  ]);
});

Deno.test("an evaluation error in a derivation fails the mutation and names the target", async () => {
  const { runtime } = await runtimeOf({
    id: "err",
    schema: { type: "object", properties: { s: { type: "string" } } },
    derivations: [{ path: "$.n", expr: "$number(s)" }],
  });
  await commitMutation(runtime, { "$.s": "12" });
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.s": "twelve" }),
        "validation_failed",
        /Evaluation of derivation \$\.n failed/,
      ),
  );
});

// ------------------------------------------------------------------- JSON Patch

Deno.test("nested per-element derivations: only the touched order recomputes, also when a line is removed", async () => {
  const { runtime } = await runtimeOf({
    id: "orders",
    schema: {
      type: "object",
      properties: {
        orders: {
          type: "array",
          items: { type: "object", properties: { lines: { type: "array", items: { type: "object" } } } },
        },
      },
    },
    derivations: [
      { path: "$.orders[*].lines[*].amount", expr: "$parent.q * 2" },
      { path: "$.orders[*].sum", expr: "$sum($parent.lines.amount)" },
      { path: "$.grand", expr: "$sum(orders.sum)" },
    ],
  });
  await commitMutation(runtime, { "$.orders": [{ lines: [{ q: 1 }, { q: 2 }] }, { lines: [{ q: 3 }] }] });
  const changed = await commitMutation(runtime, { "$.orders[1].lines[0].q": 10 });
  assert.deepEqual(changed!.derivedUpdated, ["$.orders[1].lines[0].amount", "$.orders[1].sum", "$.grand"]);
  const removed = await commitPatch(runtime, [{ op: "remove", path: "/orders/0/lines/0" }]);
  assert.deepEqual(removed!.derivedUpdated, ["$.orders[0].sum", "$.grand"]);
  assert.equal(await runtime.readField("$.orders[0].sum"), 4);
  assert.equal(await runtime.readField("$.grand"), 24);
});

const RANKED = {
  id: "ranked",
  schema: {
    type: "object",
    properties: {
      label: { type: "string" },
      items: { type: "array", items: { type: "object", properties: { qty: { type: "number" } } } },
    },
  },
  constants: { unit: "kg" },
  derivations: [
    { path: "$.items[*].unit", expr: "$const.unit" },
    { path: "$.items[*].heading", expr: "$$.label" },
  ],
  metaDerivations: [{ path: "$.items[*].qty", property: "readOnly", expr: "false" }],
};

Deno.test("per-element derivations reading no element field run for elements created by a write", async () => {
  const { runtime } = await runtimeOf(RANKED);
  await commitMutation(runtime, { "$.label": "stock", "$.items[0].qty": 1 });
  await commitMutation(runtime, { "$.items[1].qty": 2 });
  const state = await runtime.readState() as { items: Json[] };
  assert.deepEqual(state.items, [
    { qty: 1, unit: "kg", heading: "stock" },
    { qty: 2, unit: "kg", heading: "stock" },
  ]);
});

Deno.test("per-element derivations reading no element field run for an array replaced or patched in", async () => {
  const { runtime } = await runtimeOf(RANKED);
  await commitMutation(runtime, { "$.items": [{ qty: 1 }, { qty: 2 }] });
  await commitPatch(runtime, [{ op: "add", path: "/items/1", value: { qty: 5 } }]);
  const state = await runtime.readState() as { items: { unit?: string; qty: number }[] };
  assert.deepEqual(state.items.map((i) => [i.qty, i.unit]), [[1, "kg"], [5, "kg"], [2, "kg"]]);
});

Deno.test("a cycle mixing compiled and interpreted evaluations derives in order, tracing each in order", async () => {
  const { runtime } = await runtimeOf({
    id: "mixed",
    schema: {
      type: "object",
      properties: {
        values: { type: "array" },
        doubled: { type: "array", readOnly: true },
        count: { type: "number", readOnly: true },
        label: { type: "string", readOnly: true },
        items: { type: "array", items: { type: "object" } },
      },
    },
    derivations: [
      // A lambda: outside the compiled subset, so the interpreter's (a wait inside the cycle).
      { path: "$.doubled", expr: "$map(values, function($v) { $v * 2 })" },
      { path: "$.count", expr: "$count(doubled)" },
      { path: "$.items[*].twice", expr: "$parent.qty * 2" },
      { path: "$.label", expr: "$string(count) & ' values'" },
    ],
  });
  const result = await commitMutation(runtime, {
    "$.values": [1, 2, 3],
    "$.items": [{ qty: 1 }, { qty: 2 }],
  });
  const order = ["$.doubled", "$.items[0].twice", "$.items[1].twice", "$.count", "$.label"];
  assert.deepEqual(result!.derivedUpdated, order);
  assert.deepEqual(result!.traces.map((t) => [t.targetPath, t.result]), [
    ["$.doubled", [2, 4, 6]],
    ["$.items[0].twice", 2],
    ["$.items[1].twice", 4],
    ["$.count", 3],
    ["$.label", "3 values"],
  ]);
  // A failing evaluation refuses the write, whether interpreted or handed back by a closure.
  await rejectsWith(
    () => commitMutation(runtime, { "$.values": [1, "x"] as Json }),
    "validation_failed",
    /Evaluation of derivation \$\.doubled failed: T2001/,
  );
  await rejectsWith(
    () => commitMutation(runtime, { "$.items[1].qty": "x" }),
    "validation_failed",
    /Evaluation of derivation \$\.items\[1\]\.twice failed: T2001/,
  );
});

const TOTALS = {
  id: "totals",
  schema: {
    type: "object",
    properties: {
      price: { type: "number" },
      qty: { type: "number" },
      totals: { type: "object" },
      items: { type: "array", items: { type: "object" } },
    },
  },
  derivations: [
    { path: "$.totals.net", expr: "price * qty" },
    { path: "$.totals.gross", expr: "price * qty * 2", evaluation: "lazy" },
    { path: "$.items[*].sub.t", expr: "$parent.p * 10" },
  ],
};

Deno.test("a container written whole keeps the derived values inside it: the derivation runs again", async () => {
  const { runtime } = await runtimeOf(TOTALS);
  await commitMutation(runtime, { "$.price": 10, "$.qty": 5, "$.items": [{ p: 1 }] });
  const forged = await commitMutation(runtime, { "$.totals": { net: 1, gross: 1, note: "n" } });
  assert.deepEqual(forged!.derivedUpdated, ["$.totals.net"]);
  assert.deepEqual(await runtime.readField("$.totals"), { net: 50, gross: 100, note: "n" });
  await commitMutation(runtime, { "$.totals": {} });
  assert.deepEqual(await runtime.readField("$.totals"), { net: 50, gross: 100 });
  await commitMutation(runtime, { "$.items[0].sub": { t: 99, u: 1 } });
  assert.deepEqual(await runtime.readField("$.items[0].sub"), { t: 10, u: 1 });
  const snapshot = await runtime.snapshot();
  assert.deepEqual(snapshot.derivedCache, {
    "$.totals.net": 50,
    "$.totals.gross": 100,
    "$.items[0].sub.t": 10,
  });
});

Deno.test("a patch replacing, removing, moving or copying onto a container of derived values leaves them derived", async () => {
  const { runtime } = await runtimeOf(TOTALS);
  await commitMutation(runtime, { "$.price": 2, "$.qty": 3, "$.x": { net: 7 }, "$.y": { net: 8 } });
  const ops: unknown[][] = [
    [{ op: "add", path: "/totals", value: { net: 1 } }],
    [{ op: "replace", path: "/totals", value: { net: 2, gross: 2 } }],
    [{ op: "remove", path: "/totals" }],
    [{ op: "move", from: "/x", path: "/totals" }],
    [{ op: "copy", from: "/y", path: "/totals" }],
    [{ op: "add", path: "/items", value: [{ p: 1, sub: { t: 5 } }] }],
    [{ op: "remove", path: "/items/0/sub" }],
  ];
  for (const patch of ops) {
    await commitPatch(runtime, patch as never);
    const state = await runtime.readState() as Record<string, Json>;
    assert.deepEqual(state.totals, { net: 6, gross: 12 }, JSON.stringify(patch));
  }
  assert.deepEqual(await runtime.readField("$.items"), [{ p: 1, sub: { t: 10 } }]);
});

Deno.test("writing the root whole keeps every derived value the derivations'", async () => {
  const { runtime } = await runtimeOf(TOTALS);
  await commitMutation(runtime, {
    $: { price: 1, qty: 2, totals: { net: 0, gross: 0 }, items: [{ p: 3, sub: { t: 0 } }] },
  });
  assert.deepEqual(await runtime.readState(), {
    price: 1,
    qty: 2,
    totals: { net: 2, gross: 4 },
    items: [{ p: 3, sub: { t: 30 } }],
  });
});

Deno.test("a derivation reading the whole document never sees its own value: it does not grow with the writes", async () => {
  const { runtime } = await runtimeOf({
    id: "whole",
    schema: { type: "object", properties: { a: { type: "number" } } },
    derivations: [
      { path: "$.sum", expr: "$sum(*[$type($) = 'number'])" },
      { path: "$.json", expr: "$string($$)" },
      { path: "$.nested.keys", expr: "$join($keys($), ',')" },
      { path: "$.report", expr: "$string($)", evaluation: "lazy" },
    ],
  });
  const seen: Json[] = [];
  for (let i = 0; i < 4; i++) {
    await commitMutation(runtime, { "$.a": 1 });
    seen.push(await runtime.readState());
  }
  for (const state of seen) assert.deepEqual(state, seen[0]);
  const state = seen[0] as Record<string, Json>;
  // of readers enclosing each other, one later in the spec runs first and an earlier one sees its value;
  // none sees itself (nor `nested`, which holds nothing else)
  assert.equal(state.report, '{"a":1}');
  assert.deepEqual(state.nested, { keys: "report,a" });
  assert.equal(state.json, '{"report":"{\\"a\\":1}","nested":{"keys":"report,a"},"a":1}');
  assert.equal(state.sum, 1);
});

Deno.test("a whole-document reader sees the levels below it, never a stale value of one ordered after it", async () => {
  const { runtime } = await runtimeOf({
    id: "levels",
    schema: { type: "object", properties: { a: { type: "number" } } },
    derivations: [
      { path: "$.count", expr: "$count($keys($))" },
      { path: "$.b", expr: "a + 1" },
      { path: "$.json", expr: "$string($)" },
      { path: "$.size", expr: "$length(json)" },
    ],
  });
  await commitMutation(runtime, { "$.a": 1 });
  await commitMutation(runtime, { "$.a": 2 });
  const state = await runtime.readState() as Record<string, Json>;
  // $.json sees the new $.b, and neither $.count (ordered after it) nor $.size (which reads it)
  assert.equal(state.json, '{"a":2,"b":3}');
  assert.equal(state.size, 13);
  // $.count, ordered after all of them, sees them all: a, b, json, size
  assert.equal(state.count, 4);
});

Deno.test("a per-element derivation reading its element whole never sees its own value", async () => {
  const { runtime } = await runtimeOf({
    id: "element",
    schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
    derivations: [
      { path: "$.items[*].line", expr: "$parent.q * 2" },
      { path: "$.items[*].json", expr: "$string($parent)" },
    ],
  });
  await commitMutation(runtime, { "$.items": [{ q: 1 }, { q: 2 }] });
  await commitMutation(runtime, { "$.items[1].q": 3 });
  await commitMutation(runtime, { "$.items[1].q": 3 });
  assert.deepEqual(await runtime.readField("$.items"), [
    { q: 1, line: 2, json: '{"q":1,"line":2}' },
    { q: 3, line: 6, json: '{"q":3,"line":6}' },
  ]);
});

Deno.test("a built-in called without its first argument reads its context: writing there re-derives", async () => {
  const { runtime } = await runtimeOf({
    id: "context-calls",
    schema: { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } },
    derivations: [
      { path: "$.upper", expr: "tags.$uppercase()" },
      { path: "$.head", expr: "name ~> $substringBefore(',')" },
    ],
  });
  await commitMutation(runtime, { "$.tags": ["a"], "$.name": "x,y" });
  const result = await commitMutation(runtime, { "$.tags[0]": "b" });
  assert.deepEqual(result!.derivedUpdated, ["$.upper"]);
  assert.equal(await runtime.readField("$.upper"), "B");
  assert.equal(await runtime.readField("$.head"), "x");
});

Deno.test("a built-in given the context by JSONata's signature matching reads it: writing there re-derives", async () => {
  const { runtime } = await runtimeOf({
    id: "shifted-calls",
    schema: { type: "object" },
    derivations: [
      { path: "$.big", expr: "prices.$sift(function($v) { $v > 1 })" },
      { path: "$.mid", expr: "name.$substring(1, 2)" },
    ],
  });
  await commitMutation(runtime, { "$.prices": { a: 1, b: 2 }, "$.name": "abcd" });
  const result = await commitMutation(runtime, { "$.prices.a": 5, "$.name": "wxyz" });
  assert.deepEqual(result!.derivedUpdated.toSorted(), ["$.big", "$.mid"]);
  assert.deepEqual(await runtime.readField("$.big"), { a: 5, b: 2 });
  assert.equal(await runtime.readField("$.mid"), "xy");
});

Deno.test("a derivation giving NaN or Infinity refuses the write naming its field, as such an input is refused", async () => {
  const { runtime } = await runtimeOf({
    id: "nonfinite",
    schema: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } } },
    derivations: [{ path: "$.ratio", expr: "x / y" }, { path: "$.parts", expr: "[x, 1e308 * x]" }],
    constraints: [{ id: "bounded", expr: "x / (y - 1)", message: "unbounded", policy: "flag" }],
  });
  await commitMutation(runtime, { "$.x": 1, "$.y": 2 });
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => commitMutation(runtime, { "$.x": 10 }),
      "validation_failed",
      /^Evaluation of derivation \$\.parts failed: the result holds Infinity, not a JSON number$/,
    ));
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => commitMutation(runtime, { "$.x": 0, "$.y": 0 }),
      "validation_failed",
      /^Evaluation of derivation \$\.ratio failed: the result holds NaN, not a JSON number$/,
    ));
  // A constraint's Infinity is an error too, so it fails instead of passing as null did.
  const flagged = await commitMutation(runtime, { "$.y": 1 });
  assert.deepEqual(flagged!.flaggedConstraints.map((v) => v.constraintId), ["bounded"]);
  assert.match(
    flagged!.traces.find((t) => t.targetPath === "$constraint:bounded")!.errorMessage!,
    /Infinity/,
  );
});

Deno.test("meta derivations answered by the interpreter (a wait inside the cycle) and at once key each element", async () => {
  const { runtime } = await runtimeOf({
    id: "mixed-metas",
    schema: {
      type: "object",
      properties: { rows: { type: "array", items: { type: "object", properties: { qty: {}, note: {} } } } },
    },
    metaDerivations: [
      // A lambda: outside the compiled subset, so the interpreter's.
      { path: "$.rows[*].qty", property: "maximum", expr: "$map([$parent.max], function($m) { $m * 2 })[0]" },
      { path: "$.rows[*].note", property: "maxLength", expr: "$parent.max" },
    ],
  });
  const result = await commitMutation(runtime, { "$.rows": [{ max: 3 }, { max: 5 }] });
  assert.deepEqual(result!.metaUpdated, [
    "$.rows[0].qty#maximum",
    "$.rows[1].qty#maximum",
    "$.rows[0].note#max_length",
    "$.rows[1].note#max_length",
  ]);
  assert.equal(runtime.state.meta.get("$.rows[1].qty#maximum"), 10);
  assert.equal(runtime.state.meta.get("$.rows[1].note#max_length"), 5);
  await rejectsWith(() => runtime.evaluateMutation({ "$.rows[0].qty": 7 }), "schema_violation", /maximum/);
});
