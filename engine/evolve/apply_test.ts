import assert from "node:assert/strict";
import type { ModelSpec } from "../model/types.ts";
import { applyEvolution, changedEffectIds } from "./apply.ts";
import { parseEvolution } from "./evolution.ts";
import { applyChecked, refusalOf } from "./test_support.ts";
import { withBrowserProtoAccessor } from "../_test_utils.ts";

const BASE: ModelSpec = {
  id: "shop",
  version: "1.0.0",
  _name: "kept verbatim",
  schema: { type: "object", properties: { qty: { type: "integer" }, price: { type: "number" } } },
  constants: { rate: 0.2, rateCap: 3, "odd-name": 1 },
  derivations: [
    { path: "$.total", expr: "qty * price * (1 + $const.rate)" },
    { path: "$.items[*].line", expr: "$parent.qty" },
  ],
  metaDerivations: [
    { path: "$.qty", property: "readOnly", expr: "false" },
    { path: "$.qty", property: "maximum", expr: "$const.rateCap" },
  ],
  constraints: [
    { id: "positive", expr: "qty >= 0", message: "no", policy: "rollback" },
    { id: "cheap", expr: "price < 100", message: "dear", policy: "flag" },
  ],
  effects: [{ id: "notify", executor: "caller", trigger: "qty > 10", emit: "big" }],
  defaultValues: [{ path: "$.items[*]", expr: "{'qty': 1}" }],
  tests: [{ given: { "$.qty": 1, "$.price": 2 }, expect: { "$.total": 2.4 } }],
  viewDefinition: { defaultView: "main", views: [{ id: "main", components: [] }] },
};

const evolve = (evolution: unknown, spec: ModelSpec = BASE) => applyChecked(spec, evolution);
const refusal = (evolution: unknown, spec: ModelSpec = BASE) => refusalOf(spec, evolution);

Deno.test("{newVersion} alone changes only the version", () => {
  assert.deepEqual(evolve({ newVersion: "1.1.0" }), { ...BASE, version: "1.1.0" });
});

Deno.test("an empty evolution returns an equal spec", () => {
  assert.deepEqual(evolve({}), BASE);
});

Deno.test("applyEvolution modifies neither the spec nor the evolution, and shares nothing with them", () => {
  const spec = structuredClone(BASE);
  const evolution = parseEvolution({
    upsertDerivations: [{ path: "$.net", expr: "qty" }],
    upsertConstants: { extra: { deep: [1] } },
    newTests: [],
  });
  const copy = structuredClone(evolution);
  const next = applyEvolution(spec, evolution);
  assert.deepEqual(spec, BASE);
  assert.deepEqual(evolution, copy);
  (next.constants!.extra as { deep: number[] }).deep.push(2);
  (next.schema.properties as Record<string, unknown>).qty = null;
  assert.deepEqual(evolution, copy);
  assert.deepEqual(spec, BASE);
});

Deno.test("wholesale members replace their section", () => {
  const schema = { type: "object", properties: { other: { type: "string" } } };
  const view = { defaultView: "v", views: [{ id: "v" }] };
  const constants = { rate: 1, rateCap: 2, k: 1 };
  const next = evolve({ newSchema: schema, newViewDefinition: view, newConstants: constants, newTests: [] });
  assert.deepEqual(next.schema, schema);
  assert.deepEqual(next.viewDefinition, view);
  assert.deepEqual(next.constants, constants);
  assert.deepEqual(next.tests, []);
  assert.equal(evolve({ newViewDefinition: null }).viewDefinition, null);
  const tests = [{ description: "t", given: {}, expect: { "$.qty": null } }];
  assert.deepEqual(evolve({ newTests: tests }).tests, tests);
});

Deno.test("upserts replace in place by key and append new entries; removals drop by key", () => {
  const next = evolve({
    upsertDerivations: [{ path: "$['total']", expr: "qty" }, { path: "$.net", expr: "price" }],
    removeDerivations: ["$.items[*].line"],
    upsertConstraints: [{ id: "positive", expr: "qty > 0", message: "m", policy: "flag" }],
    removeConstraints: ["cheap"],
    upsertEffects: [{ id: "later", executor: "timer", trigger: "true" }],
    removeEffects: ["notify"],
    upsertMetaDerivations: [{ path: "$.qty", property: "readOnly", expr: "true" }, {
      path: "$.price",
      property: "minimum",
      expr: "0",
    }],
    removeMetaDerivations: ["$.qty#maximum"],
    upsertDefaultValues: [{ path: "$.extras[*]", expr: "{}" }],
    removeDefaultValues: ["$.items[*]"],
  });
  assert.deepEqual(next.derivations, [{ path: "$['total']", expr: "qty" }, { path: "$.net", expr: "price" }]);
  assert.deepEqual(next.constraints, [{ id: "positive", expr: "qty > 0", message: "m", policy: "flag" }]);
  assert.deepEqual(next.effects, [{ id: "later", executor: "timer", trigger: "true" }]);
  assert.deepEqual(next.metaDerivations, [
    { path: "$.qty", property: "readOnly", expr: "true" },
    { path: "$.price", property: "minimum", expr: "0" },
  ]);
  assert.deepEqual(next.defaultValues, [{ path: "$.extras[*]", expr: "{}" }]);
});

