import assert from "node:assert/strict";
import { Hono } from "hono";
import { hostCheck, hostnameOf, isLoopbackName } from "./index.ts";

Deno.test("loopback names: localhost, 127.0.0.0/8, ::1; nothing else", () => {
  for (const name of ["localhost", "LOCALHOST.", "app.localhost", "127.0.0.1", "127.9.8.7", "[::1]", "::1"]) {
    assert.ok(isLoopbackName(name), name);
  }
  for (
    const name of ["evil.example", "127.0.0.1.evil.example", "128.0.0.1", "127.0.0.300", "0.0.0.0", "[::2]"]
  ) {
    assert.ok(!isLoopbackName(name), name);
  }
  assert.equal(hostnameOf("[::1]:8080"), "[::1]");
  assert.equal(hostnameOf("localhost:1"), "localhost");
});

Deno.test("a foreign Host or Origin is 403; listed origins pass", async () => {
  const app = new Hono();
  app.use("*", hostCheck({ allowedOrigins: ["https://app.example"] }));
  app.get("*", (c) => c.text("ok"));
  const status = async (headers: Record<string, string>) =>
    (await app.request("http://x/", { headers })).status;
  assert.equal(await status({ host: "127.0.0.1:8080" }), 200);
  assert.equal(await status({ host: "evil.example:8080" }), 403);
  // The verdict of the last admitted Host is remembered: a foreign one right after it is still refused.
  assert.equal(await status({ host: "127.0.0.1:8080" }), 200);
  assert.equal(await status({ host: "127.0.0.1:8080" }), 200);
  assert.equal(await status({ host: "evil.example:8080" }), 403);
  assert.equal(await status({ host: "localhost", origin: "http://evil.example" }), 403);
  assert.equal(await status({ host: "localhost", origin: "http://localhost:3000" }), 200);
  assert.equal(await status({ host: "localhost", origin: "https://app.example" }), 200);
});

Deno.test("a listed origin passes in any header form: trailing slash, capitals, the default port", async () => {
  const app = new Hono();
  app.use("*", hostCheck({ allowedOrigins: ["https://app.example"] }));
  app.get("*", (c) => c.text("ok"));
  const status = async (origin: string) =>
    (await app.request("http://x/", { headers: { host: "localhost", origin } })).status;
  for (const origin of ["https://app.example/", "HTTPS://App.Example", "https://app.example:443"]) {
    assert.equal(await status(origin), 200, origin);
  }
  for (const origin of ["https://app.example:8443", "http://app.example", "https://app.example.evil"]) {
    assert.equal(await status(origin), 403, origin);
  }
});
