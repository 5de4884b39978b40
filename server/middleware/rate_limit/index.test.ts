import assert from "node:assert/strict";
import { Hono } from "hono";
import { rateLimit } from "./index.ts";

function app(now: () => number, trustForwardedFor = false): Hono {
  const app = new Hono();
  app.use("*", rateLimit({ requests: 2, windowSeconds: 10, trustForwardedFor, now }));
  app.get("*", (c) => c.text("ok"));
  return app;
}

const peer = (hostname: string) => ({ remoteAddr: { hostname, port: 1, transport: "tcp" } });

Deno.test("a client gets `requests` per sliding window, then 429 with Retry-After", async () => {
  let t = 0;
  const a = app(() => t);
  const send = async (ip = "10.0.0.1") => {
    const res = await a.request("/", {}, peer(ip));
    await res.body?.cancel();
    return res;
  };
  assert.equal((await send()).status, 200);
  t = 4000;
  assert.equal((await send()).status, 200);
  t = 5000;
  const refused = await send();
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("Retry-After"), "5", "the first request leaves the window at 10s");
  assert.equal((await send("10.0.0.2")).status, 200, "other clients are counted apart");
  t = 10_001;
  assert.equal((await send()).status, 200, "the window slid past the first request");
  assert.equal((await send()).status, 429, "the request at 4s still counts");
});

Deno.test("refused requests are not counted", async () => {
  let t = 0;
  const a = app(() => t);
  for (let i = 0; i < 5; i++) await (await a.request("/", {}, peer("1.1.1.1"))).body?.cancel();
  t = 10_001;
  const res = await a.request("/", {}, peer("1.1.1.1"));
  assert.equal(res.status, 200);
  await res.body?.cancel();
});

Deno.test("X-Forwarded-For is used only when trusted, keyed on its first hop", async () => {
  const forwarded = (ip: string) => ({ headers: { "X-Forwarded-For": `${ip}, 192.168.0.1` } });
  const trusting = app(() => 0, true);
  for (const ip of ["5.5.5.5", "5.5.5.5", "6.6.6.6"]) {
    const res = await trusting.request("/", forwarded(ip), peer("192.168.0.1"));
    assert.equal(res.status, 200, ip);
    await res.body?.cancel();
  }
  const refused = await trusting.request("/", forwarded("5.5.5.5"), peer("192.168.0.1"));
  assert.equal(refused.status, 429);
  await refused.body?.cancel();

  const plain = app(() => 0, false);
  for (const ip of ["7.7.7.7", "8.8.8.8"]) {
    await (await plain.request("/", forwarded(ip), peer("9.9.9.9"))).body?.cancel();
  }
  const spoofed = await plain.request("/", forwarded("1.2.3.4"), peer("9.9.9.9"));
  assert.equal(spoofed.status, 429, "an untrusted header cannot dodge the limit");
  await spoofed.body?.cancel();
});
