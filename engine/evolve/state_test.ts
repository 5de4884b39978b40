import assert from "node:assert/strict";
import { DEFAULT_CONFIG } from "../config.ts";
import type { ServiceError } from "../errors.ts";
import { ExpressionCompiler } from "../expr/compiler.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { type CompiledModel, compileSpec } from "../model/compile.ts";
import type { ModelSpec } from "../model/types.ts";
import { carryForward } from "./state.ts";

const compiler = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 1000, maxDepth: 100 });

function compiled(spec: ModelSpec): CompiledModel {
  const report = compileSpec(spec, { compiler, config: DEFAULT_CONFIG, now: Date.now });
  assert.ok(report.model, JSON.stringify(report.errors));
  return report.model;
}

const SCHEMA: JsonObject = {
  type: "object",
  properties: {
    name: { type: "string" },
    qty: { type: "integer" },
    items: {
      type: "array",
      items: { type: "object", properties: { sku: { type: "string" }, n: { type: "number" } } },
    },
    address: { type: "object", properties: { city: { type: "string" } } },
  },
};
const OLD = compiled({
  id: "m",
  schema: SCHEMA,
  derivations: [{ path: "$.total", expr: "qty" }, { path: "$.items[*].line", expr: "$parent.n" }],
});
const DOC: Json = {
  name: "pen",
  qty: 2,
  total: 2,
  note: null,
  items: [{ sku: "a", n: 1, line: 1 }, { n: 2, line: 2 }],
};

function refused(run: () => unknown): ServiceError {
  try {
    run();
  } catch (err) {
    assert.equal((err as ServiceError).kind, "validation_failed");
    return err as ServiceError;
  }
  assert.fail("expected a refusal");
}

Deno.test("derived values of the previous and the evolved derivations are dropped; the input is untouched", () => {
  const copy = structuredClone(DOC);
  const next = compiled({ id: "m", schema: SCHEMA, derivations: [{ path: "$.name", expr: "'x'" }] });
  assert.deepEqual(carryForward(OLD, next, DOC), {
    qty: 2,
    note: null,
    items: [{ sku: "a", n: 1 }, { n: 2 }],
  });
  assert.deepEqual(DOC, copy);
});

Deno.test("backfill writes only where there is no value (absent or null), expanding [*] over elements", () => {
  const next = compiled({ id: "m", schema: SCHEMA });
  const doc = carryForward(OLD, next, DOC, {
    "$.name": "never",
    "$.note": "filled",
    "$.items[*].sku": "z",
    "$.address.city": "Oslo",
    "$.extra": [1, 2],
  });
  assert.deepEqual(doc, {
    name: "pen",
    qty: 2,
    note: "filled",
    items: [{ sku: "a", n: 1 }, { n: 2, sku: "z" }],
    address: { city: "Oslo" },
    extra: [1, 2],
  });
});

Deno.test("backfill writes under a new member named like an Object.prototype property", () => {
  const next = compiled({ id: "m", schema: SCHEMA });
  const doc = carryForward(OLD, next, { qty: 1 }, { "$.constructor.name": "Ferrari", "$.toString.x": 1 });
  assert.deepEqual(doc, { qty: 1, constructor: { name: "Ferrari" }, toString: { x: 1 } });
});

Deno.test("backfill refusals list every bad target", () => {
  const next = compiled({ id: "m", schema: SCHEMA, derivations: [{ path: "$.total", expr: "qty" }] });
  const err = refused(() =>
    carryForward(OLD, next, DOC, {
      "$.total": 1,
      "$.total.deeper": 1,
      "$.qty": "two",
      "$.name.first": "p",
      "$.items[5].sku": "q",
      "$.items[0].sku.x": "q",
      "$.missing[0]": 1,
      "$": {},
      "items.sku": "s",
    })
  );
  assert.deepEqual(err.body?.errors, [
    {
      location: "backfill['$.total']",
      message: "is computed by the derivation $.total: backfill writes base fields only",
    },
    {
      location: "backfill['$.total.deeper']",
      message: "is computed by the derivation $.total: backfill writes base fields only",
    },
    { location: "backfill['$.qty']", message: "violates the new schema: $.qty (type): must be integer" },
    {
      location: "backfill['$.name.first']",
      message: "$.name holds a string: cannot write $.name.first under it",
    },
    {
      location: "backfill['$.items[5].sku']",
      message: "$.items[5] does not exist: backfill does not create array elements",
    },
    {
      location: "backfill['$.items[0].sku.x']",
      message: "$.items[0].sku holds a string: cannot write $.items[0].sku.x under it",
    },
    {
      location: "backfill['$.missing[0]']",
      message: "$.missing[0] does not exist: backfill does not create array elements",
    },
    { location: "backfill['$']", message: "the document root cannot be backfilled" },
    {
      location: "backfill['items.sku']",
      message: "'items.sku' uses the unrooted form; write it as '$.items.sku'",
    },
  ]);
});

Deno.test("the stranding guard lists every value the new schema no longer admits", () => {
  const next = compiled({
    id: "m",
    schema: {
      type: "object",
      additionalProperties: false,
      properties: {
        name: { type: "string", enum: ["cup"] },
        qty: { type: "string" },
        items: {
          type: "array",
          items: { type: "object", properties: { n: { type: "integer", maximum: 1 } } },
        },
      },
    },
  });
  const err = refused(() => carryForward(OLD, next, DOC));
  assert.deepEqual(err.body?.paths, ["$.note", "$.name", "$.qty", "$.items[1].n"]);
  assert.deepEqual(err.body?.violations, [
    {
      path: "$.note",
      keyword: "additionalProperties",
      message: "must NOT have additional properties: 'note'",
    },
    { path: "$.name", keyword: "enum", message: 'must be equal to one of the allowed values: ["cup"]' },
    { path: "$.qty", keyword: "type", message: "must be string" },
    { path: "$.items[1].n", keyword: "maximum", message: "must be <= 1" },
  ]);
  assert.equal(err.body?.error, "State incompatible");
});

