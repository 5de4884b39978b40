import assert from "node:assert/strict";
import { jsonBytes, measureJson } from "./measure.ts";

Deno.test("measureJson approximates the JSON length and reports depth", () => {
  for (const value of [null, 1, "x", [], {}, { a: [1, 2, { b: "c" }], "k\u00e9y": true, n: -12 }]) {
    const measured = measureJson(value);
    assert.ok(measured.ok);
    assert.equal(measured.bytes, JSON.stringify(value).length, JSON.stringify(value));
  }
  assert.deepEqual(measureJson({ a: [[1]] }), { ok: true, bytes: 11, depth: 3 });
  assert.equal(jsonBytes(undefined), 0);
});

Deno.test("a value nested 100,000 deep is measured without recursion and stops at the limit", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.deepEqual(measureJson(deep, 128), { ok: false, reason: "depth", depth: 129 });
  const whole = measureJson(deep);
  assert.ok(whole.ok && whole.depth === 100_000);
});

Deno.test("a non-finite number is found with its path", () => {
  assert.deepEqual(measureJson({ a: [1, { b: Infinity }] }), {
    ok: false,
    reason: "non-finite",
    path: ["a", 1, "b"],
  });
  assert.deepEqual(measureJson(NaN), { ok: false, reason: "non-finite", path: [] });
});

Deno.test("jsonBytes of a scalar is what the walk measures (a non-finite number 0)", () => {
  for (const value of [null, true, false, 0, -12, 1.5, 1e300, 2 ** 60, "", "text", "k\u00e9y"]) {
    const measured = measureJson(value);
    assert.ok(measured.ok);
    assert.equal(jsonBytes(value), measured.bytes, JSON.stringify(value));
  }
  for (const value of [NaN, Infinity, -Infinity]) assert.equal(jsonBytes(value), 0);
});

Deno.test("an integer's bytes are its decimal length, at every power of ten and either sign", () => {
  const integers = [0, -0, 1e15 - 1, -(1e15 - 1)];
  for (let power = 1; power < 1e15; power *= 10) integers.push(power - 1, power, -power, -(power - 1));
  for (const value of integers) assert.equal(jsonBytes(value), String(value).length, String(value));
  assert.equal(jsonBytes(1e15), 24, "past 1e15 a number counts as its longest form");
});
