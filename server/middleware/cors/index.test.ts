import assert from "node:assert/strict";
import { Hono } from "hono";
import { readOrigins } from "../../config.ts";
import { corsFor } from "./index.ts";

/** The app with `origins` listed as an operator writes svc.http.cors.allowed-origins. */
function app(origins: string[]): Hono {
  const hono = new Hono();
  const cors = corsFor(readOrigins(() => origins.join(","), "svc.http.cors.allowed-origins") ?? []);
  if (cors) hono.use("*", cors);
  // Stands in for the key gate: only preflights pass without the key.
  hono.use("*", async (c, next) => c.req.header("authorization") ? await next() : c.text("key", 401));
  hono.get("/models", (c) => c.json([]));
  return hono;
}

const preflight = (origin: string) => ({
  method: "OPTIONS",
  headers: {
    origin,
    "access-control-request-method": "POST",
    "access-control-request-headers": "authorization,content-type",
  },
});

Deno.test("a listed origin: preflight answered before the key gate, answers readable, no credentials", async () => {
  const server = app(["https://App.Example/"]);
  const pre = await server.request("/models", preflight("https://app.example"));
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-origin"), "https://app.example");
  assert.match(pre.headers.get("access-control-allow-headers") ?? "", /Authorization/);
  assert.match(pre.headers.get("access-control-allow-methods") ?? "", /DELETE/);
  assert.equal(pre.headers.get("access-control-allow-credentials"), null);
  const got = await server.request("/models", {
    headers: { origin: "https://app.example", authorization: "k" },
  });
  assert.equal(got.status, 200);
  assert.equal(got.headers.get("access-control-allow-origin"), "https://app.example");
  assert.match(got.headers.get("access-control-expose-headers") ?? "", /Location/);
});

Deno.test("an unlisted origin, or no list: no CORS headers, so the browser withholds the answer", async () => {
  const listed = app(["https://app.example"]);
  const other = await listed.request("/models", preflight("https://evil.example"));
  assert.equal(other.status, 401, "a preflight from elsewhere is not answered before the key gate");
  const answered = await listed.request("/models", {
    headers: { origin: "https://evil.example", authorization: "k" },
  });
  const withoutOrigin = await listed.request("/models", { headers: { authorization: "k" } });
  for (const response of [other, answered, withoutOrigin]) {
    assert.deepEqual([...response.headers.keys()].filter((name) => name.startsWith("access-control-")), []);
  }
  const none = app([]);
  const got = await none.request("/models", {
    headers: { origin: "https://app.example", authorization: "k" },
  });
  assert.equal(got.headers.get("access-control-allow-origin"), null);
  assert.equal((await none.request("/models", preflight("https://app.example"))).status, 401, "no preflight");
  const any = app(["*"]);
  const wild = await any.request("/models", preflight("http://localhost:5173"));
  assert.equal(wild.headers.get("access-control-allow-origin"), "http://localhost:5173");
});

Deno.test("an Origin header with a trailing slash, capitals or the default port is the listed origin", async () => {
  const server = app(["https://app.example"]);
  for (const origin of ["https://app.example/", "HTTPS://App.Example", "https://app.example:443"]) {
    const pre = await server.request("/models", preflight(origin));
    assert.equal(pre.status, 204, origin);
    assert.equal(pre.headers.get("access-control-allow-origin"), origin);
  }
  for (const origin of ["https://app.example:8443", "http://app.example", "https://app.example/app"]) {
    assert.equal((await server.request("/models", preflight(origin))).status, 401, origin);
  }
});
