/**
 * The embed's page-wide feed, which holds back what an open of this page does
 * to a model (a replacement deletes it, creates it again, restores its state)
 * until the open is over: a view showing the model keeps showing it as it was,
 * not "was deleted" nor an empty form meanwhile, then loads it once as it came out.
 * A deletion this page did not make is held the same way until `settled` says
 * what came of it: another tab's replacement brings the model back.
 *
 * @module
 */
import type { Feed, FeedEvent } from "../host/feed.ts";

/** A {@link Feed} whose events of a model can be held back. */
export interface HoldingFeed extends Feed {
  /**
   * Holds back the events of `modelId` until the returned release: called with the model's version then
   * (`null`: it is gone), it tells the listeners the writes held meanwhile, then one change of the whole
   * model, when anything was held.
   */
  hold(modelId: string): (version: string | null) => void;
}

type Listener = (event: FeedEvent) => void;

/**
 * `feed`, its events of a model held back on demand. `settled`, when given, is asked at each deletion
 * heard while nothing is held: the model's version once whatever deleted it is over (`null`: gone).
 */
export function holdingFeed(feed: Feed, settled?: (modelId: string) => Promise<string | null>): HoldingFeed {
  const listeners = new Map<string, Set<Listener>>();
  /** Holds under way by model id: how many, and each listener's events held back. */
  const holds = new Map<string, { count: number; held: [Listener, FeedEvent][] }>();
  const hold = (modelId: string) => {
    const on = holds.get(modelId) ?? { count: 0, held: [] };
    holds.set(modelId, on);
    on.count++;
    return (version: string | null) => {
      if (--on.count) return;
      holds.delete(modelId);
      if (!on.held.length) return;
      const of = listeners.get(modelId) ?? new Set();
      // Others' writes carry caller effects the page is told of; what else changed the summary says.
      for (const [listener, event] of on.held) {
        if (event.kind === "mutation" && of.has(listener)) listener(event);
      }
      // Its spec may have changed (a view reads it again), or it is gone.
      const event: FeedEvent = version === null
        ? { kind: "deleted", modelId }
        : { kind: "spec-evolved", modelId, version };
      for (const listener of [...of]) listener(event);
    };
  };
  return {
    subscribe(modelId, listener) {
      const of = listeners.get(modelId) ?? new Set();
      listeners.set(modelId, of.add(listener));
      const stop = feed.subscribe(modelId, (event) => {
        if (event.kind === "deleted" && settled && !holds.has(modelId)) {
          const release = hold(modelId);
          settled(modelId).then(release, () => release(null));
        }
        const on = holds.get(modelId);
        if (on) on.held.push([listener, event]);
        else listener(event);
      });
      return () => {
        stop();
        of.delete(listener);
        if (!of.size) listeners.delete(modelId);
      };
    },
    hold,
  };
}
