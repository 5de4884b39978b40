import assert from "node:assert/strict";
import {
  append,
  createSequence,
  field,
  isInheritedKey,
  isSequence,
  lookup,
  normalize,
  singleton,
} from "./sequence.ts";

Deno.test("normalize unwraps singleton sequences and drops empty ones, never document arrays", () => {
  assert.equal(normalize(createSequence(), false), undefined);
  assert.equal(normalize(singleton(3), false), 3);
  const kept = normalize(singleton(3), true) as unknown[];
  assert.ok(isSequence(kept) && kept.length === 1);
  const doc = [3];
  assert.equal(normalize(doc, false), doc);
});

Deno.test("lookup reads own fields and maps over arrays, flattening one level", () => {
  assert.deepEqual([...(lookup([{ a: 1 }, { a: [2, [3]] }, {}, 5], "a") as unknown[])], [1, 2, [3]]);
  assert.equal(lookup({}, "toString"), undefined);
  assert.equal(lookup({ _jsonata_function: true, a: 1 }, "a"), undefined);
  assert.equal(field({ toString: 1 }, "toString", isInheritedKey("toString")), 1);
  assert.equal(field({}, "constructor", isInheritedKey("constructor")), undefined);
  assert.equal(field({ a: 1 }, "a", isInheritedKey("a")), 1);
});

Deno.test("append concatenates, keeps nothing as nothing, and bails past the sequence limit", () => {
  assert.deepEqual(append(1, [2, 3], 10), [1, 2, 3]);
  assert.equal(append(undefined, 2, 10), 2);
  assert.throws(() => append([1, 2], [3], 2));
});
