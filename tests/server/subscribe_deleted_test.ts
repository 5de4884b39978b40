/**
 * A model deleted while its feed is being opened: the socket is closed with
 * 1000 "model deleted" as if it had been open when the deletion came, whether
 * the deletion falls between the route's lookup of the model and its
 * subscription (announced to no socket of the new one), or after the
 * subscription while the socket is still opening (Deno does not close a
 * socket asked to while it opens: it stays open, unsubscribed). The deletion
 * is injected at the step through the route's API, on a real server.
 */
import assert from "node:assert/strict";
// Loaded first, as the server loads them: the route table needs its schemas loaded before it.
import { call, captureLogger, configOf, inProcessServer, orderSpec } from "./helpers.ts";
import { createApp } from "../../server/app.ts";
import { PairingHost } from "../../server/pairing/host.ts";
import { ROUTES } from "../../server/routes/mod.ts";
import { SUBSCRIBE_ROUTE } from "../../server/routes/subscribe.ts";
import type { ModelApi } from "../../engine/service/api.ts";

/** A real server whose subscribe route reaches the service through `wrap(api)`. */
async function serverWith(wrap: (api: ModelApi) => ModelApi) {
  const parts = await inProcessServer();
  const config = (await configOf({ "svc.host": "127.0.0.1", "svc.storage.type": "memory" })).server;
  const routes = ROUTES.map((route) =>
    route === SUBSCRIBE_ROUTE
      ? { ...route, handle: (c, deps) => route.handle(c, { ...deps, api: wrap(deps.api) }) } as typeof route
      : route
  );
  const app = createApp({
    service: parts.service,
    config,
    metrics: parts.metrics,
    subscriptions: parts.subscriptions,
    log: captureLogger([]),
    pairing: new PairingHost({ enabled: false }),
    boundAddress: () => server.addr,
  }, routes);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  return {
    url,
    parts,
    close: async () => {
      await server.shutdown();
      await parts.close();
    },
  };
}

/** `api` whose `getInfo` calls go through `step(n, real)` (n counting from 1). */
function steppedApi(api: ModelApi, step: (n: number, real: ModelApi) => Promise<unknown>): ModelApi {
  let calls = 0;
  return new Proxy(api, {
    get(target, name) {
      if (name === "getInfo") return () => step(++calls, target);
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Opens a feed of `order` and, once open, sends a message: a live feed answers that with 1003, so the
 * close heard says whether the socket was already closing for the deletion.
 */
async function closeHeard(url: string): Promise<[number, string]> {
  const socket = new WebSocket(`${url.replace(/^http/, "ws")}/models/order/subscribe`);
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener("close", resolve));
  socket.addEventListener("open", () => socket.send("are you there?"));
  const { code, reason } = await closed;
  return [code, reason];
}

// The route looks the model up before subscribing and again after: deleted at either, the feed closes with 1000.
// At the second, the lookup answers as if found still, so the close is the deletion's own, reaching a socket
// still opening.
for (
  const [lookup, when] of [
    [1, "between the feed's lookup and its subscription: closed with 1000"],
    [2, "after the subscription, while the socket opens: closed with 1000 once open"],
  ] as const
) {
  Deno.test(`a model deleted ${when}`, async () => {
    const server = await serverWith((api) =>
      steppedApi(api, async (n, real) => {
        const info = await real.getInfo("order");
        if (n === lookup) await real.deleteModel("order");
        return info;
      })
    );
    try {
      await call(server.url, "POST", "/models", orderSpec());
      assert.deepEqual(await closeHeard(server.url), [1000, "model deleted"]);
      assert.equal(server.parts.subscriptions.size, 0);
    } finally {
      await server.close();
    }
  });
}
