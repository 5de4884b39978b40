/**
 * An `http` repository whose change feed is refused after a watch over it was
 * armed: the refusal is a warning naming the repository and the link's
 * `failed` status document. A refusal of our credential ends the watch with
 * that reason; any other refusal is retried (the feed reconnects, its waits
 * doubling), a reconnect that opens applies the link again, and six failed
 * reconnects in a row end the watch.
 */
import assert from "node:assert/strict";
import { stateOf, until } from "../effects/helpers.ts";
import { call, startTestServer, type TestServer } from "../server/helpers.ts";
import { httpRepository } from "../../repositories/http.ts";
import { sourceSpec, targetSpec } from "./helpers.ts";

const KEY = "hub-secret-key-0123456789";
const AUTH = { authorization: `Bearer ${KEY}` };

/**
 * A loopback server in front of `hub` that passes its REST calls and change
 * feeds on until `refuse(status)`: it then closes the open feeds and answers
 * every request with `status`, until `accept()`.
 */
function gate(hub: TestServer) {
  let refusal: number | null = null;
  const feeds = new Set<WebSocket>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (request) => {
    if (refusal !== null) {
      return Response.json({ error: refusal === 403 ? "Read-only key" : "Unavailable" }, { status: refusal });
    }
    const { pathname, search } = new URL(request.url);
    if (request.headers.get("upgrade") === "websocket") {
      // The client's feed opens once the hub's is open, so no frame of the hub is lost.
      const upstream = new WebSocket(`${hub.wsUrl}${pathname}${search}`);
      await new Promise((resolve, reject) => {
        upstream.onopen = resolve;
        upstream.onerror = reject;
      });
      const { socket, response } = Deno.upgradeWebSocket(request);
      upstream.onmessage = (message) => socket.readyState === WebSocket.OPEN && socket.send(message.data);
      socket.onclose = () => {
        feeds.delete(socket);
        upstream.close();
      };
      feeds.add(socket);
      return response;
    }
    const headers = new Headers(request.headers);
    headers.delete("host");
    return await fetch(`${hub.url}${pathname}${search}`, {
      method: request.method,
      headers,
      body: request.body,
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    refuse(status: number) {
      refusal = status;
      for (const socket of feeds) socket.close(1011, "going away");
    },
    accept() {
      refusal = null;
    },
    close: () => server.shutdown(),
  };
}

/** The hub holding `fx` (v = 2), the gate in front of it, and a server whose `hub` repository is the gate. */
async function setUp() {
  const hub = await startTestServer({ "svc.api.key": KEY });
  assert.equal((await call(hub.url, "POST", "/models", targetSpec(), AUTH)).status, 201);
  await call(hub.url, "POST", "/models/fx/mutations", { "$.v": 2 }, AUTH);
  const front = gate(hub);
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      { id: "hub", transport: "http", locator: front.url, credential: KEY },
    ]),
  });
  return {
    hub,
    front,
    local,
    async close() {
      await local.close();
      await front.close();
      await hub.close();
    },
  };
}

/** `inv` reads `fx.twice` through a watch, armed and heard once. */
async function watched(hub: TestServer, local: TestServer): Promise<void> {
  assert.equal((await call(local.url, "POST", "/models", sourceSpec())).status, 201);
  await call(local.url, "POST", "/models/inv/mutations", { "$.need": true });
  await until(
    () => stateOf(local.url, "inv"),
    (s) => s.io?.pull?.phase === "applied" && s.rate === 4,
    "pull",
  );
  await call(hub.url, "POST", "/models/fx/mutations", { "$.v": 5 }, AUTH);
  await until(() => stateOf(local.url, "inv"), (s) => s.rate === 10, "the watch over the feed");
}

Deno.test("a watch whose feed then refuses our credential ends, with a warning and its status saying why", async () => {
  const { hub, front, local, close } = await setUp();
  try {
    await watched(hub, local);
    front.refuse(403);
    const failed = await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io.pull.phase === "failed",
      "the refusal recorded",
    );
    const reason = /^feed ended: Repository 'hub' refused our credential \(it answered 403\): Read-only key/;
    assert.match(failed.io.pull.error, reason);
    assert.equal(failed.rate, 10, "the source keeps the last value it read");
    const warning = local.logs.find((line) => line.includes("watched read feed ended"));
    assert.ok(warning, local.logs.join("\n"));
    assert.match(
      warning,
      /effect 'pull' of model 'inv': watched read feed ended: Repository 'hub' refused our/,
    );

    // The graph shows it too: the link edge's last status document.
    const graph = (await call(local.url, "GET", "/composition/graph")).json;
    const edge = graph.linkEdges.find((e: { effectId: string }) => e.effectId === "pull");
    assert.match(edge.last.error, reason);
  } finally {
    await close();
  }
});

Deno.test("a watch whose feed is refused otherwise warns, and applies again once the feed reopens", async () => {
  const { hub, front, local, close } = await setUp();
  try {
    await watched(hub, local);
    front.refuse(503);
    const interrupted = await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io.pull.phase === "failed",
      "the interruption recorded",
    );
    assert.match(
      interrupted.io.pull.error,
      /^feed interrupted: Repository 'hub': Live updates of 'fx' interrupted/,
    );
    assert.ok(
      local.logs.some((line) => /watched read feed interrupted: Repository 'hub'/.test(line)),
      local.logs.join("\n"),
    );
    await call(hub.url, "POST", "/models/fx/mutations", { "$.v": 7 }, AUTH);
    front.accept();
    // The reconnect (a second later) reads the whole model again: the value committed meanwhile arrives.
    const applied = await until(() => stateOf(local.url, "inv"), (s) => s.rate === 14, "the feed reopened");
    assert.equal(applied.io.pull.phase, "applied");
    assert.equal(applied.io.pull.error, null);
  } finally {
    await close();
  }
});

Deno.test("a watch whose feed stays refused ends after six failed reconnects", async () => {
  const hub = await startTestServer({ "svc.api.key": KEY });
  const front = gate(hub);
  const repository = httpRepository({
    id: "hub",
    repoClass: "web",
    baseUrl: front.url,
    credential: KEY,
    reconnectMs: 1,
  });
  try {
    assert.equal((await call(hub.url, "POST", "/models", targetSpec(), AUTH)).status, 201);
    const changes: string[][] = [];
    const problems: [string, boolean][] = [];
    const { promise: ended, resolve } = Promise.withResolvers<void>();
    await repository.watch!("fx", (paths) => changes.push(paths), (message, final) => {
      problems.push([message, final]);
      if (final) resolve();
    });
    await until(() => Promise.resolve(changes.length), (n) => n === 1, "the feed open");
    front.refuse(503);
    await ended;
    assert.deepEqual(problems.map(([, final]) => final), [false, true], "one warning, then the end");
    assert.match(problems[0][0], /^feed interrupted: Repository 'hub': Live updates of 'fx' interrupted/);
    assert.equal(
      problems[1][0],
      "feed ended: Repository 'hub': Live updates of 'fx' stopped after 6 failed reconnects",
    );
  } finally {
    await repository.close?.();
    await front.close();
    await hub.close();
  }
});
