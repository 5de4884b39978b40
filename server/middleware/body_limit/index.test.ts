import assert from "node:assert/strict";
import { Hono } from "hono";
import { bodySizeLimit } from "./index.ts";

function app(): Hono {
  const app = new Hono();
  app.use(
    "*",
    bodySizeLimit(
      { multipartFileBytes: 100, multipartRequestBytes: 200, otherBytes: 10 },
      (method, path) => method === "POST" && path === "/blobs",
    ),
  );
  app.post("*", async (c) => c.text(String((await c.req.arrayBuffer()).byteLength)));
  return app;
}

function chunked(bytes: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes; i += 4) controller.enqueue(new Uint8Array(Math.min(4, bytes - i)));
      controller.close();
    },
  });
}

Deno.test("declared lengths over the cap answer 413 before reading", async () => {
  const res = await app().request("/x", {
    method: "POST",
    body: "x".repeat(11),
    headers: { "content-length": "11" },
  });
  assert.equal(res.status, 413);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.match((await res.json()).detail, /limit of 10 bytes/);
  const ok = await app().request("/x", {
    method: "POST",
    body: "x".repeat(10),
    headers: { "content-length": "10" },
  });
  assert.equal(await ok.text(), "10");
});

Deno.test("a declared length within the cap leaves the body to the route, not taken as a stream", async () => {
  const request = new Request("http://localhost/x", {
    method: "POST",
    body: "x".repeat(10),
    headers: { "content-length": "10" },
  });
  let streamed = 0;
  const body = Object.getOwnPropertyDescriptor(Request.prototype, "body")!.get!;
  Object.defineProperty(request, "body", {
    get() {
      streamed++;
      return body.call(this);
    },
  });
  const res = await app().request(request);
  assert.equal(await res.text(), "10");
  assert.equal(streamed, 0);
});

Deno.test("bodies without a length are counted while read", async () => {
  const over = await app().request("/x", { method: "POST", body: chunked(12) });
  assert.equal(over.status, 413);
  await over.body?.cancel();
  const ok = await app().request("/x", { method: "POST", body: chunked(9) });
  assert.equal(await ok.text(), "9");
});

Deno.test("multipart bodies get the multipart request cap on upload routes only", async () => {
  const headers = { "content-type": "multipart/form-data; boundary=x" };
  const ok = await app().request("/blobs", { method: "POST", body: chunked(150), headers });
  assert.equal(await ok.text(), "150");
  const over = await app().request("/blobs", { method: "POST", body: chunked(201), headers });
  assert.equal(over.status, 413);
  await over.body?.cancel();
  // Elsewhere a multipart Content-Type does not lift the JSON cap.
  const elsewhere = await app().request("/models/m/mutations", {
    method: "POST",
    body: chunked(150),
    headers,
  });
  assert.equal(elsewhere.status, 413);
  await elsewhere.body?.cancel();
});
