/// <reference lib="dom" />
/**
 * The server's WebSocket feed `/models/{id}/subscribe?token=…` as a
 * {@link Feed}: one socket per subscribed model, reopened with a growing delay
 * when it drops (a server restart, a network change) until unsubscribed. Each
 * time a socket opens the listener hears of a change of the whole model, so a
 * commit made before the feed was live is not missed.
 *
 * @module
 */
import type { DispatchedEffect } from "../../engine/mod.ts";
import type { Feed, FeedEvent } from "./feed.ts";

/** Options of {@link socketFeed}. */
export interface SocketFeedOptions {
  /** The server's base URL (`http://host:8080`). */
  baseUrl: string;
  apiKey?: string;
  /** Called with a readable message when a socket closes unexpectedly. */
  onProblem?(message: string): void;
  /** The WebSocket constructor (default `globalThis.WebSocket`). */
  WebSocket?: typeof WebSocket;
}

/** The subscribe URL of a model. */
export function subscribeUrl(baseUrl: string, modelId: string, apiKey?: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, "")}/models/${encodeURIComponent(modelId)}/subscribe`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (apiKey) url.searchParams.set("token", apiKey);
  return url.href;
}

/** A caller effect as a frame lists it: `{effectId, emit, payload}`. */
function isDispatchedEffect(value: unknown): value is DispatchedEffect {
  return typeof value === "object" && value !== null &&
    typeof (value as DispatchedEffect).effectId === "string";
}

/** A frame as a feed event; `null` for anything else. */
export function eventOfFrame(data: unknown): FeedEvent | null {
  let frame: Record<string, unknown>;
  try {
    frame = JSON.parse(String(data));
  } catch {
    return null;
  }
  const modelId = String(frame.modelId ?? "");
  if (frame.kind === "spec-evolved") return { kind: "spec-evolved", modelId, version: String(frame.version) };
  if (frame.kind === undefined || frame.kind === "mutation") {
    const list = (v: unknown) => Array.isArray(v) ? v.map(String) : [];
    return {
      kind: "mutation",
      modelId,
      mutatedPaths: list(frame.mutatedPaths),
      derivedUpdated: list(frame.derivedUpdated),
      dispatchedEffects: Array.isArray(frame.dispatchedEffects)
        ? frame.dispatchedEffects.filter(isDispatchedEffect)
        : [],
    };
  }
  return null;
}

/** A feed over the server's WebSocket endpoint. */
export function socketFeed(options: SocketFeedOptions): Feed {
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  return {
    subscribe(modelId, listener) {
      let socket: WebSocket | null = null;
      let stopped = false;
      let delay = 500;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const connect = () => {
        socket = new Socket(subscribeUrl(options.baseUrl, modelId, options.apiKey));
        socket.onopen = () => {
          delay = 500;
          // What committed before the socket was open (since the view was read, or while it was
          // down) sent no frame here: read the model again.
          listener({
            kind: "mutation",
            modelId,
            mutatedPaths: ["$"],
            derivedUpdated: [],
            dispatchedEffects: [],
          });
        };
        socket.onmessage = (message) => {
          const event = eventOfFrame(message.data);
          if (event) listener(event);
        };
        socket.onclose = (close) => {
          if (stopped) return;
          options.onProblem?.(
            `Live updates of '${modelId}' interrupted (${close.code}${
              close.reason ? ` ${close.reason}` : ""
            }); reconnecting…`,
          );
          timer = setTimeout(connect, delay);
          delay = Math.min(delay * 2, 10_000);
        };
      };
      connect();
      return () => {
        stopped = true;
        clearTimeout(timer);
        socket?.close(1000);
      };
    },
  };
}
