// The feed's URL, frame parsing, reconnects and refusals are tested with the shared client
// (engine/operations/change_feed_test.ts); here, that the browser's Feed is that client with the
// tab's REST invoker, and that a deletion found after a drop also ends the shown interruption.
import assert from "node:assert/strict";
import { ServiceError } from "../../engine/errors.ts";
import type { ChangeFeedSocketConstructor } from "../../engine/operations/change_feed.ts";
import type { Invoker } from "../../engine/operations/invoker.ts";
import type { Scheduler } from "../../engine/ports.ts";
import type { FeedEvent } from "./feed.ts";
import { socketFeed } from "./socket_feed.ts";

interface FakeSocket {
  url: string;
  onopen?: () => void;
  onmessage?: (m: { data: string }) => void;
  onclose?: (close: { code: number; reason: string }) => void;
}

/** A feed of `shop/cart` over fake sockets and timers, its REST API answering `getInfo` with `answer`. */
function follow(answer: () => Promise<unknown>) {
  const sockets: FakeSocket[] = [];
  class Socket implements FakeSocket {
    constructor(readonly url: string) {
      sockets.push(this);
    }
    close() {}
  }
  const timers = new Map<number, () => void>();
  let handles = 0;
  const scheduler: Scheduler = {
    setTimeout: (callback) => (timers.set(++handles, callback), handles),
    clearTimeout: (handle) => timers.delete(handle as number),
  };
  const events: FeedEvent[] = [];
  const heard: string[] = [];
  const stop = socketFeed({
    baseUrl: "http://h:8080/",
    apiKey: "k",
    WebSocket: Socket as unknown as ChangeFeedSocketConstructor,
    scheduler,
    invoker: { invoke: answer } as Invoker,
    onProblem: (message, final) => heard.push(`${final ? "final" : "problem"}: ${message}`),
    onRecovered: () => heard.push("recovered"),
  }).subscribe("shop/cart", (event) => events.push(event));
  return { sockets, timers, events, heard, stop };
}

/** Lets the feed's question to the REST API settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("each open of the socket reports a change of the whole model (commits before it are not missed)", () => {
  const { sockets, events, stop } = follow(() => Promise.resolve({}));
  assert.equal(sockets[0].url, "ws://h:8080/models/shop%2Fcart/subscribe?token=k");
  assert.deepEqual(events, [], "nothing before the socket is open");
  sockets[0].onopen!();
  sockets[0].onmessage!({ data: '{"modelId":"shop/cart","mutatedPaths":["$.a"],"derivedUpdated":[]}' });
  assert.deepEqual(events, [
    {
      kind: "mutation",
      modelId: "shop/cart",
      mutatedPaths: ["$"],
      derivedUpdated: [],
      dispatchedEffects: [],
    },
    {
      kind: "mutation",
      modelId: "shop/cart",
      mutatedPaths: ["$.a"],
      derivedUpdated: [],
      dispatchedEffects: [],
    },
  ]);
  stop();
});

Deno.test("a drop after which the REST API no longer finds the model ends the feed as a deletion", async () => {
  const { sockets, timers, events, heard } = follow(() =>
    Promise.reject(new ServiceError("not_found", "Model 'shop/cart' not found"))
  );
  sockets[0].onopen!();
  sockets[0].onclose!({ code: 1006, reason: "" });
  await settled();
  assert.deepEqual(events.at(-1), { kind: "deleted", modelId: "shop/cart" });
  assert.deepEqual(heard, [
    "problem: Live updates of 'shop/cart' interrupted (1006); reconnecting…",
    "recovered",
  ]);
  assert.equal(timers.size, 0, "no reconnect left");
});
