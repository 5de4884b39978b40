import assert from "node:assert/strict";
import { compile, serviceOf } from "../_test_utils.ts";
import { EXAMPLES } from "../authoring/examples/mod.ts";
import { spec } from "./test_support.ts";

const view = (components: unknown[], extra: Record<string, unknown> = {}) => ({
  viewDefinition: { defaultView: "main", views: [{ id: "main", components, ...extra }] },
});

/** The warnings of a spec that must stay valid (a typo warns, it never refuses). */
function warningsOf(input: Record<string, unknown>): { location: string; message: string }[] {
  const report = compile(input);
  assert.deepEqual(report.errors, []);
  assert.equal(report.valid, true);
  return report.warnings;
}

Deno.test("an unknown component type is accepted with a warning naming the nearest type", () => {
  const warnings = warningsOf(spec(view([{ id: "qty", type: "numberField", bind: "$.qty" }])));
  assert.deepEqual(warnings, [{
    location: "viewDefinition.views[0].components[0].type",
    message: "unknown component type 'numberField' is drawn as a plain input (did you mean 'numericField'?)",
  }]);
});

Deno.test("an unknown component type suggests the type an author means, not the nearest spelling", () => {
  const types = ["integerField", "table", "select", "checkbox", "number", "textfield", "fancyWidget"];
  const suggested = types.map((type) => {
    const [warning] = warningsOf(spec(view([{ id: "c", type, bind: "$.qty" }])));
    return warning.message.match(/did you mean '(\w+)'/)?.[1] ?? null;
  });
  assert.deepEqual(suggested, [
    "numericField",
    "dataTable",
    "selectField",
    "checkboxField",
    "numericField",
    "textField",
    null,
  ]);
});

Deno.test("a member no component type knows warns, with the nearest member; one of another type does not", () => {
  const warnings = warningsOf(spec(view([
    {
      id: "g",
      type: "group",
      components: [{ id: "q", type: "numericField", bind: "$.qty", placehodler: "0" }],
    },
    // min and max belong to sliders, className to every type: not typos.
    { id: "t", type: "textField", bind: "$.qty", min: 1, className: "wide", wibbleWobble: 1 },
  ])));
  assert.deepEqual(warnings, [
    {
      location: "viewDefinition.views[0].components[0].components[0].placehodler",
      message: "unknown member 'placehodler' is ignored (did you mean 'placeholder'?)",
    },
    {
      location: "viewDefinition.views[0].components[1].wibbleWobble",
      message: "unknown member 'wibbleWobble' is ignored",
    },
  ]);
});

Deno.test("a view's unknown member warns with the nearest member", () => {
  const warnings = warningsOf(spec(view([], { layuot: "grid" })));
  assert.deepEqual(warnings, [{
    location: "viewDefinition.views[0].layuot",
    message: "unknown member 'layuot' is ignored (did you mean 'layout'?)",
  }]);
});

Deno.test("unknown members of derivations, meta derivations, constraints, effects, default values and tests warn", () => {
  const warnings = warningsOf(spec({
    derivations: [{ path: "$.total", expr: "qty * price", expression: "qty" }],
    metaDerivations: [{ path: "$.qty", property: "minimum", expr: "0", proprety: "x" }],
    constraints: [{ id: "c", expr: "qty >= 0", message: "m", policy: "flag", polcy: "rollback" }],
    effects: [{ id: "e", executor: "caller", trigger: "qty > 1", emit: "go", statusPth: "$.status" }],
    defaultValues: [{ path: "$", expr: '{"qty": 1}', descripton: "d" }],
    tests: [{ given: { "$.qty": 1 }, expect: { "$.qty": 1 }, expected: {} }],
  }));
  assert.deepEqual(warnings, [
    {
      location: "derivations[0].expression",
      message: "unknown member 'expression' is ignored (did you mean 'expr'?)",
    },
    {
      location: "metaDerivations[0].proprety",
      message: "unknown member 'proprety' is ignored (did you mean 'property'?)",
    },
    {
      location: "constraints[0].polcy",
      message: "unknown member 'polcy' is ignored (did you mean 'policy'?)",
    },
    {
      location: "effects[0].statusPth",
      message: "unknown member 'statusPth' is ignored (did you mean 'statusPath'?)",
    },
    {
      location: "defaultValues[0].descripton",
      message: "unknown member 'descripton' is ignored (did you mean 'description'?)",
    },
    {
      location: "tests[0].expected",
      message: "unknown member 'expected' is ignored (did you mean 'expect'?)",
    },
  ]);
});

