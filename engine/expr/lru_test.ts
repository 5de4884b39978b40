import assert from "node:assert/strict";
import { LruCache } from "./lru.ts";

Deno.test("LruCache keeps at most capacity entries, evicting the least recently used", () => {
  const cache = new LruCache<string, number>(2);
  cache.set("a", 1);
  cache.set("b", 2);
  assert.equal(cache.get("a"), 1); // a becomes most recent
  cache.set("c", 3); // evicts b
  assert.equal(cache.size, 2);
  assert.equal(cache.get("b"), undefined);
  assert.equal(cache.get("a"), 1);
  assert.equal(cache.get("c"), 3);
});

Deno.test("LruCache: setting an existing key refreshes it without growing", () => {
  const cache = new LruCache<string, number>(2);
  cache.set("a", 1);
  cache.set("b", 2);
  cache.set("a", 10);
  cache.set("c", 3); // evicts b, the oldest
  assert.equal(cache.size, 2);
  assert.equal(cache.get("a"), 10);
  assert.equal(cache.get("b"), undefined);
});

Deno.test("LruCache: a non-positive capacity still holds one entry", () => {
  const cache = new LruCache<string, number>(0);
  cache.set("a", 1);
  cache.set("b", 2);
  assert.equal(cache.size, 1);
  assert.equal(cache.get("b"), 2);
});

Deno.test("LruCache: reading the newest entry again keeps the order of the others", () => {
  const cache = new LruCache<string, number>(3);
  cache.set("a", 1);
  cache.set("b", 2);
  cache.set("c", 3);
  assert.equal(cache.get("a"), 1); // a is newest: b is now the oldest
  assert.equal(cache.get("a"), 1); // newest already, no move
  cache.set("d", 4); // evicts b
  assert.equal(cache.get("b"), undefined);
  cache.set("e", 5); // evicts c
  assert.equal(cache.get("c"), undefined);
  assert.equal(cache.get("a"), 1);
  assert.equal(cache.get("d"), 4);
  assert.equal(cache.get("e"), 5);
});

Deno.test("LruCache: an evicted newest key read again is a miss, not a stale hit", () => {
  const cache = new LruCache<string, number>(1);
  cache.set("a", 1);
  assert.equal(cache.get("a"), 1);
  cache.set("b", 2); // evicts a
  assert.equal(cache.get("a"), undefined);
  assert.equal(cache.get("b"), 2);
});
