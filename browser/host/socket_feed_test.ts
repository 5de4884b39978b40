// The feed's URL, frame parsing and reconnects are tested with the shared client
// (engine/operations/change_feed_test.ts); here, that the browser's Feed is that client.
import assert from "node:assert/strict";
import type { ChangeFeedSocketConstructor } from "../../engine/operations/change_feed.ts";
import type { FeedEvent } from "./feed.ts";
import { socketFeed } from "./socket_feed.ts";

Deno.test("each open of the socket reports a change of the whole model (commits before it are not missed)", () => {
  const sockets: { url: string; onopen?: () => void; onmessage?: (m: { data: string }) => void }[] = [];
  class FakeSocket {
    onopen?: () => void;
    onmessage?: (m: { data: string }) => void;
    onclose?: () => void;
    constructor(readonly url: string) {
      sockets.push(this);
    }
    close() {}
  }
  const events: FeedEvent[] = [];
  const stop = socketFeed({
    baseUrl: "http://h:8080/",
    apiKey: "k",
    WebSocket: FakeSocket as unknown as ChangeFeedSocketConstructor,
  }).subscribe("shop/cart", (event) => events.push(event));
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
