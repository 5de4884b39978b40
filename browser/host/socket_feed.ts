/**
 * The server's WebSocket feed `/models/{id}/subscribe?token=…` as a
 * {@link Feed}: the engine's change-feed client (engine/operations/change_feed.ts,
 * shared with the `http` repository's watches and the remote MCP watches) with
 * its default reconnect delay, growing from 500 ms to 10 s while the server
 * stays away, each open reported as a change of the whole model, and the
 * tab's REST invoker asked after each drop whether the feed is refused for
 * good (a model deleted meanwhile, a credential no longer accepted).
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

/** A feed over the server's WebSocket endpoint. */
export function socketFeed(options: SocketFeedOptions): Feed {
  const feed = changeFeed(options);
  return {
    subscribe: (modelId, listener) =>
      feed.subscribe(modelId, (event) => {
        // The server answers, so an interruption is over: the model went while the feed was down.
        if (event.kind === "deleted") options.onRecovered?.();
        listener(event);
      }),
  };
}
