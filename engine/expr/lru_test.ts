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
