import assert from "node:assert/strict";
import { canonicalJson, stringifiesCanonically } from "./canonical.ts";
import { withBrowserProtoAccessor } from "../_test_utils.ts";

Deno.test("canonicalJson sorts keys at every depth and has no whitespace", () => {
  assert.equal(
    canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" } }),
    '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
  );
});

Deno.test("canonicalJson: the same value in any key order serialises identically", () => {
  assert.equal(canonicalJson({ x: 1, y: [true, null] }), canonicalJson({ y: [true, null], x: 1 }));
});

Deno.test("canonicalJson drops undefined members and writes undefined elements as null", () => {
  assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  assert.equal(canonicalJson([undefined, 1]), "[null,1]");
  assert.equal(canonicalJson(undefined), "null");
});

Deno.test("canonicalJson escapes strings like JSON.stringify (UTF-8 text)", () => {
  assert.equal(canonicalJson({ 'k"ey': "line\nbreak é" }), '{"k\\"ey":"line\\nbreak é"}');
});

Deno.test("canonicalJson: containers of scalars, ordered or not, write the same text as the general way", () => {
  assert.equal(canonicalJson({ a: 1, b: "x", c: null, d: true }), '{"a":1,"b":"x","c":null,"d":true}');
  assert.equal(canonicalJson({ b: 1, a: 2 }), '{"a":2,"b":1}');
  assert.equal(canonicalJson(["$.a", 1, null, false, -0, NaN]), '["$.a",1,null,false,0,null]');
  assert.equal(canonicalJson({ a: 1, b: undefined }), '{"a":1}');
  assert.equal(canonicalJson({ "": 1, "A": 2, "a": 3, "é": 4 }), '{"":1,"A":2,"a":3,"é":4}');
  assert.equal(canonicalJson(Object.assign(Object.create(null), { x: 1 })), '{"x":1}');
});

Deno.test("canonicalJson: an object's own toJSON is not called (its members are written)", () => {
  const value = { a: 1, toJSON: () => "replaced" };
  assert.equal(canonicalJson(value), '{"a":1,"toJSON":null}');
});

/** The definition, written plainly: the reference the fast paths are compared with. */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    return "[" + value.map((v) => v === undefined ? "null" : reference(v)).join(",") + "]";
  }
  const record = value as Record<string, unknown>;
  return "{" + Object.keys(record).sort().filter((k) => record[k] !== undefined)
    .map((k) => JSON.stringify(k) + ":" + reference(record[k])).join(",") +
    "}";
}

Deno.test("canonicalJson equals the plain definition on random values", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const keys = ["a", "b", "B", "ä", "$.x[0]", "", "z"];
  const scalar = () =>
    [null, true, false, 0, -0, 1.5, -7, 1e21, "s", "é\n", undefined][Math.floor(next() * 11)];
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth > 3 || roll < 0.4) return scalar();
    if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 5); i > 0; i--) {
      out[keys[Math.floor(next() * keys.length)]] = value(depth + 1);
    }
    return out;
  };
  for (let i = 0; i < 3000; i++) {
    const v = value(0);
    assert.equal(canonicalJson(v), reference(v), JSON.stringify(v));
  }
});

Deno.test("stringifiesCanonically: where it holds, JSON.stringify writes the canonical text", () => {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const keys = ["a", "b", "B", "ä", "$.x[0]", "", "z", "10", "9"];
  const scalar = () => [null, true, false, 0, -0, 1.5, NaN, "s", "é\n", undefined][Math.floor(next() * 10)];
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth > 3 || roll < 0.4) return scalar();
    if (roll < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 4); i > 0; i--) {
      out[keys[Math.floor(next() * keys.length)]] = value(depth + 1);
    }
    return out;
  };
  let held = 0;
  for (let i = 0; i < 3000; i++) {
    const v = value(0);
    if (!stringifiesCanonically(v)) continue;
    held++;
    assert.equal(JSON.stringify(v), reference(v), String(i));
  }
  assert.ok(held > 1000, `the property held for ${held} values only`);
});

Deno.test("stringifiesCanonically refuses what JSON.stringify would write differently", () => {
  assert.equal(stringifiesCanonically({ a: 1, b: [{ c: "x", d: null }] }), true);
  assert.equal(stringifiesCanonically({ b: 1, a: 1 }), false);
  assert.equal(stringifiesCanonically([{ y: 1, x: 2 }]), false);
  assert.equal(
    stringifiesCanonically({ "9": 1, "10": 2 }),
    false,
    "integer keys come first, not in code-unit order",
  );
  assert.equal(stringifiesCanonically({ a: undefined }), false);
  assert.equal(stringifiesCanonically([undefined]), false);
  assert.equal(stringifiesCanonically({ a: () => 1 }), false);
  assert.equal(stringifiesCanonically(new Date(0)), false);
  assert.equal(stringifiesCanonically({ toJSON: () => "x" }), false);
});

Deno.test("canonicalJson writes a __proto__ member the same under a browser's accessor", async () => {
  const text = '{"z":[{"__proto__":{"b":1,"a":2}}],"__proto__":null,"a":"x"}';
  const expected = '{"__proto__":null,"a":"x","z":[{"__proto__":{"a":2,"b":1}}]}';
  assert.equal(canonicalJson(JSON.parse(text)), expected);
  assert.equal(await withBrowserProtoAccessor(() => canonicalJson(JSON.parse(text))), expected);
});
