import assert from "node:assert/strict";
import { Hono } from "hono";
import { securityHeaders } from "./index.ts";

Deno.test("security headers are set on successes, errors and not-found answers", async () => {
  const app = new Hono();
  app.use("*", securityHeaders({ contentSecurityPolicy: "default-src 'self'" }));
  app.get("/ok", (c) => c.text("ok"));
  app.get("/boom", () => {
    throw new Error("boom");
  });
  app.onError((_err, c) => c.text("failed", 500));
  for (const path of ["/ok", "/boom", "/missing"]) {
    const res = await app.request(path);
    await res.body?.cancel();
    assert.equal(res.headers.get("Strict-Transport-Security"), "max-age=31536000; includeSubDomains", path);
    assert.equal(res.headers.get("X-Frame-Options"), "DENY");
    assert.equal(res.headers.get("X-Content-Type-Options"), "nosniff");
    assert.equal(res.headers.get("Content-Security-Policy"), "default-src 'self'");
  }
});
