import assert from "node:assert/strict";
import type { Finding } from "../errors.ts";
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { parseEvolution } from "./evolution.ts";
import { editViews } from "./view_edits.ts";

const c = (id: string, children?: JsonObject[]): JsonObject =>
  children ? { id, type: "group", components: children } : { id, type: "textField" };

const SPEC: ModelSpec = {
  id: "v",
  schema: { type: "object" },
  viewDefinition: {
    renderer: "builtin",
    defaultView: "main",
    views: [
      { id: "main", label: "Main", components: [c("a"), c("g", [c("b"), c("inner", [c("deep")])]), c("z")] },
      { id: "second", components: [] },
    ],
  },
};

function edit(evolution: unknown, spec: ModelSpec = SPEC): { spec: ModelSpec; findings: Finding[] } {
  const copy = structuredClone(spec);
  const findings: Finding[] = [];
  editViews(copy, parseEvolution(evolution), findings);
  return { spec: copy, findings };
}

/** The component tree of a view as nested ids: `["a", ["g", ["b"]]]`. */
function shape(spec: ModelSpec, viewId = "main"): Json[] {
  const view = (spec.viewDefinition!.views as JsonObject[]).find((v) => v.id === viewId)!;
  const tree = (components: Json[]): Json[] =>
    components.map((x) =>
      isObject(x) && Array.isArray(x.components) ? [x.id, tree(x.components)] : (x as JsonObject).id
    );
  return tree(view.components as Json[]);
}

const ORIGINAL = ["a", ["g", ["b", ["inner", ["deep"]]]], "z"];

Deno.test("upsertViews replaces by id or appends; removeViews removes; newDefaultView sets the default", () => {
  const { spec, findings } = edit({
    upsertViews: [{ id: "second", label: "Second", components: [c("s")] }, { id: "third" }],
    removeViews: ["main"],
    newDefaultView: "third",
  });
  assert.deepEqual(findings, []);
  assert.deepEqual(spec.viewDefinition, {
    renderer: "builtin",
    defaultView: "third",
    views: [{ id: "second", label: "Second", components: [c("s")] }, { id: "third" }],
  });
});

Deno.test("view refusals: absent view, upserted twice, upserted and removed", () => {
  const { findings } = edit({
    upsertViews: [{ id: "x" }, { id: "x" }, { id: "second" }],
    removeViews: ["ghost", "second"],
  });
  assert.deepEqual(findings, [
    { location: "upsertViews[1]", message: "view 'x' is upserted twice" },
    { location: "upsertViews[2]", message: "view 'second' is both upserted and removed" },
    { location: "removeViews[0]", message: "there is no view 'ghost'" },
  ]);
});

Deno.test("upsertComponents replaces in place by id, however deep", () => {
  const replacement = { id: "deep", type: "numericField", bind: "$.n" };
  const { spec, findings } = edit({ upsertComponents: [{ viewId: "main", component: replacement }] });
  assert.deepEqual(findings, []);
  assert.deepEqual(shape(spec), ORIGINAL);
  const group = (spec.viewDefinition!.views as JsonObject[])[0].components as JsonObject[];
  const inner = ((group[1].components as JsonObject[])[1].components as JsonObject[])[0];
  assert.deepEqual(inner, replacement);
});

Deno.test("upsertComponents places new components: root append, into a parent, before a sibling", () => {
  const { spec, findings } = edit({
    upsertComponents: [
      { viewId: "main", component: c("last") },
      { viewId: "main", component: c("first"), beforeId: "a" },
      { viewId: "main", component: c("child"), parentId: "g" },
      { viewId: "main", component: c("wedge"), parentId: "g", beforeId: "inner" },
      { viewId: "second", component: c("only") },
      { viewId: "main", component: c("leafKids"), parentId: "a" },
    ],
  });
  assert.deepEqual(findings, []);
  assert.deepEqual(shape(spec), [
    "first",
    ["a", ["leafKids"]],
    ["g", ["b", "wedge", ["inner", ["deep"]], "child"]],
    "z",
    "last",
  ]);
  assert.deepEqual(shape(spec, "second"), ["only"]);
});

