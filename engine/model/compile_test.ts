import assert from "node:assert/strict";
import { compile, compileValid, findingAt, locations, testCompiler, testConfig } from "../_test_utils.ts";
import { validateSpec } from "./compile.ts";

/** A small valid spec; tests override sections. */
function spec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: "shop/order",
    schema: {
      type: "object",
      properties: {
        qty: { type: "number" },
        price: { type: "number" },
        items: { type: "array", items: { type: "object", properties: { qty: { type: "number" } } } },
      },
    },
    ...extra,
  };
}

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

Deno.test("effect executor kinds: any kind when svc.effects.kinds.enabled is unset, else only listed ones", () => {
  const effects = [
    { id: "notify", trigger: "qty > 1", executor: "caller", emit: "n" },
    { id: "hook", trigger: "qty > 2", executor: "webhook" },
    { id: "fetch", trigger: "qty > 3" }, // executor defaults to server
  ];
  assert.deepEqual(compile(spec({ effects })).errors, []);
  const limited = compile(spec({ effects }), { effectKindsEnabled: ["caller", "timer"] });
  assert.deepEqual(locations(limited.errors), ["effects[1].executor", "effects[2].executor"]);
  assert.match(
    limited.errors[0].message,
    /'webhook' is not enabled \(svc\.effects\.kinds\.enabled: caller, timer\)/,
  );
  assert.match(limited.errors[1].message, /'server' is not enabled/);
});

Deno.test("effect shape errors: missing id, duplicate id, bad executor, bad payload, bad statusPath", () => {
  const report = compile(spec({
    effects: [
      { trigger: "true" },
      { id: "a", trigger: "true", executor: "" },
      { id: "a", trigger: "true", payload: 3 },
      { id: "b", trigger: "true", statusPath: "$.status.0" },
      { id: "c", trigger: "true", emit: 5 },
      { id: "d" },
    ],
  }));
  assert.deepEqual(locations(report.errors), [
    "effects[0].id",
    "effects[1].executor",
    "effects[2].id",
    "effects[2].payload",
    "effects[3].statusPath",
    "effects[4].emit",
    "effects[5].trigger",
  ]);
  assert.match(findingAt(report.errors, "effects[2].id").message, /duplicate effect id 'a'/);
  assert.match(findingAt(report.errors, "effects[3].statusPath").message, /\$\.status\[0\]/);
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

Deno.test("test cases need object given/expect with concrete addresses", () => {
  const report = compile(spec({
    tests: [{ given: [], expect: {} }, { given: {}, expect: { "$.items[*].qty": 1 } }, "nope"],
  }));
  assert.deepEqual(locations(report.errors), [
    "tests[0].given",
    "tests[1].expect['$.items[*].qty']",
    "tests[2]",
  ]);
  assert.match(report.errors[1].message, /concrete address without \[\*\]/);
});

Deno.test("schema: only local #/$defs refs; external, #/definitions, #/properties and dangling refs are errors", () => {
  const report = compile(spec({
    schema: {
      type: "object",
      $defs: { Money: { type: "number" } },
      properties: {
        a: { $ref: "https://example.com/schema.json" },
        b: { $ref: "#/definitions/Money" },
        c: { $ref: "#/properties/a" },
        d: { $ref: "#/$defs/Missing" },
        e: { type: "array", items: { $ref: "other.json#/$defs/Money" } },
        f: { $ref: "#/$defs/Money" },
      },
    },
  }));
  assert.deepEqual(locations(report.errors), [
    "schema.properties.a.$ref",
    "schema.properties.b.$ref",
    "schema.properties.c.$ref",
    "schema.properties.d.$ref",
    "schema.properties.e.items.$ref",
  ]);
  assert.match(report.errors[0].message, /unsupported reference 'https:\/\/example\.com\/schema\.json'/);
  assert.match(report.errors[1].message, /only local '#\/\$defs\/<Name>' references/);
  assert.match(report.errors[3].message, /dangling reference '#\/\$defs\/Missing'/);
});

Deno.test("schema: recursive #/$defs references compile and validate nested values", () => {
  const model = compileValid({
    id: "tree",
    schema: {
      type: "object",
      properties: { root: { $ref: "#/$defs/Node" } },
      $defs: {
        Node: {
          type: "object",
          properties: {
            label: { type: "string" },
            children: { type: "array", items: { $ref: "#/$defs/Node" } },
          },
        },
      },
    },
  });
  const good = { label: "a", children: [{ label: "b", children: [{ label: "c" }] }] };
  assert.deepEqual(model.schema.validateAt(["root"], good), []);
  const bad = { label: "a", children: [{ label: "b", children: [{ label: 3 }] }] };
  const violations = model.schema.validateAt(["root"], bad);
  assert.deepEqual(violations.map((v) => [v.path, v.keyword]), [[
    "$.root.children[0].children[0].label",
    "type",
  ]]);
});

Deno.test("schema: an unused $defs entry is a warning, not an error", () => {
  const report = compile(spec({
    schema: { type: "object", properties: { a: { $ref: "#/$defs/Used" } }, $defs: { Used: {}, Unused: {} } },
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings, [{
    location: "schema.$defs.Unused",
    message: "definition 'Unused' is not referenced",
  }]);
});

Deno.test("schema: a missing schema or one ajv cannot compile is an error", () => {
  assert.match(findingAt(compile({ id: "a" }).errors, "schema").message, /schema is required/);
  const report = compile(spec({ schema: { type: "object", properties: { a: { type: "nonsense" } } } }));
  assert.match(findingAt(report.errors, "schema").message, /invalid JSON Schema/);
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

Deno.test("two derivations may not target the same (or an overlapping) path", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.total", expr: "1" },
      { path: "$.total", expr: "2" },
      { path: "$.summary", expr: "{}" },
      { path: "$.summary.count", expr: "3" },
    ],
  }));
  assert.deepEqual(locations(report.errors), ["derivations[1].path", "derivations[3].path"]);
  assert.match(report.errors[0].message, /two derivations target the same path \$\.total/);
  assert.match(report.errors[1].message, /overlaps the derivation target \$\.summary/);
});

Deno.test("derivation targets: not the root, not a bare [*], evaluation eager|lazy", () => {
  const report = compile(spec({
    derivations: [
      { path: "$", expr: "1" },
      { path: "$.items[*]", expr: "1" },
      { path: "$.x", expr: "1", evaluation: "sometimes" },
    ],
  }));
  assert.deepEqual(locations(report.errors), [
    "derivations[0].path",
    "derivations[1].path",
    "derivations[2].evaluation",
  ]);
  assert.match(report.errors[1].message, /must name a field of each element/);
});

Deno.test("dependency cycles are errors naming the keys involved", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.a", expr: "b + 1" },
      { path: "$.b", expr: "c + 1" },
      { path: "$.c", expr: "a + 1" },
      { path: "$.self", expr: "self + 1" },
      { path: "$.fine", expr: "qty" },
    ],
  }));
  assert.equal(report.valid, false);
  const cycles = report.errors.filter((e) => /dependency cycle/.test(e.message));
  assert.equal(cycles.length, 2);
  const triangle = cycles.find((c) => c.message.includes("$.a"))!;
  for (const key of ["$.a", "$.b", "$.c"]) assert.ok(triangle.message.includes(key), triangle.message);
  const loop = cycles.find((c) => c.message.includes("$.self"))!;
  assert.match(loop.message, /reads its own value/);
  assert.ok(!report.errors.some((e) => e.message.includes("$.fine")));
});

