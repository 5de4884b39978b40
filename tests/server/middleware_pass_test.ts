/**
 * The middleware that only check a request hand a request they pass on with
 * `next()`'s own promise: Hono awaits every middleware, and an `async`
 * wrapper around `await next()` added a promise and a microtask turn per
 * middleware to every request (server/middleware/answer.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { apiKeyAuth } from "../../server/middleware/auth/index.ts";
import { bodySizeLimit } from "../../server/middleware/body_limit/index.ts";
import { hostCheck } from "../../server/middleware/host_check/index.ts";
import { methodGuard } from "../../server/middleware/method_guard/index.ts";
import { rateLimit } from "../../server/middleware/rate_limit/index.ts";
import { webPages } from "../../server/routes/web.ts";

const PASSING: [string, MiddlewareHandler][] = [
  ["methodGuard", methodGuard(() => [])],
  ["hostCheck", hostCheck({ allowedOrigins: [] })],
  ["rateLimit", rateLimit({ requests: 100, windowSeconds: 60, trustForwardedFor: false })],
  ["apiKeyAuth (open)", apiKeyAuth({ apiKey: null, openPaths: new Set(), acceptsQueryToken: () => false })],
  ["apiKeyAuth (key)", apiKeyAuth({ apiKey: "k", openPaths: new Set(), acceptsQueryToken: () => false })],
  ["bodySizeLimit", bodySizeLimit({ otherBytes: 1000, multipartRequestBytes: 1000 } as never, () => false)],
  ["webPages", webPages("/nonexistent", [])],
];

/** Runs `check` on the context of one POST of a write. */
async function onWrite(check: (c: Context) => void): Promise<void> {
  const app = new Hono();
  let checked = false;
  app.post("/models/:id/mutations", (c) => {
    check(c);
    checked = true;
    return c.text("ok");
  });
  const body = JSON.stringify({ "$.qty": 1 });
  const response = await app.request("http://127.0.0.1:8080/models/m/mutations", {
    method: "POST",
    headers: {
      host: "127.0.0.1:8080",
      authorization: "Bearer k",
      "content-type": "application/json",
      "content-length": String(body.length),
    },
    body,
  }, { remoteAddr: { hostname: "127.0.0.1" } });
  assert.equal(await response.text(), "ok");
  assert.ok(checked);
}

Deno.test("a checking middleware passes a request on with next()'s own promise", async () => {
  await onWrite((c) => {
    for (const [name, middleware] of PASSING) {
      const passed = Promise.resolve();
      assert.equal(middleware(c, () => passed), passed, name);
    }
  });
});