Deno.test("upsertComponents with a placement moves an existing component (with its subtree)", () => {
  const moved = edit({
    upsertComponents: [
      { viewId: "main", component: c("inner", [c("deep")]), beforeId: "a" },
      { viewId: "main", component: c("z"), parentId: "g", beforeId: "b" },
    ],
  });
  assert.deepEqual(moved.findings, []);
  assert.deepEqual(shape(moved.spec), [["inner", ["deep"]], "a", ["g", ["z", "b"]]]);
  const toRoot = edit({ upsertComponents: [{ viewId: "main", component: c("b"), beforeId: "z" }] });
  assert.deepEqual(shape(toRoot.spec), ["a", ["g", [["inner", ["deep"]]]], "b", "z"]);
});

Deno.test("upsertComponents refusals", () => {
  const { spec, findings } = edit({
    upsertComponents: [
      { viewId: "nope", component: c("x") },
      { viewId: "main", component: c("x"), parentId: "ghost" },
      { viewId: "main", component: c("x"), beforeId: "b" },
      { viewId: "main", component: c("x"), parentId: "g", beforeId: "deep" },
      { viewId: "main", component: c("g", []), parentId: "deep" },
      { viewId: "main", component: c("g", []), parentId: "g" },
      { viewId: "main", component: c("a"), beforeId: "a" },
    ],
  });
  assert.deepEqual(findings, [
    { location: "upsertComponents[0]", message: "there is no view 'nope'" },
    { location: "upsertComponents[1]", message: "view 'main' has no component 'ghost' (parentId)" },
    { location: "upsertComponents[2]", message: "beforeId 'b' is not a child of the root of view 'main'" },
    { location: "upsertComponents[3]", message: "beforeId 'deep' is not a child of component 'g'" },
    { location: "upsertComponents[4]", message: "component 'g' cannot move into its own descendant 'deep'" },
    { location: "upsertComponents[5]", message: "parentId 'g' names the component itself" },
    { location: "upsertComponents[6]", message: "beforeId 'a' names the component itself" },
  ]);
  assert.deepEqual(shape(spec), ORIGINAL, "a refused placement moves nothing");
});

Deno.test("removeComponents removes the subtree; refusals name the view or component", () => {
  const { spec, findings } = edit({
    removeComponents: [{ viewId: "main", componentId: "inner" }, { viewId: "main", componentId: "deep" }, {
      viewId: "gone",
      componentId: "a",
    }],
  });
  assert.deepEqual(shape(spec), ["a", ["g", ["b"]], "z"]);
  assert.deepEqual(findings, [
    { location: "removeComponents[1]", message: "view 'main' has no component 'deep'" },
    { location: "removeComponents[2]", message: "there is no view 'gone'" },
  ]);
});

Deno.test("a component both removed and upserted in one view is refused", () => {
  const { findings } = edit({
    removeComponents: [{ viewId: "main", componentId: "a" }],
    upsertComponents: [{ viewId: "main", component: c("a") }, { viewId: "second", component: c("a") }],
  });
  assert.deepEqual(findings, [{
    location: "upsertComponents[0]",
    message: "component 'a' is both upserted and removed in view 'main'",
  }]);
});

Deno.test("a spec without a view definition gets one from upsertViews; other members are refused", () => {
  const bare: ModelSpec = { id: "b", schema: {} };
  assert.deepEqual(edit({ upsertViews: [{ id: "one" }, { id: "two" }] }, bare).spec.viewDefinition, {
    defaultView: "one",
    views: [{ id: "one" }, { id: "two" }],
  });
  assert.deepEqual(
    edit({ upsertViews: [{ id: "one" }, { id: "two" }], newDefaultView: "two" }, bare).spec.viewDefinition,
    {
      defaultView: "two",
      views: [{ id: "one" }, { id: "two" }],
    },
  );
  assert.deepEqual(edit({ removeViews: ["x"] }, { ...bare, viewDefinition: null }).findings, [{
    location: "removeViews",
    message: "the model has no view definition: add views with upsertViews or newViewDefinition",
  }]);
});

Deno.test("without view members the view definition is untouched", () => {
  const { spec } = edit({ newVersion: "2.0.0" });
  assert.deepEqual(spec, SPEC);
});