Deno.test("$lookup( and $eval( are warnings with their location", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.a", expr: "$lookup($, 'qty')" },
      { path: "$.b", expr: "$eval('qty + 1')" },
      { path: "$.c", expr: "qty" },
    ],
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(locations(report.warnings), ["derivations[0].expr", "derivations[1].expr"]);
  assert.match(report.warnings[0].message, /can go stale/);
});

Deno.test("meta derivations: property must be known; one meta per path#property", () => {
  const report = compile(spec({
    metaDerivations: [
      { path: "$.qty", property: "minimum", expr: "0" },
      { path: "$.qty", property: "colour", expr: "'red'" },
      { path: "$.qty", property: "minimum", expr: "1" },
    ],
  }));
  assert.deepEqual(locations(report.errors), ["metaDerivations[1].property", "metaDerivations[2]"]);
  assert.match(report.errors[0].message, /property must be one of required, minimum/);
  assert.match(report.errors[1].message, /two meta derivations compute \$\.qty#minimum/);
});

Deno.test("constraints: id, message and policy are required; ids unique; [*] takes one path", () => {
  const report = compile(spec({
    constraints: [
      { expr: "true", message: "m", policy: "flag" },
      { id: "a", expr: "true", policy: "flag" },
      { id: "a", expr: "true", message: "m", policy: "rollback" },
      { id: "b", path: ["$.items[*]", "$.qty"], expr: "true", message: "m", policy: "flag" },
      { id: "c", expr: "true", message: "m" },
    ],
  }));
  assert.deepEqual(locations(report.errors), [
    "constraints[0].id",
    "constraints[1].message",
    "constraints[2].id",
    "constraints[3].path",
    "constraints[4].policy",
  ]);
  assert.match(report.errors[2].message, /duplicate constraint id 'a'/);
  assert.match(report.errors[3].message, /exactly one path/);
});

Deno.test("sections must be arrays and constants an object", () => {
  const report = compile(spec({ derivations: {}, constraints: "x", constants: [] }));
  assert.deepEqual(locations(report.errors).sort(), ["constants", "constraints", "derivations"]);
});

Deno.test("defaultValues rules compile with their path; $ seeds the root", () => {
  const model = compileValid(spec({
    defaultValues: [{ path: "$", expr: "{'qty': 1}" }, { path: "$.items[*]", expr: "{'qty': 0}" }],
  }));
  assert.deepEqual(model.defaults.map((d) => d.path), [[], ["items", -1]]);
});

Deno.test("a $schema other than 2020-12 is a warning", () => {
  const report = compile(spec({
    schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(locations(report.warnings), ["schema.$schema"]);
});
