import assert from "node:assert/strict";
import { compile, compileValid } from "../_test_utils.ts";
import { buildGraph, elementPatternOf, type ExprNode } from "./graph.ts";
import { drain } from "../pacing.ts";
import { projectGraph } from "./projection.ts";

const ORDER = {
  id: "order",
  schema: {
    type: "object",
    properties: {
      discount: { type: "number" },
      items: {
        type: "array",
        items: { type: "object", properties: { qty: { type: "number" }, price: { type: "number" } } },
      },
    },
  },
  derivations: [
    { path: "$.items[*].lineTotal", expr: "$parent.qty * $parent.price" },
    { path: "$.subtotal", expr: "$sum(items.lineTotal)" },
    { path: "$.total", expr: "subtotal - discount" },
  ],
  metaDerivations: [{ path: "$.discount", property: "maximum", expr: "subtotal" }],
  constraints: [{
    id: "positive",
    expr: "total >= 0",
    message: "total must not be negative",
    policy: "rollback",
  }],
  effects: [{ id: "big", executor: "caller", trigger: "total > 1000", emit: "big-order" }],
};

const edgesTo = (model: ReturnType<typeof compileValid>, key: string) =>
  model.graph.edges.filter((e) => e.to === key).map((e) => e.from).sort();

Deno.test("levels: depth = 1 + max predecessor depth, BASE nodes at level 0", () => {
  const model = compileValid(ORDER);
  const level = (key: string) => model.graph.nodes.find((n) => n.key === key)!.level;
  assert.equal(level("$.items[*].lineTotal"), 1);
  assert.equal(level("$.subtotal"), 2);
  assert.equal(level("$.total"), 3);
  assert.equal(level("$.discount#maximum"), 3);
  assert.equal(level("$constraint:positive"), 4);
  assert.equal(level("$effect:big"), 4);
  assert.deepEqual(model.graph.levels[0], ["$.discount", "$.items[*].price", "$.items[*].qty"]);
  assert.deepEqual(model.graph.levels[1], ["$.items[*].lineTotal"]);
  assert.deepEqual(model.graph.levels[2], ["$.subtotal"]);
  assert.deepEqual(model.graph.derivedOrder.map((n) => n.key), [
    "$.items[*].lineTotal",
    "$.subtotal",
    "$.total",
  ]);
});

Deno.test("an aggregate over a per-element derivation depends on the wildcard node and sits later", () => {
  const model = compileValid(ORDER);
  assert.deepEqual(edgesTo(model, "$.subtotal"), ["$.items[*].lineTotal"]);
  assert.deepEqual(edgesTo(model, "$.items[*].lineTotal"), ["$.items[*].price", "$.items[*].qty"]);
  assert.deepEqual(edgesTo(model, "$.total"), ["$.discount", "$.subtotal"]);
  assert.deepEqual(edgesTo(model, "$constraint:positive"), ["$.total"]);
  assert.deepEqual(edgesTo(model, "$effect:big"), ["$.total"]);
});

Deno.test("a filter predicate's references are element fields in the graph", () => {
  const model = compileValid({
    id: "filtered",
    schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
    derivations: [{ path: "$.aQty", expr: "$sum(items[type='a'].qty)" }],
  });
  assert.deepEqual(edgesTo(model, "$.aQty"), ["$.items[*].qty", "$.items[*].type"]);
  assert.ok(!model.graph.baseKeys.includes("$.type"));
});

Deno.test("element patterns: per-element nodes know their element", () => {
  const model = compileValid(ORDER);
  const lineTotal = model.graph.nodes.find((n) => n.key === "$.items[*].lineTotal")!;
  assert.deepEqual(lineTotal.elementPattern, ["items", -1]);
  assert.equal(model.graph.nodes.find((n) => n.key === "$.subtotal")!.elementPattern, null);
  assert.deepEqual(elementPatternOf(["a", -1, "b", -1, "c"]), ["a", -1, "b", -1]);
  assert.equal(elementPatternOf(["a", "b"]), null);
});

Deno.test("a read of an enclosing container is not a dependency on oneself", () => {
  // $string($parent) reads the whole element, which holds the derived summary itself
  const report = compile({
    id: "enclosing",
    schema: { type: "object", properties: { items: { type: "array", items: { type: "object" } } } },
    derivations: [
      { path: "$.items[*].summary", expr: "$string($parent.name)" },
      { path: "$.items[*].json", expr: "$string($parent)" },
      { path: "$.a", expr: "$lookup($, 'x')" },
      { path: "$.b", expr: "$count($keys($))" },
    ],
  });
  assert.deepEqual(report.errors, []);
  const graph = report.model!.graph;
  // the element's JSON is computed after the element's other derived field
  assert.ok(graph.edges.some((e) => e.from === "$.items[*].summary" && e.to === "$.items[*].json"));
  assert.ok(!graph.edges.some((e) => e.from === e.to));
  // two whole-document readers enclose each other: ordered one way, not reported as a cycle
  const ab = graph.edges.filter((e) => ["$.a", "$.b"].includes(e.from) && ["$.a", "$.b"].includes(e.to));
  assert.equal(ab.length, 1);
});

