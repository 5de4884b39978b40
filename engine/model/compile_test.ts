import assert from "node:assert/strict";
import { compile, compileValid, findingAt, locations, testCompiler, testConfig } from "../_test_utils.ts";
import { validateSpec } from "./compile.ts";
import { spec } from "./test_support.ts";

Deno.test("a valid spec compiles with no findings and the default version 1.0.0", () => {
  const report = compile(spec({ derivations: [{ path: "$.total", expr: "qty * price" }] }));
  assert.equal(report.valid, true);
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings, []);
  assert.equal(report.model!.version, "1.0.0");
  assert.equal(report.model!.spec.version, "1.0.0");
  assert.equal(report.model!.id, "shop/order");
});

Deno.test("validateSpec returns {valid, errors, warnings} and no model", () => {
  const config = testConfig();
  const report = validateSpec(spec({ id: "1bad" }), {
    compiler: testCompiler(config),
    config,
    now: Date.now,
  });
  assert.deepEqual(Object.keys(report).sort(), ["errors", "valid", "warnings"]);
  assert.equal(report.valid, false);
  assert.deepEqual(locations(report.errors), ["id"]);
});

Deno.test("every finding of a spec is reported in one pass, each with its location", () => {
  const report = compile({
    id: "9bad",
    version: "1.0",
    bogus: true,
    actions: [{ name: "x" }],
    schema: { type: "object", properties: { a: { $ref: "#/definitions/A" } } },
    derivations: [
      { path: "$.x", expr: "a +" },
      { path: "total", expr: "a" },
    ],
    constraints: [{ id: "c", expr: "true", message: "m", policy: "warn" }],
  });
  assert.equal(report.valid, false);
  assert.equal(report.model, undefined);
  const where = locations(report.errors);
  for (
    const expected of [
      "bogus",
      "id",
      "version",
      "actions",
      "schema.properties.a.$ref",
      "derivations[0].expr",
      "derivations[1].path",
      "constraints[0].policy",
    ]
  ) {
    assert.ok(where.includes(expected), `missing finding at ${expected}: ${JSON.stringify(report.errors)}`);
  }
  for (const finding of report.errors) assert.equal(typeof finding.message, "string");
});

Deno.test("a spec that is not an object is one clear error", () => {
  for (const bad of [null, [], "spec", 3]) {
    const report = compile(bad);
    assert.equal(report.valid, false);
    assert.deepEqual(report.errors, [{ location: "spec", message: "a ModelSpec must be a JSON object" }]);
  }
});

Deno.test("id coordinate: [namespace/]name, segments start with a letter, no '@'", () => {
  for (const id of ["order", "shop/order", "a1-b_c", "Ns/Name-2"]) {
    assert.deepEqual(compile(spec({ id })).errors, [], id);
  }
  for (
    const id of ["1order", "shop/1order", "a@b", "order@1.0.0", "a/b/c", "-x", "_x", "a b", "", "shop/", 42]
  ) {
    const report = compile(spec({ id }));
    assert.deepEqual(locations(report.errors), ["id"], `id ${JSON.stringify(id)} must be rejected`);
    assert.match(report.errors[0].message, /not a valid id/);
  }
  const missing = compile(spec({ id: undefined }));
  assert.deepEqual(missing.errors, [{ location: "id", message: "id is required" }]);
});

Deno.test("version: semver when non-blank, default 1.0.0 when blank or absent", () => {
  assert.equal(compileValid(spec({ version: "2.3.4" })).version, "2.3.4");
  assert.equal(compileValid(spec({ version: "1.0.0-beta.1+build.5" })).version, "1.0.0-beta.1+build.5");
  assert.equal(compileValid(spec({ version: "  " })).version, "1.0.0");
  assert.equal(compileValid(spec({ version: null })).version, "1.0.0");
  for (const version of ["1.0", "v1.0.0", "1.0.0.0", "01.0.0", "latest"]) {
    const report = compile(spec({ version }));
    assert.deepEqual(locations(report.errors), ["version"], version);
    assert.match(report.errors[0].message, /not a semantic version/);
  }
  assert.match(findingAt(compile(spec({ version: 1 })).errors, "version").message, /must be a string/);
});

Deno.test("a non-empty actions array is rejected; an empty one is tolerated", () => {
  const report = compile(spec({ actions: [{ id: "a" }] }));
  assert.match(findingAt(report.errors, "actions").message, /removed: declare effects instead/);
  assert.deepEqual(compile(spec({ actions: [] })).errors, []);
});

Deno.test("unknown top-level keys: '_'-prefixed accepted and ignored, others rejected", () => {
  const ok = compile(spec({ _name: "Order", _description: "an order", _anything: { deep: 1 } }));
  assert.deepEqual(ok.errors, []);
  assert.deepEqual(ok.warnings, []);
  const bad = compile(spec({ name: "Order", extras: [] }));
  assert.deepEqual(locations(bad.errors).sort(), ["extras", "name"]);
  assert.match(findingAt(bad.errors, "name").message, /unknown field 'name'/);
});