Deno.test("meta derivations are matched by path#property in camelCase or snake_case", () => {
  assert.deepEqual(evolve({ removeMetaDerivations: ["$.qty#read_only"] }).metaDerivations, [
    BASE.metaDerivations![1],
  ]);
  assert.deepEqual(evolve({ removeMetaDerivations: ["$.qty#readOnly"] }).metaDerivations, [
    BASE.metaDerivations![1],
  ]);
  const err = refusal({ removeMetaDerivations: ["$.qty", "$.qty#colour", "$.nope#relevant"] });
  assert.deepEqual(err.body?.errors, [
    {
      location: "removeMetaDerivations[0]",
      message: "'$.qty' is not a meta key: write it as 'path#property'",
    },
    {
      location: "removeMetaDerivations[1]",
      message: "'colour' is not a meta property (one of required, minimum, maximum, multipleOf, minLength, " +
        "maxLength, pattern, enum, readOnly, relevant)",
    },
    { location: "removeMetaDerivations[2]", message: "there is no meta derivation $.nope#relevant" },
  ]);
});

Deno.test("a section created by an upsert when the spec lacks it", () => {
  const { derivations: _d, ...bare } = BASE;
  assert.deepEqual(evolve({ upsertDerivations: [{ path: "$.x", expr: "1" }] }, bare).derivations, [
    { path: "$.x", expr: "1" },
  ]);
});

Deno.test("keyed refusals: absent, twice, both upserted and removed, non-canonical keys", () => {
  const err = refusal({
    removeDerivations: ["$.gone", "$.total", "$.total", "items[0]"],
    upsertDerivations: [{ path: "$.total", expr: "1" }, { path: "$.a", expr: "1" }, {
      path: "$.a",
      expr: "2",
    }],
    removeEffects: ["ghost"],
  });
  assert.equal(err.kind, "validation_failed");
  assert.deepEqual(err.body?.errors, [
    { location: "removeDerivations[0]", message: "there is no derivation $.gone" },
    { location: "removeDerivations[2]", message: "$.total is listed twice" },
    {
      location: "removeDerivations[3]",
      message: "'items[0]' uses the unrooted form; write it as '$.items[0]'",
    },
    { location: "upsertDerivations[0]", message: "$.total is both upserted and removed (removeDerivations)" },
    { location: "upsertDerivations[2]", message: "$.a is upserted twice" },
    { location: "removeEffects[0]", message: "there is no effect ghost" },
  ]);
  assert.match(err.message, /^Evolution refused: removeDerivations\[0\]: there is no derivation \$\.gone; /);
});

Deno.test("removing a misspelt derivation or constant names the nearest one", () => {
  assert.deepEqual(refusal({ removeDerivations: ["$.totl"], removeConstants: ["rat"] }).body?.errors, [
    { location: "removeDerivations[0]", message: "there is no derivation $.totl (did you mean '$.total'?)" },
    { location: "removeConstants[0]", message: "there is no constant 'rat' (did you mean 'rate'?)" },
  ]);
});

Deno.test("constants: upsert and remove; a referenced constant cannot go", () => {
  assert.deepEqual(
    evolve({ upsertConstants: { rate: 0.3, fresh: "x" }, removeConstants: ["odd-name"] }).constants,
    {
      rate: 0.3,
      rateCap: 3,
      fresh: "x",
    },
  );
  const err = refusal({ removeConstants: ["rate", "rateCap", "missing"] });
  assert.deepEqual(err.body?.errors, [
    { location: "removeConstants[2]", message: "there is no constant 'missing'" },
    {
      location: "removeConstants[0]",
      message: "constant 'rate' is still referenced by $const.rate in derivations[0].expr",
    },
    {
      location: "removeConstants[1]",
      message: "constant 'rateCap' is still referenced by $const.rateCap in metaDerivations[1].expr",
    },
  ]);
});

Deno.test("constants: a __proto__ constant is data under a browser's accessor; inherited names are no constants", async () => {
  const upserted = await withBrowserProtoAccessor(() =>
    evolve(JSON.parse('{"upsertConstants": {"__proto__": {"x": 1}}}'))
  );
  assert.equal(
    JSON.stringify(upserted.constants),
    '{"rate":0.2,"rateCap":3,"odd-name":1,"__proto__":{"x":1}}',
  );
  assert.equal(Object.getPrototypeOf(upserted.constants), Object.prototype);
  assert.deepEqual(refusal({ removeConstants: ["toString", "__proto__"] }).body?.errors, [
    { location: "removeConstants[0]", message: "there is no constant 'toString'" },
    { location: "removeConstants[1]", message: "there is no constant '__proto__'" },
  ]);
});

