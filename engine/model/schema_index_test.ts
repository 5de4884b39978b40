import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { isObject, type JsonObject } from "../json/value.ts";
import { checkSchemaReferences, SchemaIndex } from "./schema_index.ts";
import { drain } from "../pacing.ts";

const LIMITS = { maxInput: 100, timeoutMs: 1000, now: Date.now };

const SCHEMA: JsonObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 2, pattern: "^[A-Z]" },
    qty: { type: "integer", minimum: 0, maximum: 10, multipleOf: 2 },
    status: { enum: ["open", "closed"] },
    fixed: { type: "string", readOnly: true },
    money: { $ref: "#/$defs/Money", description: "sibling kept" },
    items: { type: "array", items: { $ref: "#/$defs/Item" } },
    pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], items: false },
    strict: { type: "object", additionalProperties: false, properties: { a: { type: "number" } } },
    dict: { type: "object", additionalProperties: { type: "number" } },
    tagged: { type: "object", patternProperties: { "^x-": { type: "string" } } },
    combined: {
      allOf: [{ properties: { left: { type: "number" } } }, { properties: { right: { type: "string" } } }],
    },
    nothing: false,
  },
  $defs: {
    Money: { type: "number", minimum: 0 },
    Item: {
      type: "object",
      required: ["sku"],
      properties: { sku: { type: "string" }, qty: { type: "number" } },
    },
  },
};

const index = () => new SchemaIndex(SCHEMA, LIMITS);
const violations = (path: (string | number)[], value: unknown) =>
  index().validateAt(path, value as never).map((v) => `${v.path} ${v.keyword}`);

Deno.test("checkSchemaReferences: errors for non-local refs, dangling refs and $dynamicRef; warnings for unused $defs", () => {
  const { errors, warnings } = checkSchemaReferences({
    properties: {
      a: { $ref: "#/$defs/A" },
      b: { $dynamicRef: "#meta" },
      c: { $ref: "#/$defs/Nope" },
      // $ref inside enum/const/default/examples values is data, not a reference
      d: { enum: [{ $ref: "http://x" }], default: { $ref: "http://y" } },
    },
    $defs: { A: {}, "Odd/Name": {} },
  });
  assert.deepEqual(errors.map((e) => e.location), [
    "schema.properties.b.$dynamicRef",
    "schema.properties.c.$ref",
  ]);
  assert.deepEqual(warnings, [{
    location: "schema.$defs.Odd/Name",
    message: "definition 'Odd/Name' is not referenced",
  }]);
});

Deno.test("checkSchemaReferences resolves escaped definition names", () => {
  const { errors, warnings } = checkSchemaReferences({
    properties: { a: { $ref: "#/$defs/Odd~1Name" }, b: { $ref: "#/$defs/with%20space" } },
    $defs: { "Odd/Name": {}, "with space": {} },
  });
  assert.deepEqual(errors, []);
  assert.deepEqual(warnings, []);
});

Deno.test("checkSchemaReferences: a malformed escape in a reference's name is a dangling reference, not a crash", () => {
  const { errors } = checkSchemaReferences({ properties: { a: { $ref: "#/$defs/%zz" } }, $defs: { A: {} } });
  assert.deepEqual(errors, [{
    location: "schema.properties.a.$ref",
    message: "dangling reference '#/$defs/%zz': no such definition",
  }]);
});

Deno.test("a field compiles with only the $defs it reaches, transitively (the whole $defs each was quadratic)", () => {
  // The fields ajv compiles ($defs and all), by the rest of their text.
  const compiled = new Map<string, string[]>();
  const proto = Ajv2020.prototype as unknown as { compile(schema: unknown, ...rest: unknown[]): unknown };
  const compile = proto.compile;
  proto.compile = function (schema, ...rest) {
    if (isObject(schema) && isObject(schema.$defs)) {
      const { $defs, ...field } = schema;
      compiled.set(JSON.stringify(field), Object.keys($defs).sort());
    }
    return compile.call(this, schema, ...rest);
  };
  try {
    const schema = new SchemaIndex({
      type: "object",
      properties: {
        one: { $ref: "#/$defs/One" },
        loop: { type: "array", items: { $ref: "#/$defs/Loop" } },
        // A data keyword's `$ref` names no definition (nor one that would not decode).
        data: { const: { $ref: "#/$defs/%zz" }, default: { $ref: "#/$defs/constructor" } },
      },
      $defs: {
        One: { type: "string" },
        Loop: { type: "object", properties: { next: { $ref: "#/$defs/Next" } } },
        Next: { $ref: "#/$defs/Loop" },
        Other: { type: "number" },
      },
    }, LIMITS);
    drain(schema.prepare());
    assert.deepEqual(compiled.get('{"$ref":"#/$defs/One"}'), ["One"]);
    assert.deepEqual(compiled.get('{"type":"array","items":{"$ref":"#/$defs/Loop"}}'), ["Loop", "Next"]);
    assert.deepEqual(
      compiled.get('{"const":{"$ref":"#/$defs/%zz"},"default":{"$ref":"#/$defs/constructor"}}'),
      [],
    );
    assert.deepEqual(schema.validateAt(["loop"], [{ next: { next: 1 } }]), [{
      path: "$.loop[0].next.next",
      keyword: "type",
      message: "must be object",
    }]);
    assert.deepEqual(schema.validateAt(["data"], { $ref: "#/$defs/%zz" }), []);
  } finally {
    proto.compile = compile;
  }
});

