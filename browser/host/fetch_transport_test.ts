import assert from "node:assert/strict";
import { RequestFailed, RequestRefused, ResponseTooLarge } from "../../engine/effects/http_executor.ts";
import { fetchTransport } from "./fetch_transport.ts";

const limits = (timeoutMs = 2000, signal = new AbortController().signal) => ({ signal, timeoutMs });

Deno.test("fetchTransport: answers in full, caps their size, keeps its time limit, follows no redirect", async () => {
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/echo") return new Response(await request.text(), { status: 201 });
    if (path === "/big") return new Response("x".repeat(2000));
    if (path === "/moved") return new Response(null, { status: 302, headers: { location: "/echo" } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    return new Response("late");
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const transport = fetchTransport({ maxResponseBytes: 1000 });
  const echo = await transport.send(
    { method: "POST", url: `${base}/echo`, headers: {}, body: "hi" },
    limits(),
  );
  assert.equal(echo.status, 201);
  assert.equal(new TextDecoder().decode(echo.body), "hi");

  await assert.rejects(
    transport.send({ method: "GET", url: `${base}/big`, headers: {} }, limits()),
    (err) => err instanceof ResponseTooLarge && /max-response-bytes \(1000\)/.test(err.message),
  );
  await assert.rejects(
    transport.send({ method: "GET", url: `${base}/slow`, headers: {} }, limits(50)),
    (err) => err instanceof RequestFailed && err.message === "no answer within 50 ms",
  );
  const cancel = new AbortController();
  const cancelled = transport.send(
    { method: "GET", url: `${base}/slow`, headers: {} },
    limits(2000, cancel.signal),
  );
  cancel.abort();
  await assert.rejects(cancelled, (err) => err instanceof RequestFailed && err.message === "cancelled");

  // Deno answers a manual redirect with its 3xx (a browser with an opaque redirect, refused).
  const moved = await transport.send({ method: "GET", url: `${base}/moved`, headers: {} }, limits());
  assert.equal(moved.status, 302);
  const opaque = fetchTransport({
    fetch: () =>
      Promise.resolve(Object.defineProperty(new Response(null), "type", { value: "opaqueredirect" })),
  });
  await assert.rejects(
    opaque.send({ method: "GET", url: `${base}/moved`, headers: {} }, limits()),
    (err) => err instanceof RequestRefused,
  );
  // Let the slow handlers finish before the server closes.
  await new Promise((resolve) => setTimeout(resolve, 600));
});
