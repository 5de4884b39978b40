// The in-tab feed: the service's events of one model as change-feed events.
import assert from "node:assert/strict";
import type { ServiceEvent } from "../../engine/mod.ts";
import { type FeedEvent, goneMessage, serviceFeed } from "./feed.ts";

/** A service whose events the test plays. */
function playedService() {
  let listener: (event: ServiceEvent) => void = () => {};
  return {
    subscribe: (l: (event: ServiceEvent) => void) => (listener = l, () => {}),
    emit: (event: ServiceEvent) => listener(event),
  };
}

Deno.test("a model that stops loading here is heard as unloaded, not deleted; a deletion as deleted", () => {
  const service = playedService();
  const heard: FeedEvent[] = [];
  serviceFeed(service).subscribe("m", (event) => heard.push(event));
  service.emit({ type: "deleted", modelId: "other", unloaded: true });
  service.emit({ type: "deleted", modelId: "m", unloaded: true });
  service.emit({ type: "deleted", modelId: "m" });
  assert.deepEqual(heard, [
    { kind: "deleted", modelId: "m", unloaded: true },
    { kind: "deleted", modelId: "m" },
  ]);
  assert.deepEqual(heard.map((event) => event.kind === "deleted" && goneMessage(event)), [
    "Model 'm' is stored but not loaded here: this version cannot load its spec.",
    "Model 'm' was deleted.",
  ]);
});

Deno.test("a commit is heard with its written, derived and meta keys, as the server's feed frames them", () => {
  const service = playedService();
  const heard: FeedEvent[] = [];
  serviceFeed(service).subscribe("m", (event) => heard.push(event));
  const result = {
    success: true as const,
    mutatedPaths: ["$.a"],
    derivedUpdated: ["$.b"],
    metaUpdated: ["$.c#maximum"],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces: [],
  };
  service.emit({ type: "mutation", modelId: "m", source: "client", result });
  assert.deepEqual(heard, [{
    kind: "mutation",
    modelId: "m",
    mutatedPaths: ["$.a"],
    derivedUpdated: ["$.b"],
    metaUpdated: ["$.c#maximum"],
    dispatchedEffects: [],
  }]);
});