Deno.test("fragmentAt follows properties, items, $refs (keeping siblings), patternProperties and allOf", () => {
  const schema = index();
  assert.deepEqual(schema.fragmentAt(["name"]), SCHEMA.properties && (SCHEMA.properties as JsonObject).name);
  assert.deepEqual(schema.fragmentAt(["money"]), { type: "number", minimum: 0, description: "sibling kept" });
  assert.deepEqual(schema.fragmentAt(["items", 3, "sku"]), { type: "string" });
  assert.deepEqual(schema.fragmentAt(["items", -1, "qty"]), { type: "number" });
  assert.deepEqual(schema.fragmentAt(["pair", 1]), { type: "number" });
  assert.deepEqual(schema.fragmentAt(["dict", "anything"]), { type: "number" });
  assert.deepEqual(schema.fragmentAt(["tagged", "x-color"]), { type: "string" });
  assert.deepEqual(schema.fragmentAt(["combined", "right"]), { type: "string" });
  assert.deepEqual(schema.fragmentAt(["unknown", "deeper"]), {});
});

Deno.test("locate reports places the schema forbids", () => {
  const schema = index();
  assert.deepEqual(schema.locate(["strict", "b"]), {
    kind: "forbidden",
    keyword: "additionalProperties",
    message: "property 'b' is not allowed by the schema",
  });
  assert.equal(schema.locate(["pair", 2]).kind, "forbidden");
  assert.equal(schema.locate(["nothing"]).kind, "forbidden");
  assert.equal(schema.locate(["tagged", "plain"]).kind, "unknown");
});

Deno.test("isArrayAt and isStaticallyRequired", () => {
  const schema = index();
  assert.equal(schema.isArrayAt(["items"]), true);
  assert.equal(schema.isArrayAt(["pair"]), true);
  assert.equal(schema.isArrayAt(["name"]), false);
  assert.equal(schema.isArrayAt(["unknown"]), false);
  assert.equal(schema.isStaticallyRequired(["name"]), true);
  assert.equal(schema.isStaticallyRequired(["qty"]), false);
  assert.equal(schema.isStaticallyRequired(["items", 0, "sku"]), true);
  assert.equal(schema.isStaticallyRequired(["items", 0]), false);
});

Deno.test("validateAt checks a written value against its fragment, with path and keyword per violation", () => {
  assert.deepEqual(violations(["qty"], 4), []);
  assert.deepEqual(violations(["qty"], 3), ["$.qty multipleOf"]);
  assert.deepEqual(violations(["qty"], 13), ["$.qty maximum", "$.qty multipleOf"]);
  assert.deepEqual(violations(["qty"], -2), ["$.qty minimum"]);
  assert.deepEqual(violations(["qty"], 1.5)[0], "$.qty type");
  assert.deepEqual(violations(["name"], "a"), ["$.name minLength", "$.name pattern"]);
  assert.deepEqual(violations(["status"], "pending"), ["$.status enum"]);
  assert.deepEqual(violations(["money"], -1), ["$.money minimum"]);
  assert.deepEqual(violations(["items", 0], { qty: "x" }), ["$.items[0] required", "$.items[0].qty type"]);
  assert.deepEqual(violations(["strict"], { a: 1, b: 2 }), ["$.strict additionalProperties"]);
  assert.deepEqual(violations(["strict", "b"], 1), ["$.strict.b additionalProperties"]);
  // A name Object.prototype has is no declared property.
  assert.deepEqual(violations(["strict", "constructor"], 1), ["$.strict.constructor additionalProperties"]);
  assert.deepEqual(violations(["dict", "toString"], "x"), ["$.dict.toString type"]);
  assert.deepEqual(violations(["anything"], { free: true }), [], "unknown places accept any value");
});

