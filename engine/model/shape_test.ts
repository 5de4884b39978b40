import assert from "node:assert/strict";
import { EXAMPLES } from "../authoring/examples/mod.ts";
import { checkShape } from "./shape.ts";

/** A small spec of the right shape; tests break it in one place. */
function spec(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: "shop/order", schema: { type: "object" }, ...extra };
}

Deno.test("shape: a well-formed spec and every bundled example have no findings", () => {
  assert.deepEqual(checkShape(spec()), []);
  for (const { name, spec } of EXAMPLES) assert.deepEqual(checkShape(spec), [], name);
});

Deno.test("shape: a non-object is one finding at 'spec'", () => {
  for (const value of [null, [], "spec", 3]) {
    assert.deepEqual(checkShape(value), [{ location: "spec", message: "a ModelSpec must be a JSON object" }]);
  }
});

Deno.test("shape: unknown top-level fields come first, at the field; '_' notes pass", () => {
  assert.deepEqual(checkShape({ bogus: 1, _note: "kept", schema: {} }), [
    { location: "bogus", message: "unknown field 'bogus'" },
    { location: "id", message: "id is required" },
  ]);
});

Deno.test("shape: a missing member is required, or asks for the value it lacks", () => {
  assert.deepEqual(
    checkShape(spec({
      derivations: [{ path: "$.a" }],
      constraints: [{ id: "c", expr: "true", message: "m" }],
      effects: [{ id: "e" }],
      tests: [{ given: {} }],
      template: {},
    })),
    [
      {
        location: "template.ref",
        message:
          "a reference is required: use [ns/]name with an optional @version, @range or @sha256:<digest>",
      },
      { location: "derivations[0].expr", message: "a JSONata expression (non-empty string) is required" },
      { location: "constraints[0].policy", message: "policy must be 'rollback' or 'flag'" },
      { location: "effects[0].trigger", message: "a JSONata expression (non-empty string) is required" },
      { location: "tests[0].expect", message: "expect must be an object of address to value" },
    ],
  );
});

Deno.test("shape: wrong values in the compiler's words; types and enums in general ones", () => {
  const findings = checkShape(spec({
    id: "1bad",
    version: "v1",
    lineage: {},
    actions: [{}],
    template: { ref: "a/b@" },
    derivations: [{ path: "$", expr: "1", evaluation: "later" }, 7],
    effects: [{ id: "e", trigger: "true", executor: " ", payload: 5, emit: 1 }],
  }));
  assert.deepEqual(findings, [
    {
      location: "id",
      message:
        "'1bad' is not a valid id: use [namespace/]name, each segment starting with a letter followed " +
        "by letters, digits, '-' or '_'",
    },
    { location: "version", message: "'v1' is not a semantic version (MAJOR.MINOR.PATCH)" },
    {
      location: "template.ref",
      message:
        "'a/b@' is not a reference: use [ns/]name with an optional @version, @range or @sha256:<digest>",
    },
    { location: "lineage", message: "lineage must be an array" },
    { location: "derivations[0].path", message: "the document root '$' cannot be derived" },
    { location: "derivations[0].evaluation", message: "evaluation must be 'eager' or 'lazy'" },
    { location: "derivations[1]", message: "a derivation must be an object" },
    { location: "effects[0].executor", message: "executor must be a non-empty string" },
    { location: "effects[0].emit", message: "emit must be a string" },
    {
      location: "effects[0].payload",
      message: "payload must be a JSONata string or an object of JSONata strings",
    },
    { location: "actions", message: "the 'actions' section was removed: declare effects instead" },
  ]);
});

Deno.test("shape: addresses are worded by the path parser, map keys located by their name", () => {
  const findings = checkShape(spec({
    constraints: [{ id: "c", path: ["$.a", "items.0.qty"], expr: "true", message: "m", policy: "flag" }],
    tests: [{ given: { price: 1 }, expect: { "$.items[*].qty": 1 } }],
  }));
  assert.deepEqual(findings, [
    {
      location: "constraints[0].path[1]",
      message: "'items.0.qty' uses the unrooted form; write it as '$.items[0].qty'",
    },
    { location: "tests[0].given['price']", message: "'price' uses the unrooted form; write it as '$.price'" },
    {
      location: "tests[0].expect['$.items[*].qty']",
      message: "'$.items[*].qty' must be a concrete address without [*]",
    },
  ]);
});

Deno.test("shape: null stands for absent where the compiler reads it so", () => {
  assert.deepEqual(
    checkShape(spec({
      version: null,
      template: null,
      constants: null,
      derivations: null,
      constraints: [{ id: "c", path: null, expr: "true", message: "m", policy: "flag" }],
      viewDefinition: null,
    })),
    [],
  );
});

Deno.test("shape: an id is at most 1024 characters, namespace included", () => {
  const longest = `shop/${"a".repeat(1019)}`;
  assert.deepEqual(checkShape(spec({ id: longest })), []);
  assert.deepEqual(checkShape(spec({ id: `${longest}b` })), [
    { location: "id", message: "an id is at most 1024 characters; this one has 1025" },
  ]);
  assert.deepEqual(checkShape(spec({ id: "a".repeat(100_001) })), [
    { location: "id", message: "an id is at most 1024 characters; this one has 100001" },
  ]);
});

Deno.test("shape: a top-level __proto__ member is an unknown field like any other", () => {
  const findings = checkShape(JSON.parse('{"id":"a","schema":{},"__proto__":{"x":1}}'));
  assert.deepEqual(findings, [{ location: "__proto__", message: "unknown field '__proto__'" }]);
});
