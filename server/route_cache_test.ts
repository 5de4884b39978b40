import assert from "node:assert/strict";
import { Hono } from "hono";
import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import type { H, RouterRoute } from "hono/types";
import { CachedRouter, ROUTE_CACHE_SIZE } from "./route_cache.ts";

/** A trie router that counts its searches. */
function counting<T>(): { router: Router<T>; searches: () => number } {
  const inner = new TrieRouter<T>();
  let searches = 0;
  return {
    router: {
      name: inner.name,
      add: (method, path, handler) => inner.add(method, path, handler),
      match: (method: string, path: string): Result<T> => {
        searches++;
        return inner.match(method, path);
      },
    },
    searches: () => searches,
  };
}

Deno.test("a repeated method and path is routed without a new search, with the same handlers and parameters", async () => {
  const { router, searches } = counting<[H, RouterRoute]>();
  const app = new Hono({ router: new CachedRouter(router) });
  const seen: string[] = [];
  app.use("*", async (c, next) => {
    seen.push(`mw ${c.req.method} ${c.req.path}`);
    await next();
  });
  app.post("/models/:id/mutations", (c) => c.text(`write ${c.req.param("id")}`));
  app.get("/models/:id", (c) => c.text(`read ${c.req.param("id")}`));
  const text = async (method: string, path: string) => {
    const res = await app.request(path, { method });
    return `${res.status} ${await res.text()}`;
  };
  assert.equal(await text("POST", "/models/a/mutations"), "200 write a");
  assert.equal(await text("POST", "/models/a/mutations"), "200 write a");
  assert.equal(await text("POST", "/models/b%2Fc/mutations"), "200 write b/c");
  assert.equal(await text("GET", "/models/a"), "200 read a");
  assert.equal(await text("GET", "/models/a/mutations"), "404 404 Not Found");
  assert.equal(await text("POST", "/models/a/mutations"), "200 write a");
  assert.equal(await text("GET", "/models/a/mutations"), "404 404 Not Found");
  // One search per distinct (method, path): four, for seven requests.
  assert.equal(searches(), 4);
  assert.equal(seen.length, 7);
});

Deno.test("the matches kept are bounded: the cache starts over when full", () => {
  const { router, searches } = counting<string>();
  const cached = new CachedRouter(router);
  cached.add("GET", "/m/:id", "read");
  for (let i = 0; i < ROUTE_CACHE_SIZE; i++) cached.match("GET", `/m/${i}`);
  assert.equal(searches(), ROUTE_CACHE_SIZE);
  cached.match("GET", "/m/0");
  assert.equal(searches(), ROUTE_CACHE_SIZE, "still kept");
  cached.match("GET", "/m/new"); // past the bound: the cache starts over with this one
  cached.match("GET", "/m/0");
  assert.equal(searches(), ROUTE_CACHE_SIZE + 2);
  const [[[handler, params]]] = cached.match("GET", "/m/7") as [[string, Record<string, string>][]];
  assert.deepEqual([handler, { ...params }], ["read", { id: "7" }]);
});
