/**
 * The `http` repository's change feed: a watch reads again whenever its feed
 * opens, the first time included, since what committed before (between the
 * watch being armed and the socket being open, or while it was down) sent no
 * frame.
 */
import assert from "node:assert/strict";
import { httpRepository } from "./http.ts";

Deno.test("a watch counts everything as changed each time its feed opens, the first time included", async () => {
  const sockets: WebSocket[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    // After a drop the watch asks whether the model is still there: it is (a 404 would end the watch).
    if (path === "/models/fx") return Response.json({ id: "fx", version: "1.0.0" });
    if (path !== "/models/fx/subscribe") return new Response(null, { status: 404 });
    const { socket, response } = Deno.upgradeWebSocket(request);
    sockets.push(socket);
    return response;
  });
  const repository = httpRepository({
    id: "hub",
    repoClass: "web",
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    credential: null,
    reconnectMs: 10,
  });
  const changes: string[][] = [];
  const changed = async (count: number) => {
    for (let waited = 0; changes.length < count; waited += 10) {
      if (waited > 5000) assert.fail(`${changes.length} of ${count} changes reported`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const stop = await repository.watch!("fx", (paths) => changes.push(paths));
  try {
    await changed(1);
    assert.deepEqual(changes, [["$"]], "the first open, before any frame");
    sockets[0].send(JSON.stringify({ kind: "mutation", mutatedPaths: ["$.v"], derivedUpdated: ["$.w"] }));
    await changed(2);
    assert.deepEqual(changes[1], ["$.v", "$.w"]);
    sockets[0].close();
    await changed(3);
    assert.deepEqual(changes[2], ["$"], "open again after a drop");
    assert.equal(sockets.length, 2);
  } finally {
    stop();
    repository.close?.();
    await server.shutdown();
  }
});
