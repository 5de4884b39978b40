import assert from "node:assert/strict";
import type { Finding } from "../../errors.ts";
import type { Json, JsonObject } from "../../json/value.ts";
import { compileForTest, specWithView, testCompiler } from "../../view/test_support.ts";
import { validateViewDefinition } from "./validate.ts";

const validate = (definition: unknown) => validateViewDefinition(definition, testCompiler());
const locations = (findings: Finding[]) => findings.map((f) => f.location);
const view = (components: Json[], rest: JsonObject = {}): JsonObject => ({ id: "main", components, ...rest });

Deno.test("view validation: absent or null definitions are valid; a well-formed one has no findings", () => {
  assert.deepEqual(validate(undefined), { errors: [], warnings: [] });
  assert.deepEqual(validate(null), { errors: [], warnings: [] });
  const ok = validate({
    renderer: "builtin",
    defaultView: "main",
    views: [
      view([
        {
          id: "name",
          type: "textField",
          bind: "$.name",
          visible: "$.show = true",
          onChange: { navigate: "detail" },
        },
        { id: "list", type: "sectionList", bind: "$.items", itemView: "item" },
        { id: "group", type: "group", components: [{ id: "inner", type: "label", text: "$string(total)" }] },
        { id: "kv", type: "keyValueList", items: [{ label: "T", bind: "$.total" }] },
      ], { layout: "tabs", onOpen: { mutations: "{'$.opened': true}" } }),
      { id: "item", components: [{ id: "name", type: "textField", bind: "$.items[*].name" }] },
      { id: "detail" },
    ],
  });
  assert.deepEqual(ok, { errors: [], warnings: [] });
});

Deno.test("view validation: the definition must be an object with a views array and a known defaultView", () => {
  assert.deepEqual(validate([]).errors, [
    {
      location: "viewDefinition",
      message: "viewDefinition must be an object with 'defaultView' and a 'views' array",
    },
  ]);
  assert.deepEqual(locations(validate({ defaultView: "main" }).errors), ["viewDefinition.views"]);
  assert.deepEqual(validate({ views: [view([])] }).errors, [
    { location: "viewDefinition.defaultView", message: "defaultView is required: the id of a view in views" },
  ]);
  assert.deepEqual(validate({ defaultView: "nope", views: [view([])] }).errors, [
    { location: "viewDefinition.defaultView", message: "defaultView 'nope' names no view (views: 'main')" },
  ]);
  assert.deepEqual(
    locations(validate({ renderer: "react", defaultView: "main", views: [view([])] }).errors),
    [
      "viewDefinition.renderer",
    ],
  );
});

Deno.test("view validation: view ids are required and unique", () => {
  const { errors } = validate({ defaultView: "main", views: [view([]), { components: [] }, view([]), 7] });
  assert.deepEqual(errors, [
    { location: "viewDefinition.views[2].id", message: "duplicate view id 'main'" },
    { location: "viewDefinition.views[1].id", message: "view id is required (a non-empty string)" },
    { location: "viewDefinition.views[3]", message: "a view must be an object with 'id' and 'components'" },
  ]);
});

Deno.test("view validation: every component needs id and type; ids are unique per view, nested included", () => {
  const { errors } = validate({
    defaultView: "main",
    views: [
      view([
        { id: "a", type: "textField" },
        { type: "label" },
        { id: "b" },
        { id: "box", type: "group", components: [{ id: "a", type: "label" }, "oops"] },
        { id: "", type: "label" },
      ]),
      { id: "other", components: [{ id: "a", type: "textField" }] },
    ],
  });
  assert.deepEqual(errors, [
    {
      location: "viewDefinition.views[0].components[1].id",
      message: "component id is required (a non-empty string)",
    },
    {
      location: "viewDefinition.views[0].components[2].type",
      message: "component type is required (a non-empty string)",
    },
    {
      location: "viewDefinition.views[0].components[3].components[0].id",
      message: "duplicate component id 'a' in view 'main'",
    },
    {
      location: "viewDefinition.views[0].components[3].components[1]",
      message: "a component must be an object with 'id' and 'type'",
    },
    {
      location: "viewDefinition.views[0].components[4].id",
      message: "component id is required (a non-empty string)",
    },
  ]);
});

Deno.test("view validation: sectionList.itemView must name an existing view and not contain itself", () => {
  const missing = validate({
    defaultView: "main",
    views: [view([{ id: "list", type: "sectionList", bind: "$.items", itemView: "row" }])],
  });
  assert.deepEqual(missing.errors, [
    {
      location: "viewDefinition.views[0].components[0].itemView",
      message: "itemView \"row\" names no view (views: 'main')",
    },
  ]);
  const cycle = validate({
    defaultView: "main",
    views: [
      view([{ id: "list", type: "sectionList", bind: "$.items", itemView: "row" }]),
      { id: "row", components: [{ id: "again", type: "sectionList", bind: "$.items", itemView: "row" }] },
    ],
  });
  assert.deepEqual(cycle.errors, [{
    location: "viewDefinition.views[1].components[0].itemView",
    message: "itemView 'row' leads back to view 'row': a section list cannot contain itself",
  }]);
});

