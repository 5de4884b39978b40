import assert from "node:assert/strict";
import type { Feed, FeedEvent } from "../host/feed.ts";
import { holdingFeed } from "./held_feed.ts";

/** A feed whose events a test sends. */
function manualFeed(): Feed & { send(event: FeedEvent): void } {
  const listeners = new Set<(event: FeedEvent) => void>();
  return {
    subscribe(modelId, listener) {
      const of = (event: FeedEvent) => event.modelId === modelId && listener(event);
      listeners.add(of);
      return () => listeners.delete(of);
    },
    send: (event) => listeners.forEach((listener) => listener(event)),
  };
}

const whole = (modelId: string): FeedEvent => ({
  kind: "mutation",
  modelId,
  mutatedPaths: ["$"],
  derivedUpdated: [],
  dispatchedEffects: [],
});

Deno.test("a held model's events wait for the release, which tells of one change; others pass", () => {
  const inner = manualFeed();
  const feed = holdingFeed(inner);
  const [heard, other] = [[] as FeedEvent[], [] as FeedEvent[]];
  feed.subscribe("a", (event) => heard.push(event));
  feed.subscribe("b", (event) => other.push(event));

  const release = feed.hold("a");
  inner.send({ kind: "deleted", modelId: "a" });
  inner.send(whole("a"));
  inner.send(whole("b"));
  assert.deepEqual(heard, []);
  assert.deepEqual(other, [whole("b")]);
  release("2.0.0");
  assert.deepEqual(heard, [{ kind: "spec-evolved", modelId: "a", version: "2.0.0" }]);

  // Gone at the release: told so. Nothing held: nothing told. Released: events pass again.
  const gone = feed.hold("a");
  inner.send({ kind: "deleted", modelId: "a" });
  gone(null);
  feed.hold("a")("1.0.0");
  inner.send(whole("a"));
  assert.deepEqual(heard.slice(1), [{ kind: "deleted", modelId: "a" }, whole("a")]);
});

Deno.test("holds of one model nest: its events wait for the last release", () => {
  const inner = manualFeed();
  const feed = holdingFeed(inner);
  const heard: FeedEvent[] = [];
  const stop = feed.subscribe("a", (event) => heard.push(event));
  const [first, second] = [feed.hold("a"), feed.hold("a")];
  inner.send(whole("a"));
  first("1.0.0");
  assert.deepEqual(heard, []);
  second("1.0.0");
  assert.deepEqual(heard, [{ kind: "spec-evolved", modelId: "a", version: "1.0.0" }]);
  // Unsubscribed, a listener hears no release.
  stop();
  const third = feed.hold("a");
  inner.send(whole("a"));
  third("1.0.0");
  assert.equal(heard.length, 1);
});
