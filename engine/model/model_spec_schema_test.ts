import assert from "node:assert/strict";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { compile } from "../_test_utils.ts";
import type { JsonObject } from "../json/value.ts";
import { parsePath } from "../json/path.ts";
import { EXAMPLES } from "../authoring/examples/mod.ts";
import { ADDRESS_PATTERN, CONCRETE_ADDRESS_PATTERN, MODEL_SPEC_SCHEMA } from "./model_spec_schema.ts";

const CONFORMANCE_EXAMPLES = new URL("../../../shared/conformance/examples/", import.meta.url);

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validateSpec = ajv.compile(MODEL_SPEC_SCHEMA);

function schemaErrors(spec: unknown): ErrorObject[] {
  return validateSpec(spec) ? [] : validateSpec.errors ?? [];
}

/** A small valid spec that each malformed case breaks in one place. */
function baseSpec(): JsonObject {
  return {
    id: "shop/cart",
    version: "1.2.0",
    schema: { type: "object", properties: { qty: { type: "integer" }, items: { type: "array" } } },
    derivations: [{ path: "$.items[*].total", expr: "$parent.qty * 2" }],
    metaDerivations: [{ path: "$.qty", property: "maximum", expr: "10" }],
    constraints: [{ id: "c", path: "$.items[*]", expr: "$parent.qty > 0", message: "m", policy: "flag" }],
    effects: [{ id: "e", executor: "caller", trigger: "qty > 1", emit: "x", payload: { n: "qty" } }],
    defaultValues: [{ path: "$", expr: "{'qty': 1}" }],
    tests: [{ given: { "$.qty": 2 }, expect: { "$.qty": 2, "$.items": { $meta: { relevant: true } } } }],
    viewDefinition: {
      defaultView: "main",
      views: [{
        id: "main",
        components: [{ id: "q", type: "numericField", bind: "$.qty", visible: "qty > 0" }],
      }],
    },
  };
}

/** Applies `edit` to a fresh base spec. */
function broken(edit: (spec: JsonObject) => void): JsonObject {
  const spec = baseSpec();
  edit(spec);
  return spec;
}

const section = (spec: JsonObject, name: string) => (spec[name] as JsonObject[])[0];
const firstComponent = (spec: JsonObject) =>
  (((spec.viewDefinition as JsonObject).views as JsonObject[])[0].components as JsonObject[])[0];

/** Malformed specs: each is refused by the schema and by the compiler alike. */
const MALFORMED: [string, JsonObject][] = [
  ["missing id", broken((s) => delete s.id)],
  ["id with an @", broken((s) => s.id = "shop@cart")],
  ["id starting with a digit", broken((s) => s.id = "1cart")],
  ["missing schema", broken((s) => delete s.schema)],
  ["schema that is not an object", broken((s) => s.schema = "object")],
  ["version that is not semver", broken((s) => s.version = "v1")],
  ["unknown top-level member", broken((s) => s.derivation = [])],
  ["non-empty actions", broken((s) => s.actions = [{ id: "a" }])],
  ["derivations that is not an array", broken((s) => s.derivations = { path: "$.a", expr: "1" })],
  ["derivation without expr", broken((s) => delete section(s, "derivations").expr)],
  ["derivation with a blank expr", broken((s) => section(s, "derivations").expr = "  ")],
  ["derivation path in legacy dot-index form", broken((s) => section(s, "derivations").path = "$.items.0.x")],
  ["derivation path without the $ root", broken((s) => section(s, "derivations").path = "total")],
  ["derivation of the root", broken((s) => section(s, "derivations").path = "$")],
  ["evaluation mode other than eager or lazy", broken((s) => section(s, "derivations").evaluation = "later")],
  ["meta property outside the list", broken((s) => section(s, "metaDerivations").property = "hidden")],
  ["meta derivation without path", broken((s) => delete section(s, "metaDerivations").path)],
  ["constraint without message", broken((s) => delete section(s, "constraints").message)],
  ["constraint policy other than rollback or flag", broken((s) => section(s, "constraints").policy = "warn")],
  ["constraint path that is a number", broken((s) => section(s, "constraints").path = 3)],
  ["constraint with a blank id", broken((s) => section(s, "constraints").id = "")],
  ["effect without trigger", broken((s) => delete section(s, "effects").trigger)],
  ["effect payload that is a number", broken((s) => section(s, "effects").payload = 5)],
  ["effect statusPath with a wildcard", broken((s) => section(s, "effects").statusPath = "$.io[*].s")],
  ["default rule without expr", broken((s) => delete section(s, "defaultValues").expr)],
  ["test without expect", broken((s) => delete section(s, "tests").expect)],
  ["test given keyed by an unrooted address", broken((s) => section(s, "tests").given = { qty: 2 })],
  [
    "test expect keyed by a wildcard address",
    broken((s) => section(s, "tests").expect = { "$.items[*].x": 1 }),
  ],
  ["view definition without views", broken((s) => delete (s.viewDefinition as JsonObject).views)],
  ["view without id", broken((s) => delete ((s.viewDefinition as JsonObject).views as JsonObject[])[0].id)],
  ["component without type", broken((s) => delete firstComponent(s).type)],
  ["component without id", broken((s) => delete firstComponent(s).id)],
  ["component bind without the $ root", broken((s) => firstComponent(s).bind = "qty")],
  ["component visible that is a number", broken((s) => firstComponent(s).visible = 1)],
  ["handler mutations that are not a string", broken((s) => firstComponent(s).onChange = { mutations: 3 })],
  ["renderer other than builtin", broken((s) => (s.viewDefinition as JsonObject).renderer = "react")],
];

