import assert from "node:assert/strict";
import { EXAMPLES } from "../authoring/examples/mod.ts";
import { cloneJson, jsonEqual, type JsonObject } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { applyEvolution } from "./apply.ts";
import { evolutionBetween } from "./spec_diff.ts";

const BASE: ModelSpec = {
  id: "shop",
  version: "1.0.0",
  _name: "kept verbatim",
  schema: { type: "object", properties: { qty: { type: "integer" }, price: { type: "number" } } },
  constants: { rate: 0.2, cap: 3 },
  library: "$twice := function($x) { $x * 2 };",
  derivations: [
    { path: "$.total", expr: "qty * price * (1 + $const.rate)" },
    { path: "$.double", expr: "$twice(qty)" },
  ],
  metaDerivations: [
    { path: "$.qty", property: "readOnly", expr: "false" },
    { path: "$.qty", property: "maximum", expr: "$const.cap" },
  ],
  constraints: [{ id: "positive", expr: "qty >= 0", message: "no", policy: "rollback" }],
  effects: [{ id: "notify", executor: "caller", trigger: "qty > 10", emit: "big" }],
  defaultValues: [{ path: "$.items[*]", expr: "{'qty': 1}" }],
  tests: [{ given: { "$.qty": 1, "$.price": 2 }, expect: { "$.total": 2.4 } }],
  viewDefinition: { defaultView: "main", views: [{ id: "main", components: [] }] },
};

/** `spec` with `edit` applied to a copy. */
function variant(edit: (spec: ModelSpec) => void, spec: ModelSpec = BASE): ModelSpec {
  const copy = cloneJson(spec);
  edit(copy);
  return copy;
}

/** Asserts the evolution from `from` to `to` exists and lands exactly on `to`; returns it. */
function roundTrip(from: ModelSpec, to: ModelSpec) {
  const evolution = evolutionBetween(from, to);
  assert.ok(evolution, `no evolution from ${from.id} to its variant`);
  assert.deepEqual(applyEvolution(from, evolution), to);
  return evolution;
}

Deno.test("equal specs give an empty evolution", () => {
  assert.deepEqual(evolutionBetween(BASE, cloneJson(BASE)), {});
});

Deno.test("each wholesale member is written only when it changed", () => {
  assert.deepEqual(roundTrip(BASE, { ...BASE, version: "1.1.0" }), { newVersion: "1.1.0" });
  const schema = { type: "object", properties: { qty: { type: "integer" } } };
  assert.deepEqual(roundTrip(BASE, { ...BASE, schema }), { newSchema: schema });
  assert.deepEqual(roundTrip(BASE, { ...BASE, viewDefinition: null }), { newViewDefinition: null });
  const view = { views: [{ id: "other", components: [] }] };
  assert.deepEqual(roundTrip(BASE, { ...BASE, viewDefinition: view }), { newViewDefinition: view });
  const constants = { rate: 0.1, cap: 3, extra: "x" };
  assert.deepEqual(roundTrip(BASE, { ...BASE, constants }), { newConstants: constants });
  assert.deepEqual(roundTrip(BASE, { ...BASE, tests: [] }), { newTests: [] });
  const library = "$twice := function($x) { $x + $x };";
  assert.deepEqual(roundTrip(BASE, { ...BASE, library }), { newLibrary: library });
});

Deno.test("keyed sections: a change and an addition are upserts, a removal is named by its key", () => {
  const to = variant((spec) => {
    spec.derivations![0].expr = "qty * price";
    spec.derivations!.push({ path: "$.half", expr: "qty / 2" });
    spec.metaDerivations!.pop();
    spec.constraints = [];
    spec.effects!.push({ id: "again", executor: "caller", trigger: "qty > 20", emit: "bigger" });
    spec.defaultValues![0].expr = "{'qty': 2}";
  });
  assert.deepEqual(roundTrip(BASE, to), {
    upsertDerivations: [{ path: "$.total", expr: "qty * price" }, { path: "$.half", expr: "qty / 2" }],
    upsertMetaDerivations: [],
    removeMetaDerivations: ["$.qty#maximum"],
    upsertConstraints: [],
    removeConstraints: ["positive"],
    upsertEffects: [{ id: "again", executor: "caller", trigger: "qty > 20", emit: "bigger" }],
    upsertDefaultValues: [{ path: "$.items[*]", expr: "{'qty': 2}" }],
  });
  // And back: the additions removed, the removals added again.
  roundTrip(to, BASE);
});

