import assert from "node:assert/strict";
import type { FeedEvent } from "./feed.ts";
import { eventOfFrame, socketFeed, subscribeUrl } from "./socket_feed.ts";

Deno.test("the subscribe URL: ws(s) scheme, the id as one encoded segment, the key as token", () => {
  assert.equal(
    subscribeUrl("http://h:8080/", "shop/cart", "k y"),
    "ws://h:8080/models/shop%2Fcart/subscribe?token=k+y",
  );
  assert.equal(subscribeUrl("https://h/base", "m"), "wss://h/base/models/m/subscribe");
});

Deno.test("frames become feed events; a frame without kind is a mutation; others are ignored", () => {
  assert.deepEqual(eventOfFrame('{"modelId":"m","mutatedPaths":["$.a"],"derivedUpdated":["$.b"]}'), {
    kind: "mutation",
    modelId: "m",
    mutatedPaths: ["$.a"],
    derivedUpdated: ["$.b"],
  });
  assert.deepEqual(eventOfFrame('{"kind":"spec-evolved","modelId":"m","version":"1.1.0"}'), {
    kind: "spec-evolved",
    modelId: "m",
    version: "1.1.0",
  });
  assert.equal(eventOfFrame('{"kind":"other"}'), null);
  assert.equal(eventOfFrame("not json"), null);
});

/** A WebSocket stand-in the test opens, sends frames through and closes. */
class FakeSocket {
  static made: FakeSocket[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: string }) => void) | null = null;
  onclose: ((close: { code: number; reason: string }) => void) | null = null;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    FakeSocket.made.push(this);
  }
  close(): void {}
}

Deno.test("each time its socket opens, a listener hears of a change, so writes before it are not missed", async () => {
  FakeSocket.made = [];
  const events: FeedEvent[] = [];
  const feed = socketFeed({ baseUrl: "http://h", WebSocket: FakeSocket as unknown as typeof WebSocket });
  const stop = feed.subscribe("m", (event) => events.push(event));
  const resync = { kind: "mutation", modelId: "m", mutatedPaths: [], derivedUpdated: [] };
  FakeSocket.made[0].onopen!();
  FakeSocket.made[0].onmessage!({ data: '{"modelId":"m","mutatedPaths":["$.a"],"derivedUpdated":[]}' });
  assert.deepEqual(events, [resync, { ...resync, mutatedPaths: ["$.a"] }]);
  // Dropped and reopened: the writes made meanwhile are heard of the same way.
  FakeSocket.made[0].onclose!({ code: 1006, reason: "" });
  await new Promise((resolve) => setTimeout(resolve, 600));
  FakeSocket.made[1].onopen!();
  assert.deepEqual(events.at(-1), resync);
  stop();
});
