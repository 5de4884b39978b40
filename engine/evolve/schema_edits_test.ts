import assert from "node:assert/strict";
import type { Finding } from "../errors.ts";
import type { JsonObject } from "../json/value.ts";
import { parseEvolution } from "./evolution.ts";
import { definitionReferences, editSchema } from "./schema_edits.ts";
import { withBrowserProtoAccessor } from "../_test_utils.ts";

const SCHEMA: JsonObject = {
  type: "object",
  required: ["name", "home"],
  properties: {
    name: { type: "string" },
    home: { $ref: "#/$defs/Address" },
    work: { $ref: "#/$defs/Address" },
    items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
    kind: { enum: [{ $ref: "#/$defs/Unused" }] },
  },
  $defs: {
    Address: { type: "object", properties: { city: { type: "string" }, geo: { $ref: "#/$defs/Geo" } } },
    Geo: { type: "object" },
    Unused: { type: "number" },
  },
};

/** The edited schema and the findings, for an evolution shape-checked like the service does. */
function edit(evolution: unknown, schema: JsonObject = SCHEMA): { schema: JsonObject; findings: Finding[] } {
  const copy = structuredClone(schema);
  const findings: Finding[] = [];
  editSchema(copy, parseEvolution(evolution), findings);
  return { schema: copy, findings };
}

const props = (schema: JsonObject) => schema.properties as Record<string, JsonObject>;

Deno.test("upsertSchemaDefs adds and replaces definitions wholesale", () => {
  const { schema, findings } = edit({
    upsertSchemaDefs: { Geo: { type: "string" }, Money: { type: "number" } },
  });
  assert.deepEqual(findings, []);
  assert.deepEqual((schema.$defs as JsonObject).Geo, { type: "string" });
  assert.deepEqual((schema.$defs as JsonObject).Money, { type: "number" });
  const bare = edit({ upsertSchemaDefs: { Money: true } }, { type: "object" }).schema;
  assert.deepEqual(bare.$defs, { Money: true });
});

Deno.test("removeSchemaDefs removes an unreferenced definition; references in data keywords do not count", () => {
  const { schema, findings } = edit({ removeSchemaDefs: ["Unused"] });
  assert.deepEqual(findings, []);
  assert.equal((schema.$defs as JsonObject).Unused, undefined);
});

Deno.test("removeSchemaDefs of a name every object inherits (toString, constructor) is no definition", () => {
  const { schema, findings } = edit({ removeSchemaDefs: ["toString", "constructor"] });
  assert.deepEqual(findings, [
    { location: "removeSchemaDefs[0]", message: "there is no definition 'toString' in $defs" },
    { location: "removeSchemaDefs[1]", message: "there is no definition 'constructor' in $defs" },
  ]);
  assert.deepEqual(schema.$defs, SCHEMA.$defs);
});

Deno.test("removeSchemaDefs is refused while referenced, listing every referencing place", () => {
  const { findings } = edit({ removeSchemaDefs: ["Address", "Nope"] });
  assert.deepEqual(findings, [
    { location: "removeSchemaDefs[1]", message: "there is no definition 'Nope' in $defs" },
    {
      location: "removeSchemaDefs[0]",
      message:
        "definition 'Address' is still referenced at schema.properties.home.$ref, schema.properties.work.$ref",
    },
  ]);
});

Deno.test("a definition goes together with the nodes and definitions that referenced it", () => {
  const { schema, findings } = edit({
    removeSchemaNodes: ["$.home", "$.work"],
    removeSchemaDefs: ["Address", "Geo"],
  });
  assert.deepEqual(findings, []);
  assert.deepEqual(Object.keys(schema.$defs as JsonObject), ["Unused"]);
  assert.deepEqual(schema.required, ["name"]);
});

