/**
 * The server's WebSocket feed `/models/{id}/subscribe?token=…` as a
 * {@link Feed}: the engine's change-feed client (engine/operations/change_feed.ts,
 * shared with the `http` repository's watches) with its default reconnect
 * delay, growing from 500 ms to 10 s while the server stays away, and each
 * open reported as a change of the whole model.
 *
 * @module
 */
import { changeFeed, type ChangeFeedOptions } from "../../engine/operations/change_feed.ts";
import type { Feed } from "./feed.ts";

/** Options of {@link socketFeed}: the server, its key, `onProblem` for dropped sockets, the WebSocket port. */
export type SocketFeedOptions = ChangeFeedOptions;

/** A feed over the server's WebSocket endpoint. */
export function socketFeed(options: SocketFeedOptions): Feed {
  return changeFeed(options);
}
