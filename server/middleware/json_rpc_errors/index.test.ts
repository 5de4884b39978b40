import assert from "node:assert/strict";
import { Hono } from "hono";
import { problemResponse, unauthorizedResponse } from "../../problem.ts";
import { jsonRpcErrors, REFUSED } from "./index.ts";

/** An app whose routes refuse as the shared checks do, with `/rpc` a JSON-RPC path. */
function refusing() {
  const app = new Hono();
  app.use("*", jsonRpcErrors(new Set(["/rpc"])));
  app.post(
    "/rpc/too-many",
    () => problemResponse(429, "Too many requests", undefined, { "Retry-After": "1" }),
  );
  app.all("*", (c) => {
    if (c.req.header("x-refuse") === "401") return unauthorizedResponse("Missing or invalid API key");
    if (c.req.header("x-refuse") === "429") {
      return problemResponse(429, "Too many requests", undefined, { "Retry-After": "1" });
    }
    return c.json({ jsonrpc: "2.0", result: {}, id: 1 });
  });
  return app;
}

Deno.test("a problem document on a JSON-RPC path becomes a JSON-RPC error without an id; status and headers kept", async () => {
  const res = await refusing().request("/rpc", { method: "POST", headers: { "x-refuse": "429" } });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "1");
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.deepEqual(await res.json(), {
    jsonrpc: "2.0",
    error: { code: REFUSED, message: "Too Many Requests: Too many requests" },
    id: null,
  });
});

Deno.test("other paths, answers that are no problem document, and a 401 pass unchanged", async () => {
  const app = refusing();
  const other = await app.request("/rpc/too-many", { method: "POST" });
  assert.equal(other.headers.get("content-type"), "application/problem+json");
  assert.equal((await other.json()).status, 429);
  const unauthorized = await app.request("/rpc", { method: "POST", headers: { "x-refuse": "401" } });
  assert.equal(unauthorized.status, 401);
  assert.deepEqual(await unauthorized.json(), { error: "Missing or invalid API key" });
  const answered = await app.request("/rpc", { method: "POST" });
  assert.deepEqual(await answered.json(), { jsonrpc: "2.0", result: {}, id: 1 });
});