Deno.test("upsertSchemaNodes replaces a node and edits the parent's required list (tri-state)", () => {
  const added =
    edit({ upsertSchemaNodes: [{ path: "$.name", schema: { type: "string", maxLength: 9 } }] }).schema;
  assert.deepEqual(props(added).name, { type: "string", maxLength: 9 });
  assert.deepEqual(added.required, ["name", "home"], "absent required leaves the list");
  const dropped = edit({ upsertSchemaNodes: [{ path: "$.name", schema: {}, required: false }] }).schema;
  assert.deepEqual(dropped.required, ["home"]);
  const kept = edit({ upsertSchemaNodes: [{ path: "$.name", schema: {}, required: null }] }).schema;
  assert.deepEqual(kept.required, ["name", "home"]);
  const made =
    edit({ upsertSchemaNodes: [{ path: "$.age", schema: { type: "integer" }, required: true }] }).schema;
  assert.deepEqual(made.required, ["name", "home", "age"]);
  const cleared = edit({
    upsertSchemaNodes: [{ path: "$.name", schema: {}, required: false }, {
      path: "$.home",
      schema: {},
      required: false,
    }],
  }).schema;
  assert.equal(cleared.required, undefined, "an emptied required list is removed");
});

Deno.test("upsertSchemaNodes creates intermediate object and array nodes", () => {
  const { schema, findings } = edit({
    upsertSchemaNodes: [
      { path: "$.shipping.address.zip", schema: { type: "string" }, required: true },
      { path: "$.orders[*].lines[*].qty", schema: { type: "integer" } },
      { path: "$.items[*].price", schema: { type: "number" } },
      { path: "$['odd key']", schema: { type: "boolean" } },
    ],
  });
  assert.deepEqual(findings, []);
  assert.deepEqual(props(schema).shipping, {
    type: "object",
    properties: { address: { type: "object", properties: { zip: { type: "string" } }, required: ["zip"] } },
  });
  assert.deepEqual(props(schema).orders, {
    type: "array",
    items: {
      type: "object",
      properties: {
        lines: { type: "array", items: { type: "object", properties: { qty: { type: "integer" } } } },
      },
    },
  });
  assert.deepEqual(props(schema).items, {
    type: "array",
    items: { type: "object", properties: { sku: { type: "string" }, price: { type: "number" } } },
  });
  assert.deepEqual(props(schema)["odd key"], { type: "boolean" });
});

Deno.test("schema nodes named like members every object inherits (toString, constructor) are no nodes yet", () => {
  const created = edit({ upsertSchemaNodes: [{ path: "$.constructor.name", schema: { type: "string" } }] });
  assert.deepEqual(created.findings, []);
  assert.deepEqual(props(created.schema).constructor, {
    type: "object",
    properties: { name: { type: "string" } },
  });
  const { findings } = edit({ removeSchemaNodes: ["$.toString"] });
  assert.deepEqual(findings, [{
    location: "removeSchemaNodes[0]",
    message: "there is no schema node at $.toString",
  }]);
});

Deno.test("upsertSchemaNodes can replace a whole array's items", () => {
  const { schema } = edit({ upsertSchemaNodes: [{ path: "$.items[*]", schema: { type: "string" } }] });
  assert.deepEqual(props(schema).items, { type: "array", items: { type: "string" } });
});

Deno.test("upsertSchemaNodes refusals: $ref on the way, non-container nodes, indices, root, required on items", () => {
  const { findings } = edit({
    upsertSchemaNodes: [
      { path: "$.home.zip", schema: {} },
      { path: "$.name.first", schema: {} },
      { path: "$.name[*]", schema: {} },
      { path: "$.items[0].sku", schema: {} },
      { path: "$", schema: {} },
      { path: "$.items[*]", schema: {}, required: true },
      { path: "items.x", schema: {} },
    ],
  });
  assert.deepEqual(findings, [
    {
      location: "upsertSchemaNodes[0].path",
      message: "$.home.zip passes through the $ref at schema.properties.home ('#/$defs/Address'): " +
        "edit the definition with upsertSchemaDefs instead",
    },
    { location: "upsertSchemaNodes[1].path", message: "schema.properties.name does not describe an object" },
    { location: "upsertSchemaNodes[2].path", message: "schema.properties.name does not describe an array" },
    {
      location: "upsertSchemaNodes[3].path",
      message: "$.items[0].sku: address array items with [*], not an index",
    },
    {
      location: "upsertSchemaNodes[4].path",
      message: "the root schema is replaced with newSchema, not edited as a node",
    },
    { location: "upsertSchemaNodes[5].required", message: "applies to object members, not array items" },
    {
      location: "upsertSchemaNodes[6].path",
      message: "'items.x' uses the unrooted form; write it as '$.items.x'",
    },
  ]);
});