Deno.test("annotations (_name, x-…) and an operator-installed effect kind's members are not warned about", () => {
  const warnings = warningsOf(spec({
    derivations: [{ path: "$.total", expr: "qty * price", _note: "n", "x-owner": "me" }],
    effects: [{ id: "e", executor: "mail", trigger: "qty > 1", to: "a@b.c" }],
    ...view([{ id: "q", type: "numericField", bind: "$.qty", _hint: "h" }], { "x-order": 1 }),
  }));
  assert.deepEqual(warnings, []);
});

Deno.test("a huge unknown member name is quoted short in the warning", () => {
  const name = "q".repeat(1_000_000);
  const warnings = warningsOf(spec({ derivations: [{ path: "$.total", expr: "qty * price", [name]: 1 }] }));
  assert.equal(warnings.length, 1);
  assert.ok(warnings[0].message.length < 400, `${warnings[0].message.length} characters`);
  assert.ok(warnings[0].location.length < 400, `${warnings[0].location.length} characters`);
  assert.match(warnings[0].message, /^unknown member 'q{200}… \(1000000 characters\)' is ignored$/);
});

Deno.test("no example spec gets a warning", () => {
  for (const example of EXAMPLES) assert.deepEqual(compile(example.spec).warnings, [], example.name);
});

Deno.test("a create and validate_spec report the typo warnings; the model is created", async () => {
  const { service } = await serviceOf();
  const typo = spec({ id: "t", ...view([{ id: "qty", type: "numberField", bind: "$.qty" }]) });
  const expected = [{
    location: "viewDefinition.views[0].components[0].type",
    message: "unknown component type 'numberField' is drawn as a plain input (did you mean 'numericField'?)",
  }];
  assert.deepEqual(service.authoring.validateSpec(typo).warnings, expected);
  assert.deepEqual((await service.createModel(typo)).warnings, expected);
  assert.equal((await service.getInfo("t")).id, "t");
});

Deno.test("unknown members of the objects the schema declares inside entries warn: an effect's request, a component's options", () => {
  const warnings = warningsOf(spec({
    effects: [
      {
        id: "e",
        trigger: "qty > 1",
        request: { methd: "POST", url: "https://example.com", headers: { "X-Any": "1" } },
        response: { set: { "$.total": "$response.total" }, sett: {} },
        policy: { timeoutMs: 100, retrys: 2, backoff: { initialMs: 10 } },
      },
      { id: "w", trigger: "qty > 2", target: { ref: "other", path: "$.qty", wtch: true }, body: "qty" },
    ],
    ...view([
      { id: "s", type: "selectField", bind: "$.qty", options: [{ value: "a", lable: "A" }, { value: "b" }] },
      { id: "t", type: "dataTable", value: "[]", tableColumns: [{ field: "a", header: "A", headr: "x" }] },
      { id: "c", type: "dataChart", value: "[]", chartSeries: [{ field: "a", colour: "red" }] },
      { id: "k", type: "keyValueList", items: [{ label: "Q", bind: "$.qty", formt: "integer" }] },
      { id: "m", type: "menu", menuItems: [{ label: "Home", targetview: "main" }] },
    ]),
  }));
  assert.deepEqual(warnings.map((w) => [w.location, w.message]), [
    ["effects[0].request.methd", "unknown member 'methd' is ignored (did you mean 'method'?)"],
    ["effects[0].response.sett", "unknown member 'sett' is ignored (did you mean 'set'?)"],
    ["effects[0].policy.retrys", "unknown member 'retrys' is ignored (did you mean 'retries'?)"],
    ["effects[1].target.wtch", "unknown member 'wtch' is ignored (did you mean 'watch'?)"],
    [
      "viewDefinition.views[0].components[0].options[0].lable",
      "unknown member 'lable' is ignored (did you mean 'label'?)",
    ],
    [
      "viewDefinition.views[0].components[1].tableColumns[0].headr",
      "unknown member 'headr' is ignored (did you mean 'header'?)",
    ],
    [
      "viewDefinition.views[0].components[2].chartSeries[0].colour",
      "unknown member 'colour' is ignored (did you mean 'color'?)",
    ],
    [
      "viewDefinition.views[0].components[3].items[0].formt",
      "unknown member 'formt' is ignored (did you mean 'format'?)",
    ],
    [
      "viewDefinition.views[0].components[4].menuItems[0].targetview",
      "unknown member 'targetview' is ignored (did you mean 'targetView'?)",
    ],
  ]);
});
