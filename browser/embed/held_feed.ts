/**
 * The embed's page-wide feed, which holds back what an open of this page does
 * to a model (a replacement deletes it, creates it again, restores its state)
 * until the open is over: a view showing the model keeps showing it as it was,
 * not "was deleted" nor an empty form meanwhile, then loads it once as it came out.
 *
 * @module
 */
import type { Feed, FeedEvent } from "../host/feed.ts";

/** A {@link Feed} whose events of a model can be held back. */
export interface HoldingFeed extends Feed {
  /**
   * Holds back the events of `modelId` until the returned release: called with the model's version then
   * (`null`: it is gone), it tells the listeners of one change of the whole model, when anything was held.
   */
  hold(modelId: string): (version: string | null) => void;
}

/** `feed`, its events of a model held back on demand. */
export function holdingFeed(feed: Feed): HoldingFeed {
  const listeners = new Map<string, Set<(event: FeedEvent) => void>>();
  /** Holds under way by model id, and whether they held anything back. */
  const holds = new Map<string, { count: number; held: boolean }>();
  return {
    subscribe(modelId, listener) {
      const of = listeners.get(modelId) ?? new Set();
      listeners.set(modelId, of.add(listener));
      const stop = feed.subscribe(modelId, (event) => {
        const hold = holds.get(modelId);
        if (hold) hold.held = true;
        else listener(event);
      });
      return () => {
        stop();
        of.delete(listener);
        if (!of.size) listeners.delete(modelId);
      };
    },
    hold(modelId) {
      const hold = holds.get(modelId) ?? { count: 0, held: false };
      holds.set(modelId, hold);
      hold.count++;
      return (version) => {
        if (--hold.count) return;
        holds.delete(modelId);
        if (!hold.held) return;
        // Its spec may have changed (a view reads it again), or it is gone.
        const event: FeedEvent = version === null
          ? { kind: "deleted", modelId }
          : { kind: "spec-evolved", modelId, version };
        for (const listener of [...listeners.get(modelId) ?? []]) listener(event);
      };
    },
  };
}