Deno.test("a node behind a $ref may itself be replaced", () => {
  const { schema, findings } = edit({ upsertSchemaNodes: [{ path: "$.home", schema: { type: "string" } }] });
  assert.deepEqual(findings, []);
  assert.deepEqual(props(schema).home, { type: "string" });
});

Deno.test("removeSchemaNodes removes the node and its parent's required entry", () => {
  const { schema, findings } = edit({ removeSchemaNodes: ["$.name", "$.items[*].sku"] });
  assert.deepEqual(findings, []);
  assert.equal(props(schema).name, undefined);
  assert.deepEqual(schema.required, ["home"]);
  assert.deepEqual(props(schema).items, { type: "array", items: { type: "object", properties: {} } });
});

Deno.test("removeSchemaNodes refusals: absent node, $ref on the way, both upserted and removed", () => {
  const { findings } = edit({
    removeSchemaNodes: ["$.ghost", "$.home.city", "$.missing.deeper", "$.name"],
    upsertSchemaNodes: [{ path: "$['name']", schema: {} }],
  });
  assert.deepEqual(findings, [
    { location: "removeSchemaNodes[0]", message: "there is no schema node at $.ghost" },
    {
      location: "removeSchemaNodes[1]",
      message: "$.home.city passes through the $ref at schema.properties.home ('#/$defs/Address'): " +
        "edit the definition with upsertSchemaDefs instead",
    },
    { location: "removeSchemaNodes[2]", message: "there is no schema node at $.missing.deeper" },
    { location: "upsertSchemaNodes[0]", message: "$.name is both upserted and removed" },
  ]);
});

Deno.test("a definition both upserted and removed is refused", () => {
  const { findings } = edit({ upsertSchemaDefs: { Unused: {} }, removeSchemaDefs: ["Unused"] });
  assert.deepEqual(findings, [{
    location: "upsertSchemaDefs.Unused",
    message: "is both upserted and removed (removeSchemaDefs)",
  }]);
});

Deno.test("definitionReferences finds local $refs, decoding pointer escapes", () => {
  assert.deepEqual(
    definitionReferences({
      anyOf: [{ $ref: "#/$defs/a~1b" }, { $ref: "#/$defs/Plain" }, { $ref: "https://example.com/x" }],
      const: { $ref: "#/$defs/Data" },
    }),
    [{ name: "a/b", location: "schema.anyOf[0].$ref" }, { name: "Plain", location: "schema.anyOf[1].$ref" }],
  );
});

Deno.test("a property named __proto__ is a schema node like any other, under a browser's accessor too", async () => {
  const { schema, findings } = await withBrowserProtoAccessor(() =>
    edit(JSON.parse(`{
      "upsertSchemaNodes": [{"path": "$.__proto__.x", "schema": {"type": "number"}}],
      "upsertSchemaDefs": {"__proto__": {"type": "string"}},
      "removeSchemaNodes": ["$.items[*].__proto__"]
    }`))
  );
  assert.deepEqual(findings.map((f) => f.message), ["there is no schema node at $.items[*].__proto__"]);
  const properties = schema.properties as Record<string, JsonObject>;
  assert.equal(
    JSON.stringify(properties.__proto__),
    '{"type":"object","properties":{"x":{"type":"number"}}}',
  );
  assert.equal(Object.getPrototypeOf(properties), Object.prototype);
  assert.ok(Object.hasOwn(schema.$defs as JsonObject, "__proto__"));
  assert.equal(({} as JsonObject).properties, undefined, "Object.prototype is untouched");
  assert.deepEqual(
    edit({ removeSchemaDefs: ["toString"] }).findings.map((f) => f.message),
    ["there is no definition 'toString' in $defs"],
  );
});

Deno.test("definitionReferences: a field named const holds a schema; a malformed escape names no definition", () => {
  const references = definitionReferences({
    properties: { const: { $ref: "#/$defs/A" }, b: { const: { $ref: "#/$defs/Data" } } },
    $defs: { A: { $ref: "#/$defs/%zz" } },
  });
  assert.deepEqual(references, [
    { name: "A", location: "schema.properties.const.$ref" },
    { name: "%zz", location: "schema.$defs.A.$ref" },
  ]);
});
