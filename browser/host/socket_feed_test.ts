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

/**
 * A feed of `modelIds` (one subscription each) over fake sockets and timers, its REST API answering `getInfo`
 * with `answer`.
 */
function follow(answer: () => Promise<unknown>, modelIds = ["shop/cart"]) {
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
  const feed = socketFeed({
    baseUrl: "http://h:8080/",
    apiKey: "k",
    WebSocket: Socket as unknown as ChangeFeedSocketConstructor,
    scheduler,
    invoker: { invoke: answer } as Invoker,
    onProblem: (message, final) => heard.push(`${final ? "final" : "problem"}: ${message}`),
    onRecovered: () => heard.push("recovered"),
  });
  const stops = modelIds.map((id) => feed.subscribe(id, (event) => events.push(event)));
  return { sockets, timers, events, heard, stop: stops[0], stops };
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
      metaUpdated: [],
      dispatchedEffects: [],
    },
    {
      kind: "mutation",
      modelId: "shop/cart",
      mutatedPaths: ["$.a"],
      derivedUpdated: [],
      metaUpdated: [],
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

Deno.test("each subscription keeps one problem: the latest shows, and recovery waits until none is left", () => {
  const { sockets, timers, heard, stops } = follow(() => new Promise(() => {}), ["a", "b"]);
  const reconnect = () => {
    for (const [handle, run] of [...timers]) {
      timers.delete(handle);
      run();
    }
  };
  const [a, b] = sockets;
  a.onopen!();
  b.onopen!();
  a.onclose!({ code: 1006, reason: "" });
  b.onclose!({ code: 1006, reason: "" });
  reconnect();
  const [a2, b2] = sockets.slice(2);
  assert.deepEqual([a2.url, b2.url], [
    "ws://h:8080/models/a/subscribe?token=k",
    "ws://h:8080/models/b/subscribe?token=k",
  ]);
  a2.onopen!();
  assert.deepEqual(heard, [
    "problem: Live updates of 'a' interrupted (1006); reconnecting…",
    "problem: Live updates of 'b' interrupted (1006); reconnecting…",
    // a is back, b is not: b's problem still shows.
    "problem: Live updates of 'b' interrupted (1006); reconnecting…",
  ]);
  heard.length = 0;
  a2.onclose!({ code: 1006, reason: "again" });
  stops[0]();
  b2.onclose!({ code: 1006, reason: "" });
  reconnect();
  sockets.at(-1)!.onopen!();
  assert.deepEqual(heard, [
    "problem: Live updates of 'a' interrupted (1006 again); reconnecting…",
    // a unsubscribed: its problem goes with it.
    "problem: Live updates of 'b' interrupted (1006); reconnecting…",
    "problem: Live updates of 'b' interrupted (1006); reconnecting…",
    "recovered",
  ]);
  stops[1]();
  assert.deepEqual(heard.at(-1), "recovered", "nothing more to report");
  assert.equal(heard.length, 4);
});