Deno.test("validateAt messages name allowed enum values and the extra property", () => {
  const schema = index();
  assert.match(schema.validateAt(["status"], "x")[0].message, /\["open","closed"\]/);
  assert.match(schema.validateAt(["strict"], { zzz: 1 })[0].message, /'zzz'/);
});

Deno.test("pattern checks refuse input longer than svc.limits.regex-max-input", () => {
  const long = "A" + "a".repeat(150);
  const result = index().validateAt(["name"], long);
  assert.equal(result.length, 1);
  assert.equal(result[0].keyword, "pattern");
  assert.match(result[0].message, /exceeds svc\.limits\.regex-max-input \(100\)/);
});

Deno.test("validateDocument validates the whole document against the root schema", () => {
  const schema = index();
  assert.deepEqual(schema.validateDocument({ name: "Ab" }), []);
  assert.deepEqual(schema.validateDocument({}).map((v) => `${v.path} ${v.keyword}`), ["$ required"]);
});

Deno.test("an invalid schema fails at construction or preparation with ajv's message", () => {
  const prepared = (schema: JsonObject) => drain(new SchemaIndex(schema, LIMITS).prepare());
  assert.throws(() => new SchemaIndex({ type: "object", properties: { a: { type: 12 } } }, LIMITS), Error);
  assert.throws(() => prepared({ type: "string", pattern: "(?<=x)" }), Error);
  assert.throws(
    () => prepared({ type: "object", properties: { a: { type: "string", pattern: "(?<=x)" } } }),
    Error,
  );
});

Deno.test("locating a path again (kept per schema node) answers as the first time, for every kind of segment", () => {
  const paths: (string | number)[][] = [
    [],
    ["name"],
    ["money"],
    ["items", 0, "sku"],
    ["items", 7, "qty"],
    ["items", -1, "sku"],
    ["pair", 0],
    ["pair", 1],
    ["pair", 2],
    ["pair", -1],
    ["strict", "a"],
    ["strict", "b"],
    ["dict", "anything"],
    ["dict", "other"],
    ["dict", "toString"],
    ["tagged", "x-one"],
    ["tagged", "x-two"],
    ["strict", "c"],
    ["tagged", "other"],
    ["combined", "left"],
    ["combined", "right"],
    ["nothing"],
    ["unknown", "deeper"],
    ["toString"],
  ];
  const used = index();
  for (const path of paths) used.locate(path);
  for (const path of paths) {
    assert.deepEqual(used.locate(path), index().locate(path), JSON.stringify(path));
    assert.deepEqual(
      used.validateAt(path, "v" as never),
      index().validateAt(path, "v" as never),
      JSON.stringify(path),
    );
  }
});

Deno.test("specs with one schema share its compiled form, each under its own regex limits", () => {
  const schema = () => ({ type: "object", properties: { code: { type: "string", pattern: "^a+$" } } });
  const long = "a".repeat(50);
  const short = new SchemaIndex(schema(), { ...LIMITS, maxInput: 10 });
  const roomy = new SchemaIndex(schema(), { ...LIMITS, maxInput: 100 });
  assert.equal(short.validateAt(["code"], long).length, 1, "over its 10-character limit");
  assert.deepEqual(roomy.validateAt(["code"], long), [], "the same schema under a larger limit");
  assert.equal(new SchemaIndex(schema(), { ...LIMITS, maxInput: 10 }).validateAt(["code"], long).length, 1);
});

Deno.test("a spec changing its schema object later does not change what another spec with that schema validates", () => {
  const schema = () => ({ type: "object", properties: { tag: { type: "string", pattern: "^c+$" } } });
  const first = schema();
  new SchemaIndex(first, LIMITS);
  first.properties.tag.pattern = "^d+$";
  const second = new SchemaIndex(schema(), LIMITS);
  assert.deepEqual(second.validateAt(["tag"], "ccc"), []);
  assert.equal(second.validateAt(["tag"], "ddd").length, 1);
});

