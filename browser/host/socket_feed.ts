/**
 * The server's WebSocket feed `/models/{id}/subscribe?token=…` as a
 * {@link Feed}: the engine's change-feed client (engine/operations/change_feed.ts,
 * shared with the `http` repository's watches and the remote MCP watches) with
 * its default reconnect delay, growing from 500 ms to 10 s while the server
 * stays away, each open reported as a change of the whole model, and the
 * tab's REST invoker asked after each drop whether the feed is refused for
 * good (a model deleted meanwhile, a credential no longer accepted).
 *
 * Each subscription has at most one problem (its latest): `onProblem` tells the
 * latest problem of any subscription, `onRecovered` that none is left (each
 * recovered, found deleted, or unsubscribed), so a status line shows one
 * current problem and clears only once every feed is well.
 *
 * @module
 */
import { changeFeed, type ChangeFeedOptions } from "../../engine/operations/change_feed.ts";
import type { Invoker } from "../../engine/operations/invoker.ts";
import type { Feed } from "./feed.ts";

/**
 * Options of {@link socketFeed}: the server, its key, `onProblem` for dropped
 * sockets, the WebSocket port, and the REST invoker asked after each drop.
 */
export interface SocketFeedOptions extends ChangeFeedOptions {
  /** The same server's REST API (the tab's remote invoker). */
  invoker: Invoker;
}

interface Problem {
  message: string;
  final: boolean;
}

/** A feed over the server's WebSocket endpoint. */
export function socketFeed(options: SocketFeedOptions): Feed {
  /** The current problem of each subscription, the latest noted last. */
  const problems = new Map<object, Problem>();
  const note = (subscription: object, problem: Problem) => {
    problems.delete(subscription);
    problems.set(subscription, problem);
    options.onProblem?.(problem.message, problem.final);
  };
  const clear = (subscription: object) => {
    if (!problems.delete(subscription)) return;
    const latest = [...problems.values()].at(-1);
    if (latest) options.onProblem?.(latest.message, latest.final);
    else options.onRecovered?.();
  };
  return {
    subscribe: (modelId, listener) => {
      const subscription = {};
      const unsubscribe = changeFeed({
        ...options,
        onProblem: (message, final) => note(subscription, { message, final }),
        onRecovered: () => clear(subscription),
      }).subscribe(modelId, (event) => {
        // The server answers, so an interruption is over: the model went while the feed was down.
        if (event.kind === "deleted") clear(subscription);
        listener(event);
      });
      return () => {
        unsubscribe();
        clear(subscription);
      };
    },
  };
}
