import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ServiceError } from "../errors.ts";
import type { JsonObject } from "../json/value.ts";
import { EXCLUSIVE_SECTIONS, parseEvolution, type SpecEvolution } from "./evolution.ts";
import { SPEC_EVOLUTION_SCHEMA } from "./schema.ts";

/** One valid evolution per member (and the full shape of each list entry). */
const EVERY_MEMBER: Required<SpecEvolution> = {
  newVersion: "2.0.0",
  expectedVersion: "1.0.0",
  newSchema: { type: "object" },
  upsertSchemaDefs: { Address: { type: "object" }, Anything: true },
  removeSchemaDefs: ["Old"],
  upsertSchemaNodes: [{ path: "$.a.b", schema: { type: "string" }, required: true }, {
    path: "$.c",
    schema: false,
    required: null,
  }],
  removeSchemaNodes: ["$.d"],
  newViewDefinition: null,
  newDefaultView: "main",
  upsertViews: [{ id: "main", label: "Main", components: [] }],
  removeViews: ["old"],
  upsertComponents: [{
    viewId: "main",
    component: { id: "x", type: "textField" },
    parentId: "g",
    beforeId: "y",
  }],
  removeComponents: [{ viewId: "main", componentId: "z" }],
  upsertDerivations: [{ path: "$.t", expr: "1", evaluation: "lazy", description: "d" }],
  removeDerivations: ["$.u"],
  upsertConstraints: [{ id: "c", path: ["$.a", "$.b"], expr: "true", message: "m", policy: "flag" }],
  removeConstraints: ["c2"],
  upsertEffects: [{ id: "e", trigger: "true", executor: "caller", emit: "x", payload: { a: "1" } }],
  removeEffects: ["e2"],
  upsertMetaDerivations: [{ path: "$.a", property: "relevant", expr: "true", description: "d" }],
  removeMetaDerivations: ["$.a#read_only"],
  upsertDefaultValues: [{ path: "$.items[*]", expr: "{}" }],
  removeDefaultValues: ["$.x[*]"],
  newConstants: { k: 1 },
  upsertConstants: { k: 2 },
  removeConstants: ["k3"],
  newTests: [{ description: "t", given: { "$.a": 1 }, expect: { "$.b": { $meta: { required: true } } } }],
  newLibrary: {
    define: '( $f := function($x) { $x }; ["f"] )',
    signatures: { f: "<n:n>" },
    requiresConstants: ["k"],
    description: "d",
    extends: "acme/lib@1.0.0",
  },
  backfill: { "$.a": 1, "$.items[*].b": [1, { c: null }] },
};

function badRequest(input: unknown): ServiceError {
  try {
    parseEvolution(input);
  } catch (err) {
    assert.equal((err as ServiceError).kind, "bad_request");
    return err as ServiceError;
  }
  assert.fail("expected the evolution to be rejected");
}

Deno.test("the SpecEvolution schema is a valid strict 2020-12 schema describing every member", () => {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  const validate = ajv.compile(SPEC_EVOLUTION_SCHEMA);
  assert.ok(validate(EVERY_MEMBER), JSON.stringify(validate.errors));
  assert.deepEqual(
    Object.keys(SPEC_EVOLUTION_SCHEMA.properties as JsonObject).sort(),
    Object.keys(EVERY_MEMBER).sort(),
  );
  for (const [member, schema] of Object.entries(SPEC_EVOLUTION_SCHEMA.properties as JsonObject)) {
    assert.equal(typeof (schema as JsonObject).description, "string", `${member} is described`);
  }
});

Deno.test("parseEvolution accepts each member on its own", () => {
  for (const [member, value] of Object.entries(EVERY_MEMBER)) {
    assert.deepEqual(parseEvolution({ [member]: value }), { [member]: value }, member);
  }
});

Deno.test("wholesale and targeted members of one section are exclusive; different sections combine", () => {
  for (const { section, wholesale, targeted } of EXCLUSIVE_SECTIONS) {
    for (const member of targeted) {
      const err = badRequest({ [wholesale]: EVERY_MEMBER[wholesale], [member]: EVERY_MEMBER[member] });
      assert.deepEqual(err.body?.errors, [{
        location: wholesale,
        message: `replaces the whole ${section} section and cannot be combined with ${member}`,
      }]);
    }
  }
  const combined = {
    newSchema: EVERY_MEMBER.newSchema,
    upsertViews: EVERY_MEMBER.upsertViews,
    upsertConstants: EVERY_MEMBER.upsertConstants,
  };
  assert.deepEqual(parseEvolution(combined), combined);
});

Deno.test("parseEvolution names every malformed member", () => {
  const err = badRequest({
    newVersoin: "1.0.0",
    removeDerivations: "$.a",
    upsertDerivations: [{ path: "$.a" }],
    upsertMetaDerivations: [{ path: "$.a", property: "colour", expr: "1" }],
    upsertComponents: [{ viewId: "v", component: { id: "c" }, extra: 1 }],
    upsertSchemaNodes: [{ path: "", schema: 3 }],
    newTests: {},
  });
  assert.deepEqual(err.body?.errors, [
    {
      location: "newVersoin",
      message: `unknown member 'newVersoin'; a SpecEvolution has ${
        Object.keys(SPEC_EVOLUTION_SCHEMA.properties as JsonObject).join(", ")
      }`,
    },
    { location: "upsertSchemaNodes[0].path", message: "must NOT have fewer than 1 characters" },
    { location: "upsertSchemaNodes[0].schema", message: "must be object,boolean" },
    { location: "upsertComponents[0]", message: "unknown member 'extra'" },
    { location: "upsertComponents[0].component", message: "missing required member 'type'" },
    { location: "upsertDerivations[0]", message: "missing required member 'expr'" },
    { location: "removeDerivations", message: "must be array" },
    {
      location: "upsertMetaDerivations[0].property",
      message:
        'must be one of ["required","minimum","maximum","multipleOf","minLength","maxLength","pattern",' +
        '"enum","readOnly","relevant"]',
    },
    { location: "newTests", message: "must be array" },
  ]);
  assert.match(err.message, /^Invalid evolution: newVersoin: unknown member/);
});

Deno.test("a blank newVersion is refused, not taken as the creation default (which would reset the version)", () => {
  for (const newVersion of ["", "  "]) {
    assert.deepEqual(badRequest({ newVersion }).body?.errors, [{
      location: "newVersion",
      message:
        "must be a semantic version (MAJOR.MINOR.PATCH), not blank: leave newVersion out to keep the version",
    }]);
  }
});

Deno.test("parseEvolution rejects a non-object body", () => {
  for (const input of [null, [], "x", 1]) {
    assert.deepEqual(badRequest(input).body?.errors, [{ location: "evolution", message: "must be object" }]);
  }
});

Deno.test("odd map keys are located in bracket form", () => {
  const err = badRequest({ upsertSchemaDefs: { "a/b": 3 } });
  assert.deepEqual(err.body?.errors, [{
    location: "upsertSchemaDefs['a/b']",
    message: "must be object,boolean",
  }]);
});