Deno.test("the ModelSpec schema is a valid draft 2020-12 schema", () => {
  assert.equal(ajv.validateSchema(MODEL_SPEC_SCHEMA), true, JSON.stringify(ajv.errors));
  assert.equal(MODEL_SPEC_SCHEMA.$schema, "https://json-schema.org/draft/2020-12/schema");
});

Deno.test("the ModelSpec schema accepts every conformance example", async () => {
  const files = [...Deno.readDirSync(CONFORMANCE_EXAMPLES)].filter((f) => f.name.endsWith(".json"));
  assert.equal(files.length, 10, "the ten conformance examples should be present");
  for (const file of files) {
    const spec = JSON.parse(await Deno.readTextFile(new URL(file.name, CONFORMANCE_EXAMPLES)));
    assert.deepEqual(schemaErrors(spec), [], `${file.name} should validate`);
  }
});

Deno.test("the ModelSpec schema accepts the bundled examples and the base spec of these tests", () => {
  for (const { name, spec } of EXAMPLES) assert.deepEqual(schemaErrors(spec), [], `${name} should validate`);
  assert.deepEqual(schemaErrors(baseSpec()), []);
  assert.deepEqual(compile(baseSpec()).errors, [], "the base spec is valid for the compiler too");
});

Deno.test("the ModelSpec schema accepts optional sections left null and notes prefixed with _", () => {
  const spec = {
    ...baseSpec(),
    _name: "Cart",
    _notes: { anything: true },
    version: "",
    template: null,
    viewDefinition: null,
    actions: [],
    constraints: [{ id: "g", path: null, expr: "true", message: "m", policy: "rollback" }],
  };
  assert.deepEqual(schemaErrors(spec), []);
  assert.deepEqual(compile(spec).errors, []);
});

Deno.test("the ModelSpec schema refuses malformed specs, as the compiler does", () => {
  for (const [what, spec] of MALFORMED) {
    assert.notDeepEqual(schemaErrors(spec), [], `the schema should refuse a spec with ${what}`);
    assert.notDeepEqual(compile(spec).errors, [], `the compiler should refuse a spec with ${what}`);
  }
});

Deno.test("the ModelSpec schema refuses non-objects", () => {
  for (const value of [null, [], "spec", 42]) assert.notDeepEqual(schemaErrors(value), []);
});

Deno.test("the ModelSpec schema still resolves its references when embedded in a tool's input schema", () => {
  const input = {
    type: "object",
    required: ["spec"],
    properties: { spec: MODEL_SPEC_SCHEMA, mutations: { type: "array" } },
  };
  const validate = new Ajv2020({ strict: false }).compile(input);
  assert.equal(validate({ spec: baseSpec() }), true, JSON.stringify(validate.errors));
  const bad = broken((s) => delete firstComponent(s).type);
  assert.equal(validate({ spec: bad }), false);
  assert.ok(validate.errors?.some((e) => e.instancePath.startsWith("/spec/viewDefinition")));
});

Deno.test("the address patterns agree with the engine's path parser", () => {
  const samples = [
    "$",
    "$.a",
    "$.items[0].name",
    "$.items[*].lineTotal",
    "$.board[2][1]",
    "$['odd key'].x",
    `$["it's"]`,
    "$.a-b_c",
    "$.items.0.name",
    "$.items.*.qty",
    "items[0]",
    "$.",
    "$..a",
    "$[x]",
    "",
    " $.padded ",
  ];
  const address = new RegExp(ADDRESS_PATTERN, "u");
  const concrete = new RegExp(CONCRETE_ADDRESS_PATTERN, "u");
  for (const text of samples) {
    const parsed = parsePath(text);
    assert.equal(address.test(text), parsed.ok, `ADDRESS_PATTERN on '${text}'`);
    assert.equal(
      concrete.test(text),
      parsed.ok && !parsed.path.includes(-1),
      `CONCRETE_ADDRESS_PATTERN on '${text}'`,
    );
  }
});
