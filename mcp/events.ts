/**
 * Commit events for `resources/subscribe` on `svc://state/<modelId>`: from the
 * in-process service's event hook, or (remote mode) from the server's
 * WebSocket change feed, so commits made by anyone notify the subscriber.
 *
 * @module
 */
import { changeFeed } from "../engine/operations/change_feed.ts";
import type { Invoker } from "../engine/operations/invoker.ts";
import { shortMessage } from "../engine/quoted.ts";
import type { ServiceEvent } from "../engine/service/service.ts";

/** A line about a watch for the session's log (`notifications/message`). */
export type WatchLog = (level: "info" | "warning", message: string) => void;

/** Where the MCP server learns that a model's state changed. */
export interface CommitEvents {
  /**
   * Calls `onCommit` after every commit on `modelId` (a mutation, a spec
   * evolution, a deletion) made once the returned promise has resolved; it
   * resolves with the function that stops watching. `onEnd` hears of a watch
   * that ended on its own (its feed closed, its pairing session ended): it
   * notifies no more. `log` hears of a watch's trouble: its feed interrupted,
   * live again, or refused for good.
   */
  watch(modelId: string, onCommit: () => void, onEnd?: () => void, log?: WatchLog): Promise<() => void>;
}

/** The part of {@link ModelService} the adapter needs. */
export interface ServiceEventSource {
  subscribe(listener: (event: ServiceEvent) => void): () => void;
}

const STATE_CHANGING = new Set<ServiceEvent["type"]>(["mutation", "spec-evolved", "restored", "deleted"]);

/** Commit events of an in-process service (embedded mode and the server's own `/mcp`). */
export function serviceCommitEvents(service: ServiceEventSource): CommitEvents {
  return {
    watch: (modelId, onCommit) =>
      Promise.resolve(service.subscribe((event) => {
        if (event.modelId === modelId && STATE_CHANGING.has(event.type)) onCommit();
      })),
  };
}

/**
 * Commit events from a server's WebSocket feed (`/models/{id}/subscribe`),
 * through the change-feed client (engine/operations/change_feed.ts) with one
 * feed per watched model; the credential (the API key, or a function giving a
 * pairing session's token) travels as the `token` query parameter. A watch is
 * ready once its first handshake is done, and fails if that handshake fails.
 * After a drop (a server restart, a network blip) the feed reconnects with the
 * client's backoff (0.5 s doubling to 10 s), and its reopening is heard as one
 * commit: commits made while it was down sent it no frame. After each drop the
 * client asks the REST API (`invoker`) whether the feed is refused for good: a
 * model deleted (then or meanwhile) or a credential refused ends the watch, as
 * a credential ended (4401) does, with a warning instead of reconnecting for ever;
 * a model stored but not loaded there is reconnected, with a warning saying so.
 */
export function websocketCommitEvents(
  invoker: Invoker,
  baseUrl: string,
  apiKey?: string | (() => string),
): CommitEvents {
  return {
    watch(modelId, onCommit, onEnd, log) {
      const ready = Promise.withResolvers<() => void>();
      let opened = false;
      let ended = false;
      /** The problems said during the current outage (an interruption as one, whatever its close code). */
      const said = new Set<string>();
      const interrupted = `Live updates of '${modelId}' interrupted (`;
      let unsubscribe = () => {};
      const stop = () => {
        ended = true;
        unsubscribe();
      };
      const end = (warning?: string) => {
        if (ended) return;
        stop();
        if (warning) log?.("warning", warning);
        onEnd?.();
      };
      const feed = changeFeed({
        baseUrl,
        invoker,
        apiKey: typeof apiKey === "function" ? apiKey() : apiKey,
        onProblem(problem, final) {
          // The REST API's refusal is quoted in it: a hostile or broken upstream's message is cut to fit a log.
          const message = shortMessage(problem);
          if (!opened) {
            stop();
            ready.reject(new Error(`cannot open the change feed of model '${modelId}'`));
          } else if (final) end(message);
          // Each said once per outage, not at every failed reconnect (the interruption, whatever its close
          // codes: a restart's 1001, then 1006 while the server is down; then why it lasts: a model stored but
          // not loaded there).
          else {
            const what = message.startsWith(interrupted) ? interrupted : message;
            if (said.has(what)) return;
            said.add(what);
            log?.("warning", message);
          }
        },
        onRecovered() {
          said.clear();
          log?.("info", `Live updates of '${modelId}' resumed`);
        },
      });
      unsubscribe = feed.subscribe(modelId, (event) => {
        // No frame comes before the first socket opens, so the first event is that opening.
        if (!opened) {
          opened = true;
          ready.resolve(stop);
          return;
        }
        onCommit();
        // Heard as a commit; said, as the subscriber's updates stop (a new model of that id is not followed).
        if (event.kind === "deleted") end(`Live updates of '${modelId}' stopped: the model was deleted`);
      });
      return ready.promise;
    },
  };
}
