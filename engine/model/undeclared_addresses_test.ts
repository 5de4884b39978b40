import assert from "node:assert/strict";
import { compile } from "../_test_utils.ts";
import { spec } from "./test_support.ts";

const warningsOf = (extra: Record<string, unknown>) => {
  const report = compile(spec({ derivations: [{ path: "$.total", expr: "qty * price" }], ...extra }));
  assert.deepEqual(report.errors, []);
  return report.warnings.map((w) => [w.location, w.message]);
};

const view = (...components: unknown[]) => ({
  viewDefinition: { defaultView: "main", views: [{ id: "main", components }] },
});

Deno.test("a test writing or expecting a field the schema does not declare warns at the address", () => {
  assert.deepEqual(
    warningsOf({
      tests: [
        { given: { "$.qty": 2, "$.prise": 3 }, expect: { "$.total": 6, "$.items[0].qty": 1 } },
        { given: { "$.items": [] }, expect: { "$.totl": 0, "$.items[0].sku": 1 } },
      ],
    }),
    [
      [
        "tests[0].given['$.prise']",
        "writes '$.prise', which the schema does not declare and no derivation produces (did you mean '$.price'?)",
      ],
      [
        "tests[1].expect['$.totl']",
        "expects '$.totl', which the schema does not declare and no derivation produces (did you mean '$.total'?)",
      ],
      [
        "tests[1].expect['$.items[0].sku']",
        "expects '$.items[0].sku', which the schema does not declare and no derivation produces",
      ],
    ],
  );
});

Deno.test("a view binding an undeclared field, a table of a non-array, a column no row has: warnings", () => {
  assert.deepEqual(
    warningsOf(view(
      { id: "a", type: "numericField", bind: "$.qty" },
      { id: "b", type: "numericField", bind: "$.fee" },
      { id: "c", type: "label", bind: "$.total" },
      { id: "d", type: "keyValueList", items: [{ label: "Q", bind: "$.qyt" }] },
      { id: "e", type: "dataTable", bind: "$.qty", tableColumns: [{ field: "sku" }] },
      {
        id: "f",
        type: "dataTable",
        bind: "$.items",
        tableColumns: [{ field: "qty" }, { field: "sku" }, { field: "$.anything" }, { header: "none" }],
      },
      {
        id: "g",
        type: "sectionList",
        bind: "$.items",
        components: [{ id: "q", type: "textField", bind: "$.items[*].qtty" }],
      },
      { id: "h", type: "jsonViewer", bind: "$" },
    )),
    [
      [
        "viewDefinition.views[0].components[1].bind",
        "binds '$.fee', which the schema does not declare and no derivation produces",
      ],
      [
        "viewDefinition.views[0].components[3].items[0].bind",
        "binds '$.qyt', which the schema does not declare and no derivation produces (did you mean '$.qty'?)",
      ],
      ["viewDefinition.views[0].components[4].bind", "binds a number, not an array of rows"],
      [
        "viewDefinition.views[0].components[5].tableColumns[1].field",
        "binds '$.items[*].sku', which the schema does not declare and no derivation produces",
      ],
      [
        "viewDefinition.views[0].components[6].components[0].bind",
        "binds '$.items[*].qtty', which the schema does not declare and no derivation produces (did you mean '$.items[*].qty'?)",
      ],
    ],
  );
});

Deno.test("an effect's status document is the service's: naming its members in a view, a test or an expression does not warn", () => {
  assert.deepEqual(
    warningsOf({
      effects: [{ id: "e", executor: "caller", trigger: "qty > 1", statusPath: "$.sent" }],
      derivations: [{ path: "$.total", expr: "sent.phase = 'done' ? qty : 0" }],
      tests: [{ given: { "$.qty": 2 }, expect: { "$.sent.phase": "pending" } }],
      ...view({ id: "s", type: "textField", bind: "$.sent.phase" }),
    }),
    [],
  );
});

Deno.test("a meta derivation of a field nothing declares or derives warns at its path", () => {
  assert.deepEqual(
    warningsOf({
      metaDerivations: [
        { path: "$.qtty", property: "required", expr: "true" },
        { path: "$.total", property: "maximum", expr: "100" },
        { path: "$.items[*].qty", property: "minimum", expr: "0" },
      ],
    }),
    [[
      "metaDerivations[0].path",
      "sets meta of '$.qtty', which the schema does not declare and no derivation produces (did you mean '$.qty'?)",
    ]],
  );
});
