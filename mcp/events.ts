/**
 * Commit events for `resources/subscribe` on `svc://state/<modelId>`: from the
 * in-process service's event hook, or (remote mode) from the server's
 * WebSocket change feed, so commits made by anyone notify the subscriber.
 *
 * @module
 */
import type { ServiceEvent } from "../engine/service/service.ts";
import { subscribeUrl } from "../engine/operations/change_feed.ts";

/** Where the MCP server learns that a model's state changed. */
export interface CommitEvents {
  /**
   * Calls `onCommit` after every commit on `modelId` (a mutation, a spec
   * evolution, a deletion) made once the returned promise has resolved; it
   * resolves with the function that stops watching. `onEnd` hears of a watch
   * that ended on its own (its feed closed, its pairing session ended): it
   * notifies no more.
   */
  watch(modelId: string, onCommit: () => void, onEnd?: () => void): Promise<() => void>;
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
 * Commit events from a server's WebSocket feed (`/models/{id}/subscribe`), one
 * socket per watched model, ready once the handshake is done; the credential
 * (the API key, or a function giving a pairing session's token) travels as the
 * `token` query parameter.
 */
export function websocketCommitEvents(baseUrl: string, apiKey?: string | (() => string)): CommitEvents {
  return {
    watch(modelId, onCommit, onEnd) {
      const token = typeof apiKey === "function" ? apiKey() : apiKey;
      const socket = new WebSocket(subscribeUrl(baseUrl, modelId, token));
      const opened = Promise.withResolvers<() => void>();
      let stopped = false;
      socket.onopen = () =>
        opened.resolve(() => {
          stopped = true;
          socket.close();
        });
      socket.onmessage = () => onCommit();
      // The server ends the feed of a deleted model with a normal closure and no frame.
      socket.onclose = (event) => {
        if (stopped) return;
        if (event.code === 1000) onCommit();
        onEnd?.();
      };
      // Before the handshake, a failure fails the subscription; after it, only notifications stop.
      socket.onerror = () => opened.reject(new Error(`cannot open the change feed of model '${modelId}'`));
      return opened.promise;
    },
  };
}
