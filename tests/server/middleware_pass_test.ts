/**
 * The middleware that only check a request hand a request they pass on with
 * `next()`'s own promise: Hono awaits every middleware, and an `async`
 * wrapper around `await next()` added a promise and a microtask turn per
 * middleware to every request (server/middleware/answer.ts). The checks
 * run as one middleware (server/middleware/sequence.ts) for the same reason.
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
import { inSequence } from "../../server/middleware/sequence.ts";
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

Deno.test("checks in sequence run in order as one middleware, and a refusal ends them", async () => {
  const calls: string[] = [];
  const check = (name: string, refuse = false): MiddlewareHandler => (_c, next) => {
    calls.push(name);
    return refuse ? Promise.resolve(new Response(name, { status: 403 })) : next();
  };
  await onWrite((c) => {
    const passed = Promise.resolve();
    assert.equal(inSequence([check("a"), check("b")])(c, () => passed), passed);
    assert.deepEqual(calls.splice(0), ["a", "b"]);
    let reached = false;
    const refused = inSequence([check("a"), check("b", true), check("c")])(c, () => {
      reached = true;
      return passed;
    });
    assert.deepEqual(calls.splice(0), ["a", "b"]);
    assert.ok(!reached);
    assert.ok(refused instanceof Promise);
  });
  // In an app: the refusal is the answer, and what a check throws reaches the error handler.
  const app = new Hono();
  app.onError((err) => new Response(`handled: ${err.message}`, { status: 500 }));
  const throwing: MiddlewareHandler = () => {
    throw new Error("boom");
  };
  app.use("/refused", inSequence([check("a"), check("b", true)]));
  app.use("/thrown", inSequence([check("a"), throwing]));
  app.get("*", (c) => c.text("route"));
  assert.equal(await (await app.request("/refused")).text(), "b");
  assert.equal(await (await app.request("/thrown")).text(), "handled: boom");
  assert.equal(await (await app.request("/other")).text(), "route");
});
