import assert from "node:assert/strict";
import { compile, compileValid, findingAt, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

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
  assert.match(
    findingAt(report.errors, "schema").message,
    /^invalid JSON Schema: schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/,
  );
  // The meta-schema check is shared by every spec: each one is still judged on its own.
  const next = compile(spec({ schema: { type: "object", required: "a" } }));
  assert.equal(
    findingAt(next.errors, "schema").message,
    "invalid JSON Schema: schema is invalid: data/required must be array",
  );
  assert.deepEqual(compile(spec({ schema: { type: "object", required: ["a"] } })).errors, []);
});

Deno.test("a $schema other than 2020-12 is a warning", () => {
  const report = compile(spec({
    schema: { $schema: "http://json-schema.org/draft-07/schema#", type: "object" },
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(locations(report.warnings), ["schema.$schema"]);
});