Deno.test("view validation: addresses are canonical; state members are boolean, string or null", () => {
  const { errors } = validate({
    defaultView: "main",
    views: [view([
      { id: "a", type: "textField", bind: "$.items.0.name" },
      { id: "b", type: "dateRangeField", bind: "$.stay", bindFrom: "stay.from", bindTo: "$.stay.to" },
      { id: "c", type: "textField", visible: 1, required: null, readOnly: "$.locked" },
      { id: "d", type: "summaryList", items: [{ label: "x", bind: "x" }, 3] },
      { id: "e", type: "dataTable", bind: "$.rows", tableColumns: { field: "a" } },
    ])],
  });
  assert.deepEqual(locations(errors), [
    "viewDefinition.views[0].components[0].bind",
    "viewDefinition.views[0].components[1].bindFrom",
    "viewDefinition.views[0].components[2].visible",
    "viewDefinition.views[0].components[3].items[1]",
    "viewDefinition.views[0].components[3].items[0].bind",
    "viewDefinition.views[0].components[4].tableColumns",
  ]);
  assert.match(errors[0].message, /write it as '\$\.items\[0\]\.name'/);
  assert.equal(errors[2].message, "visible must be a boolean, a JSONata string or null");
});

Deno.test("view validation: an unrooted bind in a section list's item is rewritten under the list's element", () => {
  const { errors } = validate({
    defaultView: "main",
    views: [
      view([
        { id: "top", type: "textField", bind: "title" },
        {
          id: "inline",
          type: "sectionList",
          bind: "$.lines",
          components: [
            { id: "desc", type: "textField", bind: "desc" },
            {
              id: "box",
              type: "group",
              components: [{ id: "kv", type: "keyValueList", items: [{ bind: "qty" }] }],
            },
          ],
        },
        { id: "orders", type: "sectionList", bind: "$.orders", itemView: "order" },
      ]),
      {
        id: "order",
        components: [
          { id: "ref", type: "textField", bind: "ref" },
          { id: "lines", type: "sectionList", bind: "$.orders[*].lines", itemView: "line" },
        ],
      },
      { id: "line", components: [{ id: "sku", type: "textField", bind: "sku" }] },
    ],
  });
  assert.deepEqual(errors.map((e) => [e.location, e.message.replace(/.* write it as /, "")]), [
    ["viewDefinition.views[0].components[0].bind", "'$.title'"],
    ["viewDefinition.views[0].components[1].components[0].bind", "'$.lines[*].desc'"],
    ["viewDefinition.views[0].components[1].components[1].components[0].items[0].bind", "'$.lines[*].qty'"],
    ["viewDefinition.views[1].components[0].bind", "'$.orders[*].ref'"],
    ["viewDefinition.views[2].components[0].bind", "'$.orders[*].lines[*].sku'"],
  ]);
});

Deno.test("view validation: binds in a list whose own bind is unrooted are rewritten under its element", () => {
  const { errors } = validate({
    defaultView: "main",
    views: [
      view([{
        id: "sections",
        type: "sectionList",
        bind: "$.sections",
        components: [{
          id: "items",
          type: "sectionList",
          bind: "items",
          components: [{ id: "qty", type: "numberField", bind: "qty" }],
        }],
      }, { id: "orders", type: "sectionList", bind: "$.orders", itemView: "order" }]),
      { id: "order", components: [{ id: "lines", type: "sectionList", bind: "lines", itemView: "line" }] },
      { id: "line", components: [{ id: "sku", type: "textField", bind: "sku" }] },
    ],
  });
  assert.deepEqual(errors.map((e) => [e.location, e.message.replace(/.* write it as /, "")]), [
    ["viewDefinition.views[0].components[0].components[0].bind", "'$.sections[*].items'"],
    [
      "viewDefinition.views[0].components[0].components[0].components[0].bind",
      "'$.sections[*].items[*].qty'",
    ],
    ["viewDefinition.views[1].components[0].bind", "'$.orders[*].lines'"],
    ["viewDefinition.views[2].components[0].bind", "'$.orders[*].lines[*].sku'"],
  ]);
});

Deno.test("view validation: an item view named by lists over two arrays binds under one; both are said", () => {
  const { errors, warnings } = validate({
    defaultView: "main",
    views: [
      view([
        { id: "open", type: "sectionList", bind: "$.openTasks", itemView: "task" },
        { id: "done", type: "sectionList", bind: "$.doneTasks", itemView: "task" },
      ]),
      {
        id: "task",
        components: [
          { id: "title", type: "textField", bind: "title" },
          { id: "due", type: "dateField", bind: "$.openTasks[*].due" },
          { id: "note", type: "label", text: "$parent.note" },
        ],
      },
    ],
  });
  assert.deepEqual(errors, [{
    location: "viewDefinition.views[1].components[0].bind",
    message: "'title' uses the unrooted form; write it as '$.openTasks[*].title'",
  }]);
  assert.deepEqual(warnings, [{
    location: "viewDefinition.views[1].components[1].bind",
    message: "'$.openTasks[*].due' reads every $.openTasks element under the list over $.doneTasks: give " +
      "each list its own itemView",
  }]);
});

