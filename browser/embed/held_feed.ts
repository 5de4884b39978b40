/**
 * The embed's page-wide feed, which holds back what an open of this page does
 * to a model (a replacement deletes it, creates it again, restores its state)
 * until the open is over: a view showing the model keeps showing it as it was,
 * not "was deleted" nor an empty form meanwhile, then loads it once as it came out.
 * A deletion this page did not make is held the same way until `settled` says
 * what came of it: another tab's replacement brings the model back. Calls on a
 * model held for such a deletion, or while this page replaces it, wait for its release
 * ({@link afterHolds}), so a write made meanwhile applies to the model as it came out.
 *
 * @module
 */
import { type Invoker, ServiceError } from "../../engine/mod.ts";
import type { Feed, FeedEvent } from "../host/feed.ts";
import type { Settled } from "./settled.ts";

/** A {@link Feed} whose events of a model can be held back. */
export interface HoldingFeed extends Feed {
  /**
   * Holds back the events of `modelId` until the returned release: called with the model's version then
   * (`null`: it is gone; NOT_LOADED: stored, not loadable here), it tells the listeners the writes held
   * meanwhile, then one change of the whole model, when anything was held.
   */
  hold(modelId: string): (version: Settled) => void;
  /** Makes calls on `modelId` wait for the end of this page's hold under way (it replaces the model). */
  stall(modelId: string): void;
  /** Resolves once no hold of `modelId` that calls wait for (a deletion heard, a stalled one) is under way. */
  released(modelId: string): Promise<void>;
  /** What came of a deletion of `modelId`: the version a hold under way ends with, else what `settled` says. */
  outcome(modelId: string): Promise<Settled>;
  /**
   * Tells `listener` when a hold of `modelId` for a deletion this page did not make (another tab's
   * replacement, say) begins (`true`) and ends (`false`); returns the unsubscribe function.
   */
  watch(modelId: string, listener: (held: boolean) => void): () => void;
}

type Listener = (event: FeedEvent) => void;

/**
 * A hold of a model under way: how many, each listener's events held back, whether for a deletion heard,
 * whether calls wait for it, and what it ended with.
 */
interface Hold {
  count: number;
  held: [Listener, FeedEvent][];
  heard: boolean;
  stalls: boolean;
  over: Promise<Settled>;
  end: (version: Settled) => void;
}

/**
 * `feed`, its events of a model held back on demand. `settled`, when given, is asked at each deletion
 * heard while nothing is held: the model's version once whatever deleted it is over (`null`: gone).
 */
export function holdingFeed(feed: Feed, settled?: (modelId: string) => Promise<Settled>): HoldingFeed {
  const listeners = new Map<string, Set<Listener>>();
  const watchers = new Map<string, Set<(held: boolean) => void>>();
  const tell = (modelId: string, held: boolean) => watchers.get(modelId)?.forEach((watcher) => watcher(held));
  /** Holds under way by model id. */
  const holds = new Map<string, Hold>();
  const hold = (modelId: string, heard = false) => {
    let on = holds.get(modelId);
    if (!on) {
      let end: Hold["end"] = () => {};
      const over = new Promise<Settled>((resolve) => end = resolve);
      holds.set(modelId, on = { count: 0, held: [], heard: false, stalls: false, over, end });
    }
    on.count++;
    if (heard) on.stalls = true;
    if (heard && !on.heard) tell(modelId, on.heard = true);
    return (version: Settled) => {
      if (--on.count) return;
      holds.delete(modelId);
      on.end(version);
      if (on.heard) tell(modelId, false);
      if (!on.held.length) return;
      const of = listeners.get(modelId) ?? new Set();
      // Others' writes carry caller effects the page is told of; what else changed the summary says.
      for (const [listener, event] of on.held) {
        if (event.kind === "mutation" && of.has(listener)) listener(event);
      }
      // Its spec may have changed (a view reads it again), or it is gone (or stored, but not loadable here).
      const event: FeedEvent = version === null
        ? { kind: "deleted", modelId }
        : typeof version === "object"
        ? { kind: "deleted", modelId, unloaded: true }
        : { kind: "spec-evolved", modelId, version };
      for (const listener of [...of]) listener(event);
    };
  };
  return {
    subscribe(modelId, listener) {
      const of = listeners.get(modelId) ?? new Set();
      listeners.set(modelId, of.add(listener));
      const stop = feed.subscribe(modelId, (event) => {
        // Stored but not loadable here is no replacement's deletion: it passes, said so.
        if (event.kind === "deleted" && !event.unloaded && settled && !holds.has(modelId)) {
          const release = hold(modelId, true);
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
    hold: (modelId) => hold(modelId),
    stall(modelId) {
      const on = holds.get(modelId);
      if (on) on.stalls = true;
    },
    async released(modelId) {
      // A hold may begin again before a waiter runs (a replacement's deletion heard at its release).
      for (let on; (on = holds.get(modelId))?.stalls;) await on.over;
    },
    async outcome(modelId) {
      const on = holds.get(modelId);
      if (on) return await on.over;
      return settled ? await settled(modelId).catch(() => null) : null;
    },
    watch(modelId, listener) {
      const of = watchers.get(modelId) ?? new Set();
      watchers.set(modelId, of.add(listener));
      if (holds.get(modelId)?.heard) listener(true);
      return () => void (of.delete(listener) && !of.size && watchers.delete(modelId));
    },
  };
}

/**
 * `invoker`, its calls on a model `feed` holds for a replacement made once the hold is over: a write made
 * while another tab replaces the model applies to the model it brings back, rather than failing as not
 * found. A call already in the service when the deletion came, which failed as not found, is made again
 * once the model is back; it fails as not found when the model stays gone.
 */
export function afterHolds(invoker: Invoker, feed: HoldingFeed): Invoker {
  return {
    invoke: (async (operation, input) => {
      const id = (input as { id?: unknown } | undefined)?.id;
      if (typeof id !== "string") return await invoker.invoke(operation, input);
      await feed.released(id);
      try {
        return await invoker.invoke(operation, input);
      } catch (err) {
        // A not found writes nothing: made again, the call applies once, to the model that came back.
        if (!(err instanceof ServiceError && err.kind === "not_found")) throw err;
        if (await feed.outcome(id) === null) throw err;
        return await invoker.invoke(operation, input);
      }
    }) as Invoker["invoke"],
  };
}