Deno.test("required gaps, even conditional ones, are not stranding; a property named required still counts", () => {
  const next = compiled({
    id: "m",
    schema: {
      type: "object",
      required: ["name", "city"],
      properties: {
        name: { type: "string" },
        qty: { type: "integer" },
        city: { type: "string" },
        required: { type: "string" },
        items: { type: "array", items: { type: "object", required: ["sku", "n", "weight"] } },
      },
      if: { properties: { qty: { const: 2 } } },
      then: { required: ["city"] },
      dependentRequired: { qty: ["city"] },
    },
  });
  const doc = carryForward(OLD, next, DOC);
  assert.deepEqual((doc as JsonObject).qty, 2);
  const err = refused(() => carryForward(OLD, next, { ...(DOC as JsonObject), required: 5 }));
  assert.deepEqual(err.body?.paths, ["$.required"]);
});

Deno.test("the guard runs only when the schema changed; backfill can rescue a null the new schema forbids", () => {
  const same = compiled({ id: "m", schema: SCHEMA, derivations: [] });
  assert.deepEqual((carryForward(OLD, same, DOC) as JsonObject).note, null);
  const strict = compiled({
    id: "m",
    schema: { ...SCHEMA, properties: { ...(SCHEMA.properties as JsonObject), note: { type: "string" } } },
  });
  refused(() => carryForward(OLD, strict, DOC));
  assert.equal((carryForward(OLD, strict, DOC, { "$.note": "ok" }) as JsonObject).note, "ok");
});

Deno.test("what a backfill would add is admitted before any copy is made, each absent target counted", () => {
  const items = Array.from({ length: 1000 }, (_, k) => ({ sku: String(k) }));
  const blob = Array.from({ length: 100 }, () => ({ a: 1 }));
  const next = compiled({ id: "m", schema: SCHEMA });
  const asked: number[] = [];
  const admit = (bytes: number) => {
    asked.push(bytes);
    if (bytes > 100_000) throw new Error("over the limit");
  };
  const doc = { items };
  assert.throws(
    () => carryForward(OLD, next, doc, { "$.qty": 1, "$.items[*].blob": blob }, admit),
    /over the limit/,
  );
  // `qty` (1 byte and its key), then 1,000 copies of the blob under their key `blob`.
  const each = JSON.stringify(blob).length + "blob".length + 4;
  assert.deepEqual(asked, [1 + 3 + 4, 8 + 1000 * each]);
  // Elements that hold a value already add nothing.
  asked.length = 0;
  const half = { items: items.map((item, k) => k % 2 ? { ...item, blob: 1 } : item) };
  assert.throws(() => carryForward(OLD, next, half, { "$.items[*].blob": blob }, admit), /over the limit/);
  assert.deepEqual(asked, [500 * each]);
  asked.length = 0;
  carryForward(OLD, next, { items: items.slice(0, 2), name: "pen" }, {
    "$.items[*].blob": blob,
    "$.name": "kept",
  }, admit);
  assert.deepEqual(asked, [2 * each]);
});

const STRICT: JsonObject = {
  type: "object",
  properties: {
    o: { type: "object", maxProperties: 1, properties: { a: { type: "integer" }, b: { type: "integer" } } },
    arr: {
      type: "array",
      uniqueItems: true,
      items: { type: "object", properties: { k: { type: "integer" } } },
    },
    p: {
      type: "object",
      properties: { kind: { type: "string" }, x: { type: "integer" } },
      if: { properties: { kind: { const: "a" } } },
      then: { properties: { x: { maximum: 5 } } },
    },
    list: { type: "array" },
    full: { type: "object", minProperties: 2, required: ["a"], maxProperties: 3 },
    wide: { type: "object", maxProperties: 1 },
  },
};

Deno.test("a backfill is judged with the containers it lands in, as a write is, though the schema is unchanged", () => {
  const model = compiled({ id: "m", schema: STRICT });
  const doc: JsonObject = { o: { a: 1 }, arr: [{ k: 1 }, {}], p: { kind: "a" } };
  const err = refused(() =>
    carryForward(model, model, doc, { "$.o.b": 2, "$.arr[*].k": 1, "$.p.x": 9, "$.list.b": 1 })
  );
  assert.deepEqual(err.body?.errors, [
    {
      location: "backfill['$.o.b']",
      message: "violates the new schema: $.o (maxProperties): must NOT have more than 1 properties",
    },
    {
      location: "backfill['$.arr[*].k']",
      message:
        "violates the new schema: $.arr (uniqueItems): must NOT have duplicate items (items ## 0 and 1 are identical)",
    },
    { location: "backfill['$.p.x']", message: "violates the new schema: $.p.x (maximum): must be <= 5" },
    {
      location: "backfill['$.list.b']",
      message:
        "violates the new schema: $.list (type): must be array: writing $.list.b would make it an object",
    },
  ]);
  // Within the rules, as a write: `p` of another kind, a lower bound (`minProperties`, `required`) of a
  // container the backfill makes, and a container that broke its rule before the backfill.
  const broken: JsonObject = { ...doc, p: { kind: "b" }, wide: { a: 1, b: 2 } };
  assert.deepEqual(
    carryForward(model, model, broken, { "$.p.x": 9, "$.full.b": 1, "$.wide.c": 3 }),
    { ...broken, p: { kind: "b", x: 9 }, full: { b: 1 }, wide: { a: 1, b: 2, c: 3 } },
  );
});