Deno.test("a section or member the stored spec lacks is added, one the new spec lacks is dropped", () => {
  const bare: ModelSpec = { id: "shop", version: "1.0.0", schema: BASE.schema };
  roundTrip(bare, { ...bare, derivations: [{ path: "$.a", expr: "1" }], constants: { k: 1 } });
  roundTrip(bare, { ...bare, derivations: [], tests: [], viewDefinition: { views: [] } });
  roundTrip({ ...bare, derivations: [{ path: "$.a", expr: "1" }] }, { ...bare, derivations: [] });
  roundTrip({ ...bare, library: BASE.library }, { ...bare, library: "$one := 1;" });
});

Deno.test("what no evolution can say gives null", () => {
  const none = (to: ModelSpec, from: ModelSpec = BASE) => assert.equal(evolutionBetween(from, to), null);
  none({ ...BASE, id: "other" });
  none({ ...BASE, _name: "renamed" });
  none({ ...BASE, template: { ref: "base" } });
  none({ ...BASE, lineage: [{ ref: "x" }] });
  // Absent and empty differ as JSON, and an evolution writes the empty one.
  none({ ...BASE, tests: undefined } as unknown as ModelSpec);
  none(variant((spec) => delete spec.viewDefinition));
  none(variant((spec) => delete spec.version));
  none({ ...BASE, version: " " });
  // Upserts keep the order of the entries they replace.
  none(variant((spec) => spec.derivations!.reverse()));
  // Two entries of one key: one of them would be lost.
  none(variant((spec) => spec.derivations!.push({ path: "$.total", expr: "0" })));
  // A refused evolution: a constant dropped while an expression still references it.
  none(variant((spec) => delete spec.constants!.rate));
});

/** A deterministic pseudo-random source (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Edits a generated variant may make, each keeping the spec's own references intact. */
const EDITS: ((spec: ModelSpec, n: number) => void)[] = [
  (spec, n) => spec.version = `2.${n}.0`,
  (spec, n) => {
    const properties = (spec.schema as JsonObject).properties as JsonObject;
    properties[`added${n}`] = { type: "number" };
  },
  (spec, n) => spec.derivations = [...spec.derivations ?? [], { path: `$.added${n}Twice`, expr: `${n} * 2` }],
  (spec) => spec.derivations?.length && (spec.derivations[0] = { ...spec.derivations[0], expr: "1" }),
  (spec) => spec.derivations?.splice(-1, 1),
  (spec, n) =>
    spec.constraints = [...spec.constraints ?? [], {
      id: `c${n}`,
      expr: "true",
      message: "m",
      policy: "flag",
    }],
  (spec) =>
    spec.constraints?.length && (spec.constraints[0] = { ...spec.constraints[0], message: "changed" }),
  (spec) => spec.constraints?.pop(),
  (spec) => spec.effects?.pop(),
  (spec, n) =>
    spec.effects = [...spec.effects ?? [], { id: `e${n}`, executor: "caller", trigger: "false", emit: "x" }],
  (spec, n) =>
    spec.metaDerivations = [...spec.metaDerivations ?? [], {
      path: `$.m${n}`,
      property: "relevant",
      expr: "true",
    }],
  (spec) => spec.metaDerivations?.pop(),
  (spec, n) => spec.defaultValues = [...spec.defaultValues ?? [], { path: `$.d${n}[*]`, expr: "{}" }],
  (spec) => spec.defaultValues?.pop(),
  (spec, n) => spec.constants = { ...spec.constants, [`k${n}`]: n },
  (spec) => spec.tests = [],
  (spec, n) => spec.viewDefinition = { views: [{ id: `v${n}`, components: [] }] },
];

Deno.test("every example and generated variants of it round-trip both ways", () => {
  const next = random(7);
  for (const { spec } of EXAMPLES) {
    for (let round = 0; round < 40; round++) {
      const to = variant((copy) => {
        const count = 1 + Math.floor(next() * 4);
        for (let i = 0; i < count; i++) EDITS[Math.floor(next() * EDITS.length)](copy, round * 10 + i);
      }, spec);
      const evolution = roundTrip(spec, to);
      // Nothing the two specs share is written: an upserted entry is always new or changed.
      for (const section of ["derivations", "constraints", "effects", "metaDerivations"] as const) {
        const upserts =
          (evolution as Record<string, unknown>)[`upsert${section[0].toUpperCase()}${section.slice(1)}`];
        for (const entry of (upserts ?? []) as unknown[]) {
          assert.ok(!(spec[section] ?? []).some((kept: unknown) => jsonEqual(kept, entry)));
        }
      }
      // Back again: what was added is removed, what was removed is put back (after the kept ones).
      const back = evolutionBetween(to, spec);
      if (back) assert.deepEqual(applyEvolution(to, back), spec);
    }
    // Every example against each single edit.
    EDITS.forEach((edit, i) => roundTrip(spec, variant((copy) => edit(copy, 1000 + i), spec)));
  }
});
