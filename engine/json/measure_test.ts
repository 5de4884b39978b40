import assert from "node:assert/strict";
import { jsonBytes, jsonStringBytes, measureJson } from "./measure.ts";
import { Random } from "../expr/compiled/test_support.ts";

/** What the measure must equal: the UTF-8 bytes of the serialization. */
const utf8Bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

Deno.test("measureJson gives the JSON's UTF-8 length and reports depth", () => {
  for (const value of [null, 1, "x", [], {}, { a: [1, 2, { b: "c" }], "k\u00e9y": true, n: -12 }]) {
    const measured = measureJson(value);
    assert.ok(measured.ok);
    assert.equal(measured.bytes, utf8Bytes(value), JSON.stringify(value));
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
});

Deno.test("every other number's bytes are exactly its JSON text's, in a value too", () => {
  const numbers = [
    1e15,
    -1e15,
    2 ** 53,
    1e21,
    -1e21,
    0.1,
    -0.5,
    1 / 3,
    -1.5e-7,
    5e-324,
    Number.MAX_VALUE,
    123.456,
  ];
  for (const value of numbers) assert.equal(jsonBytes(value), JSON.stringify(value).length, String(value));
  assert.equal(jsonBytes({ n: numbers }), JSON.stringify({ n: numbers }).length);
});

Deno.test("a string's bytes are those of its JSON in UTF-8: escapes, multi-byte characters, lone surrogates", () => {
  // A derived $pad('', n, '\u0001') was counted as n + 2 bytes while its JSON takes 6n + 2: 54 MB passed a 16 MiB limit.
  assert.equal(jsonBytes("\u0001".repeat(9_000_000)), 54_000_002);
  const units = [
    ..."aZ09 ~!#[]{}",
    '"',
    "\\",
    "\u007f",
    ..."\b\t\n\f\r\u0000\u0001\u001f",
    ..."é\u0080\u07ff\u0800€\uffff\ufeff",
    "😀",
    "\ud800",
    "\udbff",
    "\udc00",
    "\udfff",
  ];
  const random = new Random(1203);
  for (let round = 0; round < 3000; round++) {
    let text = "";
    for (let n = random.int(20); n > 0; n--) text += random.pick(units);
    assert.equal(jsonStringBytes(text), utf8Bytes(text), JSON.stringify(text));
    const value = { [text]: [text, { k: text }] };
    assert.equal(jsonBytes(value), utf8Bytes(value), JSON.stringify(value));
  }
});

Deno.test("past maxBytes the walk stops: exact within it, larger past it, a long array not walked", () => {
  const value = { a: [1, "two", { b: null }], c: "é" };
  const bytes = utf8Bytes(value);
  assert.equal(jsonBytes(value, bytes), bytes);
  assert.ok(jsonBytes(value, bytes - 1) > bytes - 1);
  // Elements read during the walk: an array of a million is answered by its length.
  let reads = 0;
  const counted = new Proxy(new Array(1_000_000).fill(0), {
    get: (target, key) => (typeof key === "string" && /^\d+$/.test(key) && reads++, Reflect.get(target, key)),
  });
  assert.ok(jsonBytes([counted], 1024) > 1024);
  assert.equal(reads, 0);
  let members = 0;
  const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 1]));
  const spied = new Proxy(wide, { get: (target, key) => (members++, Reflect.get(target, key)) });
  assert.ok(jsonBytes(spied, 1024) > 1024);
  assert.ok(members < 200, `${members} members read`);
});
