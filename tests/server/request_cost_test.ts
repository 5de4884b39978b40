/**
 * Deno.serve builds a request's body stream and its abort signal only when
 * first asked for them, and each cost the server about 35 µs a request (more
 * than the HTTP exchange itself): a write's request must be served without
 * either, its body read whole by the route.
 *
 * @module
 */
import assert from "node:assert/strict";
import { inProcessServer, orderSpec } from "./helpers.ts";

/** `request` with its `body` and `signal` getters counted. */
function counted(request: Request): { request: Request; reads: Record<"body" | "signal", number> } {
  const reads = { body: 0, signal: 0 };
  for (const name of ["body", "signal"] as const) {
    const getter = Object.getOwnPropertyDescriptor(Request.prototype, name)!.get!;
    Object.defineProperty(request, name, {
      get() {
        reads[name]++;
        return getter.call(this);
      },
    });
  }
  return { request, reads };
}

function post(path: string, body: unknown): Request {
  const text = JSON.stringify(body);
  return new Request(`http://127.0.0.1${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": String(new TextEncoder().encode(text).length),
    },
    body: text,
  });
}

Deno.test("a write is served without its body stream or abort signal", async () => {
  const server = await inProcessServer();
  try {
    const created = counted(post("/models", orderSpec("order")));
    assert.equal((await server.app.request(created.request)).status, 201);
    const write = counted(post("/models/order/mutations", { "$.qty": 2, "$.price": 3 }));
    const response = await server.app.request(write.request);
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).mutatedPaths, ["$.qty", "$.price"]);
    for (const { reads } of [created, write]) assert.deepEqual(reads, { body: 0, signal: 0 });
    // A refused write reads neither either, and its answer is the usual problem.
    const refused = counted(post("/models/order/mutations", { "$.qty": 101 }));
    const problem = await server.app.request(refused.request);
    assert.equal(problem.status, 409);
    assert.match(JSON.stringify(await problem.json()), /qty must not exceed 100/);
    assert.deepEqual(refused.reads, { body: 0, signal: 0 });
  } finally {
    await server.close();
  }
});