Deno.test("view validation: handlers must be objects; mutations a string", () => {
  const { errors } = validate({
    defaultView: "main",
    views: [view([
      { id: "a", type: "button", onClick: "go" },
      { id: "b", type: "button", onClick: { mutations: { "$.x": 1 } } },
    ], { onClose: [] })],
  });
  assert.deepEqual(locations(errors), [
    "viewDefinition.views[0].onClose",
    "viewDefinition.views[0].components[0].onClick",
    "viewDefinition.views[0].components[1].onClick.mutations",
  ]);
});

Deno.test("view validation: warnings for bad JSONata, unknown layouts, unbound lists", () => {
  const { errors, warnings } = validate({
    defaultView: "main",
    views: [view([
      { id: "a", type: "textField", visible: "a = ", onChange: { mutations: "{" } },
      { id: "b", type: "label", text: "Total: $(" },
      { id: "c", type: "label", text: "no dollar so (never compiled" },
      { id: "l", type: "sectionList", components: [] },
    ], { layout: "diagonal" })],
  });
  assert.deepEqual(errors, []);
  assert.deepEqual(locations(warnings), [
    "viewDefinition.views[0].layout",
    "viewDefinition.views[0].components[0].visible",
    "viewDefinition.views[0].components[0].onChange.mutations",
    "viewDefinition.views[0].components[1].text",
    "viewDefinition.views[0].components[3]",
  ]);
  assert.match(warnings[1].message, /JSONata compile error/);
});

Deno.test("view validation: a handler's navigate and a menu item's targetView must name a view", () => {
  const { errors, warnings } = validate({
    defaultView: "main",
    views: [view([
      { id: "a", type: "textField", onChange: { navigate: "nowhere" } },
      { id: "b", type: "button", onClick: { navigate: 7 } },
      {
        id: "m",
        type: "menu",
        menuItems: [{ label: "Go", targetView: "gone" }, { label: "Home", targetView: "main" }],
      },
    ], { onOpen: { navigate: "away" } })],
  });
  assert.deepEqual(warnings, []);
  assert.deepEqual(errors.map((e) => [e.location, e.message]), [
    ["viewDefinition.views[0].onOpen.navigate", "navigate \"away\" names no view (views: 'main')"],
    [
      "viewDefinition.views[0].components[0].onChange.navigate",
      "navigate \"nowhere\" names no view (views: 'main')",
    ],
    ["viewDefinition.views[0].components[1].onClick.navigate", "navigate 7 names no view (views: 'main')"],
    [
      "viewDefinition.views[0].components[2].menuItems[0].targetView",
      "targetView \"gone\" names no view (views: 'main')",
    ],
  ]);
});

Deno.test("view validation: a ratingField offers at most 100 choices, between integer bounds", () => {
  const rating = (members: Record<string, unknown>) =>
    validate({ defaultView: "main", views: [view([{ id: "r", type: "ratingField", ...members }])] }).errors
      .map((e) => `${e.location}: ${e.message}`);
  assert.deepEqual(rating({}), []);
  assert.deepEqual(rating({ min: 0, max: 99 }), []);
  assert.deepEqual(rating({ max: 1_000_000 }), [
    "viewDefinition.views[0].components[0].max: a ratingField offers 1 to 100 choices (max - min + 1), not 1000000",
  ]);
  assert.deepEqual(rating({ min: 0, max: 100 }), [
    "viewDefinition.views[0].components[0].max: a ratingField offers 1 to 100 choices (max - min + 1), not 101",
  ]);
  assert.deepEqual(rating({ min: 5, max: 1 }), [
    "viewDefinition.views[0].components[0].max: a ratingField offers 1 to 100 choices (max - min + 1), not -3",
  ]);
  assert.deepEqual(rating({ max: 4.5, min: "1" }), [
    "viewDefinition.views[0].components[0].min: a ratingField's min must be an integer",
    "viewDefinition.views[0].components[0].max: a ratingField's max must be an integer",
  ]);
  // A slider is one control whatever its range.
  assert.deepEqual(rating({ type: "sliderField", max: 1_000_000 }), []);
});

Deno.test("view validation runs inside compileSpec: a broken view refuses the spec with every finding", () => {
  const report = compileForTest(specWithView([{ id: "a", type: "textField" }, { id: "a" }], {
    spec: { derivations: [{ path: "$.x", expr: "(" }] },
  }));
  assert.equal(report.valid, false);
  assert.equal(report.model, undefined);
  assert.deepEqual(locations(report.errors), [
    "derivations[0].expr",
    "viewDefinition.views[0].components[1].id",
    "viewDefinition.views[0].components[1].type",
  ]);
  const warned = compileForTest(specWithView([{ id: "a", type: "label", text: "$(" }]));
  assert.equal(warned.valid, true);
  assert.deepEqual(locations(warned.warnings), ["viewDefinition.views[0].components[0].text"]);
  assert.deepEqual(locations(compileForTest({ id: "m", schema: {}, viewDefinition: "x" }).errors), [
    "viewDefinition",
  ]);
});
