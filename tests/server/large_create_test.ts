/**
 * A large `POST /models` over the real server: the server keeps answering
 * while the spec compiles (it yields to the event loop between entries), and a
 * create of the same id meanwhile gets its 409 at once.
 */
import assert from "node:assert/strict";
import { largeSpec } from "../../engine/_test_utils.ts";
import { call, type Reply, startTestServer } from "./helpers.ts";

/** Settles `reply`, recording `name` in `order` when it does. */
function track(order: string[], name: string, reply: Promise<Reply>): Promise<Reply> {
  return reply.finally(() => order.push(name));
}

Deno.test("the server answers a health check and a same-id create while a large spec compiles", async () => {
  const server = await startTestServer();
  try {
    const order: string[] = [];
    const creating = track(order, "create", call(server.url, "POST", "/models", largeSpec("big", 3000)));
    // The server runs in this process: the timer fires once the create has started (its body read, its
    // compile under way), and without the yields only after the compile.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const health = await track(order, "health", call(server.url, "GET", "/actuator/health"));
    const duplicate = await track(
      order,
      "duplicate",
      call(server.url, "POST", "/models", { ...largeSpec("big", 1), id: "big" }),
    );
    const created = await creating;
    assert.deepEqual(order, ["health", "duplicate", "create"]);
    assert.equal(health.status, 200);
    assert.equal(duplicate.status, 409);
    assert.match(duplicate.json.detail, /already exists/);
    assert.equal(created.status, 201);
    assert.equal((await call(server.url, "GET", "/models/big/spec")).json.derivations.length, 3000);
  } finally {
    await server.close();
  }
});