Deno.test("template branching is refused with a clear error; lineage must be an array", () => {
  assert.match(findingAt(compile(spec({ template: { ref: "a/b" } })).errors, "template").message, /template/);
  assert.deepEqual(compile(spec({ template: null })).errors, []);
  assert.match(findingAt(compile(spec({ lineage: {} })).errors, "lineage").message, /must be an array/);
});

Deno.test("legacy and unrooted addresses are errors carrying the canonical rewrite, wherever they appear", () => {
  const report = compile(spec({
    derivations: [{ path: "$.items.0.name", expr: "1" }],
    metaDerivations: [{ path: "qty", property: "minimum", expr: "0" }],
    constraints: [{ id: "c", path: ["$.qty", "items[0].qty"], expr: "true", message: "m", policy: "flag" }],
    defaultValues: [{ path: "$.items.*", expr: "{}" }],
    tests: [{ given: { "price": 1 }, expect: { "$.items.1.qty": 2 } }],
  }));
  const expectations: [string, string][] = [
    ["derivations[0].path", "$.items[0].name"],
    ["metaDerivations[0].path", "$.qty"],
    ["constraints[0].path[1]", "$.items[0].qty"],
    ["defaultValues[0].path", "$.items[*]"],
    ["tests[0].given['price']", "$.price"],
    ["tests[0].expect['$.items.1.qty']", "$.items[1].qty"],
  ];
  for (const [location, canonical] of expectations) {
    const message = findingAt(report.errors, location).message;
    assert.ok(message.includes(`write it as '${canonical}'`), `${location}: ${message}`);
  }
  assert.equal(report.errors.length, expectations.length);
});

Deno.test("JSONata compile errors carry the expression's location and JSONata's position", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.a", expr: "qty" },
      { path: "$.b", expr: "price" },
      { path: "$.c", expr: "qty * (price" },
    ],
    constraints: [{ id: "c1", expr: "qty >", message: "m", policy: "flag" }],
    metaDerivations: [{ path: "$.qty", property: "minimum", expr: "" }],
    effects: [{ id: "e", trigger: "true", payload: { n: "}{" } }],
  }));
  const derivation = findingAt(report.errors, "derivations[2].expr").message;
  assert.match(derivation, /JSONata compile error/);
  assert.match(derivation, /position \d+/);
  assert.match(findingAt(report.errors, "constraints[0].expr").message, /JSONata compile error/);
  assert.match(findingAt(report.errors, "metaDerivations[0].expr").message, /non-empty string/);
  assert.match(findingAt(report.errors, "effects[0].payload.n").message, /JSONata compile error/);
  assert.equal(report.errors.length, 4);
});

Deno.test("sections must be arrays and constants an object", () => {
  const report = compile(spec({ derivations: {}, constraints: "x", constants: [] }));
  assert.deepEqual(locations(report.errors).sort(), ["constants", "constraints", "derivations"]);
});

Deno.test("a read of a scalar's child is a warning, as an undeclared name's: no value is ever there", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.a", expr: "qty.unit" },
      // JSONata's `price[0]` of a number is the number: a read of `$.price`.
      { path: "$.b", expr: "price[0]" },
      { path: "$.c", expr: "$sum(items.qty)" },
    ],
  }));
  assert.deepEqual(report.warnings.map((w) => [w.location, w.message]), [
    [
      "derivations[0].expr",
      "reads '$.qty.unit', which the schema does not declare and no derivation produces",
    ],
  ]);
});

Deno.test("a per-element expression reading a bare name of its element is told the element is $parent", () => {
  const report = compile(spec({
    schema: {
      type: "object",
      properties: {
        items: { type: "array", items: { type: "object", properties: { text: { type: "string" } } } },
      },
    },
    constraints: [{ id: "c", path: "$.items[*]", expr: "$length(text) > 0", message: "m", policy: "flag" }],
    derivations: [{ path: "$.items[*].size", expr: "$length($parent.text)" }],
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings, [{
    location: "constraints[0].expr",
    message:
      "reads '$.text', which the schema does not declare and no derivation produces; per element: '$parent.text'",
  }]);
});

Deno.test("a per-element expression's undeclared read is told '$parent' only when its element declares the name", () => {
  const report = compile(spec({
    schema: {
      type: "object",
      properties: {
        limit: { type: "number" },
        items: { type: "array", items: { type: "object", properties: { text: { type: "string" } } } },
      },
    },
    derivations: [{ path: "$.items[*].size", expr: "$length(text) + limt + $count(sizes)" }],
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings.map((w) => w.message), [
    "reads '$.text', which the schema does not declare and no derivation produces; per element: '$parent.text'",
    "reads '$.limt', which the schema does not declare and no derivation produces (did you mean '$.limit'?)",
    "reads '$.sizes', which the schema does not declare and no derivation produces",
  ]);
});
