/**
 * Live change feeds: what a view hears about writes it did not make. In the
 * tab the service's own events; against a server its WebSocket frames
 * (SPEC.md "WebSocket frames"). Both arrive as {@link FeedEvent}s.
 *
 * @module
 */
import type { ServiceEvent } from "../../engine/mod.ts";
import { type ChangeFeedEvent, wholeModelChanged } from "../../engine/operations/change_feed.ts";

/** A change of one model: a mutation, a spec evolution, the model's deletion. */
export type FeedEvent = ChangeFeedEvent;

/** What a view says of a model its feed reports gone: deleted, or stored but not loaded here. */
export function goneMessage(event: Extract<FeedEvent, { kind: "deleted" }>): string {
  return event.unloaded
    ? `Model '${event.modelId}' is stored but not loaded here: this version cannot load its spec.`
    : `Model '${event.modelId}' was deleted.`;
}

/** Subscribes to the changes of one model; returns the unsubscribe function. */
export interface Feed {
  subscribe(modelId: string, listener: (event: FeedEvent) => void): () => void;
}

/** The feed of an in-tab service (anything with `subscribe(listener)`). */
export function serviceFeed(
  service: { subscribe(listener: (event: ServiceEvent) => void): () => void },
): Feed {
  return {
    subscribe: (modelId, listener) =>
      service.subscribe((event) => {
        if (event.modelId !== modelId) return;
        if (event.type === "mutation") {
          const { mutatedPaths, derivedUpdated, metaUpdated, dispatchedEffects } = event.result;
          listener({
            kind: "mutation",
            modelId,
            mutatedPaths,
            derivedUpdated,
            metaUpdated,
            dispatchedEffects,
          });
        } else if (event.type === "spec-evolved") {
          listener({ kind: "spec-evolved", modelId, version: event.version });
        } else if (event.type === "restored" || event.type === "created") {
          // Everything may have changed, as after a reconnect (created: the id is back, perhaps with another spec).
          listener(wholeModelChanged(modelId));
        } else if (event.type === "deleted") {
          // Stored still, but not loadable here: a view says so rather than "was deleted".
          listener({ kind: "deleted", modelId, ...event.unloaded && { unloaded: true } });
        }
      }),
  };
}
