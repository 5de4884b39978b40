/**
 * Deno.serve builds a request's body stream only when first asked for it, and
 * a body read through that stream cost the server about 25 µs a write (its
 * CPU in alternating rounds of 64 clients): a write's request must be served
 * without it, its body read whole by the route.
 *
 * @module
 */
import assert from "node:assert/strict";
import { inProcessServer, orderSpec } from "./helpers.ts";

/** `request` with the reads of its `body` counted. */
function counted(request: Request): { request: Request; reads: { body: number } } {
  const reads = { body: 0 };
  const getter = Object.getOwnPropertyDescriptor(Request.prototype, "body")!.get!;
  Object.defineProperty(request, "body", {
    get() {
      reads.body++;
      return getter.call(this);
    },
  });
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

Deno.test("a write is served without its body stream", async () => {
  const server = await inProcessServer();
  try {
    const created = counted(post("/models", orderSpec("order")));
    assert.equal((await server.app.request(created.request)).status, 201);
    const write = counted(post("/models/order/mutations", { "$.qty": 2, "$.price": 3 }));
    const response = await server.app.request(write.request);
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).mutatedPaths, ["$.qty", "$.price"]);
    for (const { reads } of [created, write]) assert.deepEqual(reads, { body: 0 });
    // A refused write does not either, and its answer is the usual problem.
    const refused = counted(post("/models/order/mutations", { "$.qty": 101 }));
    const problem = await server.app.request(refused.request);
    assert.equal(problem.status, 409);
    assert.match(JSON.stringify(await problem.json()), /qty must not exceed 100/);
    assert.deepEqual(refused.reads, { body: 0 });
  } finally {
    await server.close();
  }
});
