import assert from "node:assert/strict";
import jsonata from "jsonata";
import { DocumentDraft } from "./document.ts";
import type { Json, JsonObject } from "./value.ts";
import { forkWide, isWide, ownMember, toPlain, toWide, WIDE_MEMBERS } from "./wide_object.ts";

/** A plain object with `count` members, some of them array-index keys, which JavaScript orders first. */
function plainObject(count: number): JsonObject {
  const out: JsonObject = {};
  for (let i = 0; i < count; i++) out[i % 7 === 3 ? String(1000 - i) : `k${i}`] = i % 5 === 0 ? { n: i } : i;
  return out;
}

/** Deterministic pseudo-random integers (xorshift), so a failure replays. */
function random(seed: number): (below: number) => number {
  let x = seed;
  return (below) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % below;
  };
}

/** Every way a reader sees an object, as data. */
function observe(value: JsonObject): unknown {
  const forIn: string[] = [];
  for (const key in value) forIn.push(key);
  return {
    json: JSON.stringify(value),
    keys: Object.keys(value),
    entries: Object.entries(value),
    spread: JSON.stringify({ ...value }),
    forIn,
    own: ["k1", "k2", "997", "missing", "toString"].map((k) => [
      Object.prototype.hasOwnProperty.call(value, k),
      Object.hasOwn(value, k),
      k in value,
      ownMember(value, k),
    ]),
  };
}

Deno.test("a wide version reads exactly like the plain object it was made from", () => {
  const plain = plainObject(300);
  const wide = toWide(plain);
  assert.ok(isWide(wide) && !isWide(plain) && !isWide(null) && !isWide([1]));
  assert.deepEqual(observe(wide), observe(plain));
  assert.deepEqual(wide, plain);
  assert.equal(typeof wide.toString, "function", "inherited members stay reachable, as on a plain object");
  assert.equal(wide.missing, undefined);
  assert.equal(Object.getPrototypeOf(wide), Object.prototype);
  assert.equal(Array.isArray(wide), false);
});

Deno.test("changes to a fork never reach its origin, and match the same changes to a plain object", () => {
  const next = random(7);
  let plain = plainObject(200);
  let wide = toWide(plain);
  const versions: [JsonObject, string][] = [];
  for (let round = 0; round < 60; round++) {
    versions.push([wide, JSON.stringify(plain)]);
    plain = { ...plain };
    wide = forkWide(wide)!;
    for (let step = 0; step < 1 + next(6); step++) {
      const keys = Object.keys(plain);
      const pick = next(4);
      if (pick === 0 && keys.length) {
        const key = keys[next(keys.length)];
        delete plain[key];
        delete wide[key];
      } else if (pick === 1) {
        // New members, index-like ones among them; and members removed earlier coming back last.
        const key = next(3) === 0 ? String(next(5000)) : `n${next(400)}`;
        plain[key] = round;
        wide[key] = round;
      } else if (keys.length) {
        const key = keys[next(keys.length)];
        plain[key] = [round, step];
        wide[key] = [round, step];
      }
    }
    assert.deepEqual(observe(wide), observe(plain), `round ${round}`);
  }
  for (const [version, json] of versions) {
    assert.equal(JSON.stringify(version), json, "an older version changed");
  }
});

Deno.test("a wide version outgrowing its table still answers every member", () => {
  let wide = toWide(plainObject(100));
  const plain = plainObject(100);
  for (let i = 0; i < 5000; i++) {
    if (i % 50 === 0) wide = forkWide(wide)!;
    wide[`grown${i}`] = i;
    plain[`grown${i}`] = i;
  }
  assert.deepEqual(observe(wide), observe(plain));
  assert.equal(Object.keys(wide).length, 5100);
});

Deno.test("JSONata evaluates over a wide version as over the plain object", async () => {
  const plain = plainObject(150);
  const wide = toWide(plain);
  for (
    const expression of [
      "k1 + k2",
      "$keys($)[[0..4]]",
      "$count($keys($))",
      "$sum($each($, function($v) { $type($v) = 'number' ? $v : 0 }))",
      "$sift($, function($v, $k) { $k = 'k10' })",
      "*.n",
      "$merge([$, {'k1': 99}]).k1",
      "$string($) = $string($$)",
    ]
  ) {
    const compiled = jsonata(expression);
    assert.deepEqual(await compiled.evaluate(wide), await compiled.evaluate(plain), expression);
  }
});

Deno.test("toPlain makes structured-cloneable copies only where wide versions are", () => {
  const inner = toWide(plainObject(80));
  const untouched = { a: [1, { b: 2 }] };
  const doc: Json = { untouched, list: [1, inner, { deeper: inner }], wide: inner };
  assert.throws(() => structuredClone(doc));
  const plain = toPlain(doc) as JsonObject;
  assert.deepEqual(structuredClone(plain), doc);
  assert.equal(plain.untouched, untouched, "containers without wide versions are shared");
  assert.ok(!isWide(plain.wide) && !isWide((plain.list as Json[])[1]));
  assert.equal(toPlain(untouched), untouched);

  const proto = JSON.parse('{"__proto__": {"x": 1}}') as JsonObject;
  for (let i = 0; i < WIDE_MEMBERS; i++) proto[`m${i}`] = i;
  const copied = toPlain(toWide(proto)) as JsonObject;
  assert.deepEqual(Object.keys(copied), Object.keys(proto));
  assert.equal(Object.getPrototypeOf(copied), Object.prototype, "a __proto__ member stays data");
});

Deno.test("a draft's writes under a wide object copy only what they change", () => {
  const members: JsonObject = {};
  for (let i = 0; i <= WIDE_MEMBERS; i++) members[`in${i}`] = i;
  const committed: Json = { model: members, other: { x: 1 } };
  const first = new DocumentDraft(committed);
  first.set(["model", "in3"], 30);
  const v1 = first.root as JsonObject;
  assert.ok(isWide(v1.model), "the copy of an object past WIDE_MEMBERS is a wide version");
  assert.equal(v1.other, (committed as JsonObject).other);

  const second = new DocumentDraft(v1);
  second.set(["model", "in4"], 40);
  second.delete(["model", "in5"]);
  second.set(["model", "added"], true);
  const v2 = second.root as JsonObject;
  assert.equal(members.in3, 3, "the committed plain object is untouched");
  assert.deepEqual([(v1.model as JsonObject).in4, (v1.model as JsonObject).in5], [4, 5]);
  assert.equal((v1.model as JsonObject).added, undefined);
  assert.deepEqual([(v2.model as JsonObject).in3, (v2.model as JsonObject).in4], [30, 40]);
  assert.deepEqual(Object.keys(v2.model as JsonObject).slice(-2), [`in${WIDE_MEMBERS}`, "added"]);
  assert.equal(second.get(["model", "in5"]), undefined);
});