Deno.test("a derivation reading a container whole hides its own target and those it is not ordered after", () => {
  const model = compileValid({
    id: "hides",
    schema: {
      type: "object",
      properties: { a: { type: "number" }, items: { type: "array", items: { type: "object" } } },
    },
    derivations: [
      { path: "$.b", expr: "a + 1" },
      { path: "$.json", expr: "$string($)" },
      { path: "$.keys", expr: "$count($keys($))" },
      { path: "$.later", expr: "$length(json)" },
      { path: "$.items[*].line", expr: "$parent.q * 2" },
      { path: "$.items[*].self", expr: "$string($parent)" },
      { path: "$.items[*].count", expr: "$count(items)" },
    ],
  });
  const hides = (key: string) => model.graph.derivedOrder.find((n) => n.key === key)!.hides;
  assert.equal(hides("$.b"), undefined);
  assert.equal(hides("$.items[*].line"), undefined);
  // of two readers enclosing each other, the first ordered after the other ($.json) sees it, not the
  // other way round; neither sees $.later, which reads $.json
  assert.deepEqual(hides("$.json"), { root: [["json"], ["later"]], parent: [] });
  assert.deepEqual(hides("$.keys"), { root: [["json"], ["keys"], ["later"]], parent: [] });
  // through $parent only: paths inside the element, after the element's other derived field
  assert.deepEqual(hides("$.items[*].self"), { root: [], parent: [["self"]] });
  assert.deepEqual(hides("$.items[*].count"), {
    root: [["items", -1, "self"], ["items", -1, "count"]],
    parent: [],
  });
});

/** A derived node at `key` reading the top-level fields `reads`. */
const node = (key: string, reads: string[]): ExprNode => ({
  key,
  kind: "DERIVED",
  label: key,
  expression: "",
  reads: reads.map((r) => ({ path: [r], elementScoped: false })),
  target: [key.slice(2)],
  elementPattern: null,
  index: 0,
  level: 0,
});

Deno.test("buildGraph reports cycles among derived nodes, including self-loops", () => {
  const graph = drain(
    buildGraph([node("$.a", ["b"]), node("$.b", ["a"]), node("$.c", ["c"]), node("$.d", ["x"])]),
  );
  assert.deepEqual(graph.cycles, [["$.a", "$.b"], ["$.c"]]);
  assert.deepEqual(graph.baseKeys, ["$.x"]);
});

Deno.test("projection: {modelId, nodes:[{key, kind, label, expression}], edges:[{from,to}], levels}", () => {
  const model = compileValid(ORDER);
  const view = projectGraph(model.id, model.graph);
  assert.equal(view.modelId, "order");
  assert.deepEqual(Object.keys(view).sort(), ["edges", "levels", "modelId", "nodes"]);
  const kinds = new Set(view.nodes.map((n) => n.kind));
  assert.deepEqual([...kinds].sort(), ["BASE", "CONSTRAINT", "DERIVED", "EFFECT", "META"]);
  for (const n of view.nodes) assert.deepEqual(Object.keys(n).sort(), ["expression", "key", "kind", "label"]);
  assert.deepEqual(view.nodes.find((n) => n.key === "$.discount"), {
    key: "$.discount",
    kind: "BASE",
    label: "$.discount",
    expression: null,
  });
  assert.deepEqual(view.nodes.find((n) => n.key === "$constraint:positive"), {
    key: "$constraint:positive",
    kind: "CONSTRAINT",
    label: "total must not be negative",
    expression: "total >= 0",
  });
  assert.deepEqual(view.nodes.find((n) => n.key === "$.discount#maximum")?.kind, "META");
  for (const e of view.edges) assert.deepEqual(Object.keys(e).sort(), ["from", "to"]);
  assert.deepEqual(view.levels, model.graph.levels);
  // a projection is a copy: editing it leaves the compiled graph alone
  view.levels[0].push("mutated");
  assert.ok(!model.graph.levels[0].includes("mutated"));
});

Deno.test("buildGraph pauses between nodes, and the graph is the one it builds at once", () => {
  const nodes = () => Array.from({ length: 50 }, (_, i) => node(`$.d${i}`, i ? [`d${i - 1}`] : ["x"]));
  const steps = buildGraph(nodes());
  let pauses = 0;
  let step = steps.next();
  for (; !step.done; step = steps.next()) pauses++;
  // Each node's reads, its place in a cycle and its level are each a piece of their own.
  assert.ok(pauses >= 50 * 3, `paused ${pauses} times`);
  assert.deepEqual(step.value, drain(buildGraph(nodes())));
  assert.deepEqual(step.value.derivedOrder.map((n) => n.level), Array.from({ length: 50 }, (_, i) => i + 1));
});
