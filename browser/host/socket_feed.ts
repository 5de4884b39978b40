/**
 * The server's WebSocket feed `/models/{id}/subscribe?token=…` as a
 * {@link Feed}: the engine's change-feed client (engine/operations/change_feed.ts,
 * shared with the `http` repository's watches) with its default reconnect
 * delay, growing from 500 ms to 10 s while the server stays away, and each
 * open reported as a change of the whole model. A browser sees a refused
 * handshake only as 1006, like a server that is down, so each drop asks the
 * REST API about the model ({@link feedRefusal}): a model it no longer finds
 * ends the subscription as a deletion, a credential it refuses ends it with a
 * final problem; otherwise the feed keeps reconnecting.
 *
 * @module
 */
import { changeFeed, type ChangeFeedOptions, feedRefusal } from "../../engine/operations/change_feed.ts";
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

/** A feed over the server's WebSocket endpoint. */
export function socketFeed(options: SocketFeedOptions): Feed {
  return {
    subscribe(modelId, listener) {
      let ended = false;
      let unsubscribe = () => {};
      const end = () => {
        ended = true;
        unsubscribe();
      };
      // One client per subscription, so that a drop's problem names the subscription to check.
      unsubscribe = changeFeed({
        ...options,
        onProblem(message, final) {
          options.onProblem?.(message, final);
          if (final) return;
          feedRefusal(options.invoker, modelId).then((refusal) => {
            if (refusal === null || ended) return;
            end();
            if (refusal.kind === "not_found") {
              // The server answers, so the interruption is over: the model went while the feed was down.
              options.onRecovered?.();
              listener({ kind: "deleted", modelId });
            } else options.onProblem?.(`Live updates of '${modelId}' stopped: ${refusal.message}`, true);
          });
        },
      }).subscribe(modelId, listener);
      return end;
    },
  };
}
