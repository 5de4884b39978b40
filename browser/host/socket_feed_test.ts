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
    dispatchedEffects: [],
  });
  const caller = { effectId: "toast", emit: "saved", payload: { n: 1 } };
  const framed = eventOfFrame(
    JSON.stringify({ kind: "mutation", modelId: "m", dispatchedEffects: [caller, 7] }),
  );
  assert.deepEqual(
    framed?.kind === "mutation" && framed.dispatchedEffects,
    [caller],
    "caller effects, malformed dropped",
  );
  assert.deepEqual(eventOfFrame('{"kind":"spec-evolved","modelId":"m","version":"1.1.0"}'), {
    kind: "spec-evolved",
    modelId: "m",
    version: "1.1.0",
  });
  assert.equal(eventOfFrame('{"kind":"other"}'), null);
  assert.equal(eventOfFrame("not json"), null);
});

Deno.test("each open of the socket reports a change of the whole model (commits before it are not missed)", () => {
  const sockets: { onopen?: () => void; onmessage?: (m: { data: string }) => void; close(): void }[] = [];
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
  const stop = socketFeed({ baseUrl: "http://h", WebSocket: FakeSocket as unknown as typeof WebSocket })
    .subscribe("m", (event) => events.push(event));
  assert.deepEqual(events, [], "nothing before the socket is open");
  sockets[0].onopen!();
  sockets[0].onmessage!({ data: '{"modelId":"m","mutatedPaths":["$.a"],"derivedUpdated":[]}' });
  assert.deepEqual(events, [
    { kind: "mutation", modelId: "m", mutatedPaths: ["$"], derivedUpdated: [], dispatchedEffects: [] },
    { kind: "mutation", modelId: "m", mutatedPaths: ["$.a"], derivedUpdated: [], dispatchedEffects: [] },
  ]);
  stop();
});
