/**
 * A root schema with `properties` is compiled in pieces (schema_index.ts
 * `CompiledSchema.fields`): its own keywords with each field `true`, then each
 * field alone. Its whole-document check reports what ajv's one function for
 * the whole root reports, in the same order, and no lookup compiles it whole.
 */
import assert from "node:assert/strict";
import type { Json, JsonObject } from "../json/value.ts";
import { drain } from "../pacing.ts";
import { SchemaIndex } from "./schema_index.ts";
import { SectionContext } from "./sections/context.ts";
import { compileSchema } from "./sections/schema.ts";
import type { ModelSpec } from "./types.ts";
import { testCompiler, testConfig } from "../_test_utils.ts";

const LIMITS = { maxInput: 100, timeoutMs: 1000, now: Date.now };

const DEFS: JsonObject = {
  Money: { type: "number", minimum: 0 },
  Item: {
    type: "object",
    required: ["sku"],
    properties: { sku: { type: "string" }, tags: { $ref: "#/$defs/Tags" } },
  },
  Tags: { type: "array", items: { type: "string", maxLength: 3 }, uniqueItems: true },
};

const FIELDS: JsonObject = {
  name: { type: "string", minLength: 2, pattern: "^[A-Z]" },
  qty: { type: "integer", minimum: 0, maximum: 10, multipleOf: 2 },
  status: { enum: ["open", "closed"] },
  money: { $ref: "#/$defs/Money", maximum: 100 },
  items: { type: "array", items: { $ref: "#/$defs/Item" } },
  strict: { type: "object", additionalProperties: false, properties: { a: { type: "number" } } },
  "a/b~c": { type: "number" },
  toString: { type: "string" },
  nothing: false,
  when: { type: "string", format: "date" },
};

// A `__proto__` field (a JSON text's own member, as a spec's schema has it) is checked, split or whole.
Object.assign(FIELDS, JSON.parse('{"__proto__": {"type": "string"}}'));

/** Root schemas: split (their keywords all come before `properties`) and, for contrast, whole. */
const SCHEMAS: JsonObject[] = [
  { type: "object", properties: FIELDS, $defs: DEFS },
  { type: "object", required: ["name", "qty"], additionalProperties: false, properties: FIELDS, $defs: DEFS },
  { properties: FIELDS, $defs: DEFS, minProperties: 3, propertyNames: { maxLength: 5 } },
  {
    type: "object",
    properties: FIELDS,
    $defs: DEFS,
    if: { properties: { status: { const: "closed" } } },
    then: { required: ["qty"] },
    allOf: [{ properties: { name: { maxLength: 4 } } }],
    not: { required: ["extra"] },
  },
  { type: ["object", "null"], properties: FIELDS, $defs: DEFS, additionalProperties: { type: "boolean" } },
];

const DOCS: Json[] = [
  {},
  { name: "Ab", qty: 4, status: "open", money: 5, items: [{ sku: "x", tags: ["a"] }] },
  {
    name: "a",
    qty: 3.5,
    status: "other",
    money: -1,
    items: [{ tags: ["long", "long"] }, 7],
    strict: { b: 1 },
  },
  { "a/b~c": "x", nothing: 1, extra: true, status: "closed", when: "yesterday", money: 500 },
  { name: 5, qty: "4", items: "none", strict: [], other: "y" },
  null,
  [1, 2],
  "text",
  { toString: "ok", name: "Abcdef" },
  JSON.parse('{"__proto__": 5, "name": "Ab"}'),
];

Deno.test("a split root reports what the whole root reports, in order", () => {
  for (const schema of SCHEMAS) {
    const split = new SchemaIndex(schema, LIMITS);
    // `dependentRequired` is checked after `properties`: the root with it (a no-op here) is compiled whole.
    const whole = new SchemaIndex({ ...schema, dependentRequired: {} }, LIMITS);
    for (const doc of DOCS) {
      const found = split.validateDocument(doc);
      assert.deepEqual(found, whole.validateDocument(doc), JSON.stringify([schema, doc]));
      assert.deepEqual(split.validateAt([], doc), found);
    }
  }
});

Deno.test("a field's violations are the same whether the root was checked or not", () => {
  for (const schema of SCHEMAS) {
    const fresh = () => new SchemaIndex(schema, LIMITS);
    const used = fresh();
    for (const doc of DOCS) used.validateDocument(doc);
    for (const doc of DOCS.filter((d) => d !== null && typeof d === "object" && !Array.isArray(d))) {
      for (const [name, value] of Object.entries(doc as JsonObject)) {
        assert.deepEqual(used.validateAt([name], value), fresh().validateAt([name], value), name);
      }
    }
  }
});

Deno.test("a large root is never compiled into one function, by a field's lookup or a whole-document check", () => {
  const properties: JsonObject = {};
  for (let i = 0; i < 1000; i++) properties[`f${i}`] = { type: "number", maximum: i };
  const schema = { type: "object", required: ["f0"], properties };
  const Original = globalThis.Function;
  let largest = 0;
  globalThis.Function = new Proxy(Original, {
    construct(target, args) {
      largest = Math.max(largest, String(args[args.length - 1]).length);
      return Reflect.construct(target, args);
    },
  });
  try {
    const index = new SchemaIndex(schema, LIMITS);
    drain(index.prepare());
    assert.deepEqual(index.validateAt(["f3"], 4).map((v) => v.keyword), ["maximum"]);
    assert.deepEqual(index.validateDocument({ f1: 2, f5: 1 }).map((v) => `${v.path} ${v.keyword}`), [
      "$ required",
      "$.f1 maximum",
    ]);
  } finally {
    globalThis.Function = Original;
  }
  // The whole root's function is about 400 bytes a field; a field's, a few hundred in all.
  assert.ok(largest > 0 && largest < 20_000, `largest generated validator: ${largest} characters`);
});

Deno.test("two schemas that differ only in their fields' order each check a document in their own order", () => {
  // Compiled schemas are shared by the schema's text: a key blind to member order gave the second
  // schema the first one's field order, so its whole-document check reported `b` after `a`.
  const ab = new SchemaIndex({ properties: { a: { type: "number" }, b: { type: "number" } } }, LIMITS);
  const ba = new SchemaIndex({ properties: { b: { type: "number" }, a: { type: "number" } } }, LIMITS);
  const doc = { a: "x", b: "y" };
  assert.deepEqual(ab.validateDocument(doc).map((v) => v.path), ["$.a", "$.b"]);
  assert.deepEqual(ba.validateDocument(doc).map((v) => v.path), ["$.b", "$.a"]);
});

Deno.test("the schema section yields after its reference check, before ajv checks the schema", () => {
  const config = testConfig();
  const ctx = new SectionContext({ compiler: testCompiler(config), config, now: Date.now });
  const spec = {
    id: "m",
    schema: { type: "object", properties: { x: { type: 12 } } },
  } as unknown as ModelSpec;
  const steps = compileSchema(spec, ctx);
  // The first piece ends before the meta-schema check (which refuses this schema) runs.
  assert.equal(steps.next().done, false);
  assert.equal(ctx.errors.length, 0);
  assert.equal(drain(steps), undefined);
  assert.deepEqual(ctx.errors.map((f) => f.location), ["schema"]);
});
