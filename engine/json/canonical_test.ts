import assert from "node:assert/strict";
import { canonicalJson } from "./canonical.ts";

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