Deno.test("a constant goes together with the expressions that referenced it", () => {
  const next = evolve({
    removeConstants: ["rate"],
    upsertDerivations: [{ path: "$.total", expr: "qty * price" }],
  });
  assert.equal(next.constants!.rate, undefined);
});

Deno.test("a constant the library reads cannot go, whatever layer reads it", () => {
  const gross = '( $gross := function($n) { $n * (1 + $const.rate) }; ["gross"] )';
  for (
    const [library, location] of [
      [gross, "library"],
      [{ define: gross, description: "pricing" }, "library.define"],
      [
        { layers: [{ define: gross, ref: "acme/base", requiresConstants: ["rate"] }], define: "[]" },
        "library.layers[0].define",
      ],
    ] as const
  ) {
    const spec = { ...BASE, derivations: [], library } as ModelSpec;
    assert.deepEqual(refusal({ removeConstants: ["rate"] }, spec).body?.errors, [{
      location: "removeConstants[0]",
      message: `constant 'rate' is still referenced by $const.rate in ${location}`,
    }]);
    assert.match(refusal({ newConstants: {} }, spec).message, /\$const\.rate in library/);
  }
});

Deno.test("the reference scan covers every expression section, the backtick form and view strings", () => {
  const spec: ModelSpec = {
    ...BASE,
    constants: { "odd-name": 1, a: 2 },
    derivations: [],
    metaDerivations: [],
    effects: [{ id: "e", trigger: "true", payload: { n: "$const.`odd-name`" } }],
    viewDefinition: {
      defaultView: "m",
      views: [{ id: "m", components: [{ id: "c", type: "label", text: "$const.a" }] }],
    },
  };
  const err = refusal({ removeConstants: ["odd-name", "a"] }, spec);
  assert.deepEqual(err.body?.errors, [
    {
      location: "removeConstants[0]",
      message: "constant 'odd-name' is still referenced by $const.odd-name in effects[0].payload.n",
    },
    {
      location: "removeConstants[1]",
      message: "constant 'a' is still referenced by $const.a in viewDefinition.views[0].components[0].text",
    },
  ]);
});

Deno.test("removeConstants of a name every object inherits (constructor, toString) is no constant", () => {
  const err = refusal({ removeConstants: ["constructor", "toString"] });
  assert.deepEqual(err.body?.errors, [
    { location: "removeConstants[0]", message: "there is no constant 'constructor'" },
    { location: "removeConstants[1]", message: "there is no constant 'toString'" },
  ]);
});

Deno.test("newConstants without a referenced constant named like an inherited member drops it, refused", () => {
  const spec: ModelSpec = {
    ...BASE,
    constants: { ...BASE.constants, constructor: 2 },
    derivations: [...BASE.derivations!, { path: "$.c", expr: "$const.constructor" }],
  };
  const err = refusal({ newConstants: { rate: 0.2, rateCap: 3 } }, spec);
  assert.deepEqual(err.body?.errors, [{
    location: "newConstants",
    message: "constant 'constructor' is still referenced by $const.constructor in derivations[2].expr",
  }]);
});

Deno.test("newConstants that drops a referenced constant is refused", () => {
  const err = refusal({ newConstants: { rateCap: 1 } });
  assert.deepEqual(err.body?.errors, [{
    location: "newConstants",
    message: "constant 'rate' is still referenced by $const.rate in derivations[0].expr",
  }]);
});

Deno.test("an upsertConstants name also removed is refused", () => {
  const err = refusal({ upsertConstants: { "odd-name": 1 }, removeConstants: ["odd-name"] });
  assert.deepEqual(err.body?.errors, [{
    location: "upsertConstants.odd-name",
    message: "is both upserted and removed (removeConstants)",
  }]);
});

Deno.test("sections combine: schema tier, view tier and constants tier in one evolution", () => {
  const next = evolve({
    upsertSchemaNodes: [{ path: "$.note", schema: { type: "string" } }],
    upsertComponents: [{ viewId: "main", component: { id: "n", type: "textField", bind: "$.note" } }],
    upsertConstants: { greeting: "hi" },
  });
  assert.deepEqual((next.schema.properties as Record<string, unknown>).note, { type: "string" });
  assert.deepEqual(next.viewDefinition, {
    defaultView: "main",
    views: [{ id: "main", components: [{ id: "n", type: "textField", bind: "$.note" }] }],
  });
  assert.equal(next.constants!.greeting, "hi");
});

Deno.test("changedEffectIds names added and altered effects only", () => {
  const next = evolve({
    upsertEffects: [{ id: "notify", executor: "caller", trigger: "qty > 10", emit: "big" }, {
      id: "n2",
      trigger: "true",
    }],
  });
  assert.deepEqual([...changedEffectIds(BASE, next)], ["n2"]);
  const altered = evolve({ upsertEffects: [{ id: "notify", executor: "caller", trigger: "qty > 11" }] });
  assert.deepEqual([...changedEffectIds(BASE, altered)], ["notify"]);
});