Deno.test("identical fragments share one validator; fragments whose meaning depends on their place do not", () => {
  const fields = new SchemaIndex({
    type: "object",
    properties: { a: { type: "integer", minimum: 0 }, b: { type: "integer", minimum: 0 } },
  }, LIMITS);
  assert.deepEqual(fields.validateAt(["a"], 1), []);
  assert.deepEqual(fields.validateAt(["b"], -1), [{
    path: "$.b",
    keyword: "minimum",
    message: "must be >= 0",
  }]);
  assert.deepEqual(fields.validateAt(["a"], -1), [{
    path: "$.a",
    keyword: "minimum",
    message: "must be >= 0",
  }]);
  // The same text, `{"$ref": "#/$defs/n"}`, resolves against each field's own `$id`.
  const placed = new SchemaIndex({
    type: "object",
    properties: {
      x: {
        $id: "https://example.com/x",
        $defs: { n: { type: "string" } },
        properties: { v: { $ref: "#/$defs/n" } },
      },
      y: {
        $id: "https://example.com/y",
        $defs: { n: { type: "number" } },
        properties: { v: { $ref: "#/$defs/n" } },
      },
    },
  }, LIMITS);
  assert.deepEqual(placed.validateAt(["x", "v"], "text"), []);
  assert.equal(placed.validateAt(["y", "v"], "text")[0]?.keyword, "type");
});

Deno.test("a $ref with sibling keywords: a write checks the siblings too, and shares no validator by its merged text", () => {
  const schema = new SchemaIndex({
    type: "object",
    properties: {
      a: { $ref: "#/$defs/N", maximum: 5 },
      b: { type: "number", maximum: 5 },
      c: { $ref: "#/$defs/N" },
    },
    $defs: { N: { type: "number" } },
  }, LIMITS);
  assert.deepEqual(schema.validateAt(["a"], 10), [{
    path: "$.a",
    keyword: "maximum",
    message: "must be <= 5",
  }]);
  assert.deepEqual(schema.validateAt(["a"], 5), []);
  // b's text equals a's merged view, `{"type": "number", "maximum": 5}`: it keeps its own maximum.
  assert.deepEqual(schema.validateAt(["b"], 10), [{
    path: "$.b",
    keyword: "maximum",
    message: "must be <= 5",
  }]);
  assert.deepEqual(schema.validateAt(["c"], 10), [], "the referenced node alone has no maximum");
  assert.equal(schema.validateAt(["c"], "x")[0]?.keyword, "type");
});

Deno.test("a $ref whose siblings have children of their own: each child is found where it is declared", () => {
  const schema = new SchemaIndex({
    type: "object",
    properties: { a: { $ref: "#/$defs/Obj", properties: { y: { type: "string" } } } },
    $defs: { Obj: { type: "object", properties: { x: { type: "number" } } } },
  }, LIMITS);
  assert.deepEqual(schema.fragmentAt(["a", "x"]), { type: "number" }, "from the referenced node");
  assert.deepEqual(schema.fragmentAt(["a", "y"]), { type: "string" }, "from the siblings");
  assert.deepEqual(schema.validateAt(["a", "x"], 1), []);
  assert.deepEqual(schema.validateAt(["a", "x"], "s"), [{
    path: "$.a.x",
    keyword: "type",
    message: "must be number",
  }]);
  assert.deepEqual(schema.validateAt(["a", "y"], 1), [{
    path: "$.a.y",
    keyword: "type",
    message: "must be string",
  }]);
  assert.deepEqual(
    schema.validateAt(["a", "x"], "s"),
    schema.validateAt(["a", "x"], "s"),
    "located again alike",
  );
});

Deno.test("checkSchemaReferences: fields named like data keywords (const, default, enum, examples) are schemas, their refs checked", () => {
  const { errors, warnings } = checkSchemaReferences({
    type: "object",
    properties: {
      const: { $ref: "#/$defs/Missing" },
      default: { $ref: "#/$defs/Used" },
      enum: { type: "array", items: { $ref: "#/$defs/Item" } },
      examples: { const: { $ref: "#/$defs/Unused" } },
    },
    $defs: { Used: { type: "number" }, Item: { type: "string" }, Unused: { type: "null" } },
  });
  assert.deepEqual(errors, [{
    location: "schema.properties.const.$ref",
    message: "dangling reference '#/$defs/Missing': no such definition",
  }]);
  // `examples.const` is the keyword: its value is data, so Unused stays unreferenced.
  assert.deepEqual(warnings.map((w) => w.location), ["schema.$defs.Unused"]);
});
