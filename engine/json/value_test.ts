import assert from "node:assert/strict";
import { withBrowserProtoAccessor } from "../_test_utils.ts";
import { cloneJson, isContainer, isObject, jsonEqual, setMember, toPlainJson } from "./value.ts";

Deno.test("isObject and isContainer", () => {
  assert.equal(isObject({}), true);
  assert.equal(isObject([]), false);
  assert.equal(isObject(null), false);
  assert.equal(isContainer([]), true);
  assert.equal(isContainer({}), true);
  assert.equal(isContainer("x"), false);
  assert.equal(isContainer(null), false);
});

Deno.test("jsonEqual compares structure deeply, ignoring key order", () => {
  assert.equal(jsonEqual({ a: [1, { b: 2 }], c: null }, { c: null, a: [1, { b: 2 }] }), true);
  assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(jsonEqual([1, 2], [2, 1]), false);
  assert.equal(jsonEqual([], {}), false);
  assert.equal(jsonEqual({}, []), false);
  assert.equal(jsonEqual(1, "1"), false);
  assert.equal(jsonEqual(null, {}), false);
  assert.equal(jsonEqual({ a: undefined }, { b: undefined }), false);
});

Deno.test("cloneJson returns an independent copy", () => {
  const original = { a: [1, { b: 2 }] };
  const copy = cloneJson(original);
  assert.deepEqual(copy, original);
  copy.a.push(3);
  assert.equal(original.a.length, 2);
  assert.equal(cloneJson(undefined), undefined);
});

Deno.test("cloneJson keeps a parsed __proto__ member as data and never changes the copy's prototype", () => {
  const parsed = JSON.parse('{"__proto__":{"polluted":true},"n":[null,"x",false]}');
  const copy = cloneJson(parsed);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  assert.deepEqual(Object.keys(copy), ["__proto__", "n"]);
  assert.equal(JSON.stringify(copy), JSON.stringify(parsed));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("setMember, cloneJson and toPlainJson keep __proto__ an own member under a browser's accessor", async () => {
  const text = '{"__proto__":{"x":1},"n":{"__proto__":null,"m":[{"__proto__":"s"}]}}';
  await withBrowserProtoAccessor(() => {
    const parsed = JSON.parse(text);
    for (const copy of [cloneJson(parsed), toPlainJson(parsed)] as Record<string, unknown>[]) {
      assert.equal(JSON.stringify(copy), text);
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.equal(copy.x, undefined, "the member is no prototype to read through");
    }
    const out: Record<string, unknown> = {};
    setMember(out, "__proto__", { y: 2 });
    setMember(out, "__proto__", null);
    setMember(out, "z", 3);
    assert.deepEqual(Object.getOwnPropertyDescriptor(out, "__proto__"), {
      value: null,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    assert.equal(JSON.stringify(out), '{"__proto__":null,"z":3}');
  });
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

Deno.test("toPlainJson drops functions and undefined, refuses non-finite numbers", () => {
  assert.equal(toPlainJson(undefined), undefined);
  assert.equal(toPlainJson(() => 1), undefined);
  assert.throws(() => toPlainJson(Infinity), {
    name: "RangeError",
    message: "the result holds Infinity, not a JSON number",
  });
  assert.throws(() => toPlainJson({ a: [1, NaN] }), { message: "the result holds NaN, not a JSON number" });
  assert.deepEqual(toPlainJson({ a: 1, f: () => 1, u: undefined, n: [1, undefined, 2] }), {
    a: 1,
    n: [1, 2],
  });
  // JSONata sequences are arrays with extra flags: they become plain arrays
  const sequence = Object.assign([1, 2], { sequence: true });
  const plain = toPlainJson(sequence) as unknown[];
  assert.deepEqual(plain, [1, 2]);
  assert.equal(Object.prototype.hasOwnProperty.call(plain, "sequence"), false);
});
