import assert from "node:assert/strict";
import { Hono } from "hono";
import { apiKeyAuth, bearerToken, constantTimeEqual, SESSION_ENDED_MESSAGE } from "./index.ts";

function app(apiKey: string | null): Hono {
  const app = new Hono();
  app.use(
    "*",
    apiKeyAuth({
      apiKey,
      openPaths: new Set(["/open"]),
      acceptsQueryToken: (path) => path.endsWith("/subscribe"),
    }),
  );
  app.get("*", (c) => c.text("passed"));
  return app;
}

Deno.test("constantTimeEqual compares whole strings of any length", () => {
  assert.equal(constantTimeEqual("secret", "secret"), true);
  assert.equal(constantTimeEqual("secreT", "secret"), false);
  assert.equal(constantTimeEqual("secret-longer", "secret"), false);
  assert.equal(constantTimeEqual("sec", "secret"), false);
  assert.equal(constantTimeEqual("", "secret"), false);
  assert.equal(constantTimeEqual("ключ", "ключ"), true);
});

Deno.test("bearerToken parses only well-formed Bearer headers", () => {
  assert.equal(bearerToken("Bearer abc"), "abc");
  assert.equal(bearerToken("bearer abc"), "abc");
  assert.equal(bearerToken("Basic abc"), null);
  assert.equal(bearerToken("Bearer"), null);
  assert.equal(bearerToken("Bearer a b"), null);
  assert.equal(bearerToken(undefined), null);
});

Deno.test("open mode lets everything through", async () => {
  const res = await app(null).request("/anything");
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "passed");
});

Deno.test("a key is required: missing, malformed and wrong keys answer the same 401", async () => {
  const a = app("s3cret");
  const attempts: Record<string, string>[] = [
    {},
    { Authorization: "Basic s3cret" },
    { Authorization: "Bearer wrong" },
    { Authorization: "s3cret" },
  ];
  for (const headers of attempts) {
    const res = await a.request("/models", { headers });
    assert.equal(res.status, 401);
    // The documented body has none of a problem document's members: it goes out as plain JSON.
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="svc"');
    assert.deepEqual(await res.json(), { error: "Missing or invalid API key" });
  }
  const ok = await a.request("/models", { headers: { Authorization: "Bearer s3cret" } });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
});

Deno.test("open paths need no key; query tokens count only where accepted", async () => {
  const a = app("s3cret");
  assert.equal((await a.request("/open")).status, 200);
  assert.equal((await a.request("/open/more")).status, 401, "only the exact path is open");
  assert.equal((await a.request("/models/x/subscribe?token=s3cret")).status, 200);
  assert.equal((await a.request("/models/x/subscribe?token=nope")).status, 401);
  assert.equal((await a.request("/models/x/subscribe")).status, 401);
  assert.equal((await a.request("/models?token=s3cret")).status, 401, "not a handshake path");
});

Deno.test("a session token no live session has answers the same plain-JSON 401, with its own message", async () => {
  const a = new Hono();
  a.use(
    "*",
    apiKeyAuth({
      apiKey: null,
      openPaths: new Set(),
      acceptsQueryToken: () => false,
      sessions: {
        claims: (t) => t.startsWith("svcs_"),
        resolve: () => undefined,
        reaches: () => true,
        admit() {},
      },
    }),
  );
  a.get("*", (c) => c.text("passed"));
  const res = await a.request("/models", { headers: { Authorization: "Bearer svcs_gone" } });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="svc"');
  assert.deepEqual(await res.json(), { error: SESSION_ENDED_MESSAGE });
});
