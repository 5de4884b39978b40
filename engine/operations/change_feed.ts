/**
 * The client of a server's WebSocket change feed
 * `/models/{id}/subscribe?token=…` (SPEC.md "WebSocket frames"): one socket
 * per subscribed model, reopened after a drop (a server restart, a network
 * change) until unsubscribed, its frames parsed into {@link ChangeFeedEvent}s.
 * Each time a socket opens the listener hears of a change of the whole model
 * (`$`): what committed before the socket was live (before the first open, or
 * while it was down) sent no frame to it.
 *
 * The browser's live views (browser/host/socket_feed.ts) and the `http`
 * repository's watches (repositories/http.ts) both follow a server through
 * this one client. As the remote client (remote.ts) takes `fetch`, it takes
 * the WebSocket constructor as a port (default `globalThis.WebSocket`) and its
 * timers as a {@link Scheduler}, and declares the few socket members it uses
 * instead of depending on the DOM's or Deno's WebSocket types.
 *
 * @module
 */
import { ServiceError } from "../errors.ts";
import { GLOBAL_SCHEDULER, type Scheduler } from "../ports.ts";
import type { DispatchedEffect } from "../runtime/results.ts";
import type { Invoker } from "./invoker.ts";
import { getInfo } from "./models.ts";

/** A change of one model, as a frame of the feed reports it. */
export type ChangeFeedEvent =
  | {
    kind: "mutation";
    modelId: string;
    mutatedPaths: string[];
    derivedUpdated: string[];
    /** The meta keys the commit changed (`$.note#required`), as the in-process subscription's result names them. */
    metaUpdated: string[];
    /** The `caller` effects the commit fired. */
    dispatchedEffects: DispatchedEffect[];
  }
  | { kind: "spec-evolved"; modelId: string; version: string }
  /**
   * The model was deleted: the server ended its feed with a normal closure (1000); no reconnect follows.
   * `unloaded` (an in-tab service's feed only; a server closes such a feed with 4409, which is reconnected):
   * it is stored still, but another process sharing the store gave it a spec this one does not load.
   */
  | { kind: "deleted"; modelId: string; unloaded?: true };

/**
 * A handler the feed assigns to a socket. Declared through a method, whose
 * parameters TypeScript compares both ways, so that a platform WebSocket (its
 * handlers take the richer `MessageEvent`, `CloseEvent`) fits
 * {@link ChangeFeedSocket} as it is.
 */
type SocketHandler<E> = { handle(event: E): void }["handle"];

/** The members of a WebSocket the feed uses. */
export interface ChangeFeedSocket {
  onopen: SocketHandler<unknown> | null;
  onmessage: SocketHandler<{ data: unknown }> | null;
  onclose: SocketHandler<{ code: number; reason: string }> | null;
  onerror: SocketHandler<unknown> | null;
  close(code?: number, reason?: string): void;
}

/** A WebSocket constructor: `WebSocket` in browsers and Deno, or a fake in tests. */
export type ChangeFeedSocketConstructor = new (url: string) => ChangeFeedSocket;

/** Options of {@link changeFeed}. */
export interface ChangeFeedOptions {
  /** The server's base URL (`http://host:8080`, or with a path prefix). */
  baseUrl: string;
  /** The server's API key, sent as the `token` query parameter (a WebSocket handshake has no headers). */
  apiKey?: string;
  /**
   * The delay before the first reconnect after a drop, and again after each
   * successful open (ms, default 500).
   */
  initialDelayMs?: number;
  /**
   * The longest delay between reconnects (ms, default 10 000): each drop in a
   * row doubles the delay up to this. Equal to `initialDelayMs`, the delay is fixed.
   */
  maxDelayMs?: number;
  /**
   * Called with a readable message when a socket closes unexpectedly (a
   * reconnect is scheduled; then again with the server's reason when the model
   * is stored but not loaded there), or for good because its credential ended
   * ({@link CREDENTIAL_ENDED_CLOSE}; `final` then).
   */
  onProblem?(message: string, final: boolean): void;
  /** Called when a socket opens again after such a close (the feed is live again). */
  onRecovered?(): void;
  /**
   * The same server's REST API, asked after each drop whether the feed is refused for good
   * ({@link feedRefusal}): a model no longer found ends the subscription with a `deleted` event, a refused
   * credential with a final problem, a model stored but not loaded with a problem that is not (reconnects go
   * on: a repair brings it back). Without it the feed reconnects until unsubscribed.
   */
  invoker?: Invoker;
  /** The WebSocket constructor (default `globalThis.WebSocket`). */
  WebSocket?: ChangeFeedSocketConstructor;
  /** The reconnect timers (default the global ones). */
  scheduler?: Scheduler;
}

/** A feed of the changes of models, one socket per subscription. */
export interface ChangeFeed {
  /** Follows one model's changes until the returned function is called. */
  subscribe(modelId: string, listener: (event: ChangeFeedEvent) => void): () => void;
}

/**
 * The close code of a feed whose credential ended (a pairing session ended by
 * either party or the operator): final, as the credential is refused from now on.
 */
export const CREDENTIAL_ENDED_CLOSE = 4401;

/** The default first reconnect delay: a restarting server is usually back within a second. */
export const DEFAULT_RECONNECT_DELAY_MS = 500;
/** The default longest reconnect delay: a server down for long is asked at most this often. */
export const DEFAULT_MAX_RECONNECT_DELAY_MS = 10_000;

/** The subscribe URL of a model: ws(s) scheme, the id as one encoded segment, the key as `token`. */
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

/** The members of an array as strings; anything else as none. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * A frame as a change event: a frame without `kind` is a mutation (SPEC.md
 * "WebSocket frames" assumes so); `null` for text that is not a JSON object
 * (a handler must not throw on it) and for kinds this client does not know.
 */
export function eventOfFrame(data: unknown): ChangeFeedEvent | null {
  let frame: unknown;
  try {
    frame = JSON.parse(String(data));
  } catch {
    return null;
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return null;
  const fields = frame as Record<string, unknown>;
  const modelId = String(fields.modelId ?? "");
  if (fields.kind === "spec-evolved") {
    return { kind: "spec-evolved", modelId, version: String(fields.version ?? "") };
  }
  if (fields.kind === undefined || fields.kind === "mutation") {
    return {
      kind: "mutation",
      modelId,
      mutatedPaths: strings(fields.mutatedPaths),
      derivedUpdated: strings(fields.derivedUpdated),
      metaUpdated: strings(fields.metaUpdated),
      dispatchedEffects: Array.isArray(fields.dispatchedEffects)
        ? fields.dispatchedEffects.filter(isDispatchedEffect)
        : [],
    };
  }
  return null;
}

/** The event of a model that may have changed anywhere (a feed opened or reopened, a restore): read it again. */
export function wholeModelChanged(modelId: string): ChangeFeedEvent {
  return {
    kind: "mutation",
    modelId,
    mutatedPaths: ["$"],
    derivedUpdated: [],
    metaUpdated: [],
    dispatchedEffects: [],
  };
}

/**
 * Why the server would refuse the feed of `modelId`, asked of its REST API
 * after a drop, since a refused handshake reaches a WebSocket client only as
 * 1006, like a server that is down: for good when the model is no longer found
 * (`not_found`: deleted meanwhile) or the credential is refused
 * (`unauthorized`, `forbidden`), until it is repaired when the model is stored
 * but not loaded there (`conflict`). `null` while the feed may still open (the
 * model is there, or the server does not answer).
 */
export async function feedRefusal(invoker: Invoker, modelId: string): Promise<ServiceError | null> {
  try {
    await invoker.invoke(getInfo, { id: modelId });
    return null;
  } catch (err) {
    const final = err instanceof ServiceError &&
      ["not_found", "unauthorized", "forbidden", "conflict"].includes(err.kind);
    return final ? err : null;
  }
}

/** A feed over a server's WebSocket endpoint. */
export function changeFeed(options: ChangeFeedOptions): ChangeFeed {
  const Socket = options.WebSocket ??
    (globalThis as unknown as { WebSocket: ChangeFeedSocketConstructor }).WebSocket;
  const scheduler = options.scheduler ?? GLOBAL_SCHEDULER;
  const initialDelayMs = options.initialDelayMs ?? DEFAULT_RECONNECT_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
  return {
    subscribe(modelId, listener) {
      const url = subscribeUrl(options.baseUrl, modelId, options.apiKey);
      let socket: ChangeFeedSocket | null = null;
      let stopped = false;
      let delay = initialDelayMs;
      let timer: unknown;
      let dropped = false;
      const connect = () => {
        if (stopped) return;
        socket = new Socket(url);
        socket.onopen = () => {
          delay = initialDelayMs;
          if (dropped) options.onRecovered?.();
          dropped = false;
          listener(wholeModelChanged(modelId));
        };
        socket.onmessage = (message) => {
          const event = eventOfFrame(message.data);
          if (event) listener(event);
        };
        socket.onclose = (close) => {
          if (stopped) return;
          // The server closes a feed normally only when its model is deleted (shutdown is 1001, a slow
          // subscriber 1013), and with 4401 when its credential ended: reconnecting would be refused.
          if (close.code === 1000) {
            stopped = true;
            listener({ kind: "deleted", modelId });
            return;
          }
          if (close.code === CREDENTIAL_ENDED_CLOSE) {
            stopped = true;
            options.onProblem?.(
              `Live updates of '${modelId}' stopped: ${close.reason || "the credential ended"}`,
              true,
            );
            return;
          }
          const reason = close.reason ? ` ${close.reason}` : "";
          dropped = true;
          // Scheduled first, so that a problem handler that unsubscribes also cancels the reconnect.
          timer = scheduler.setTimeout(connect, delay);
          delay = Math.min(delay * 2, maxDelayMs);
          options.onProblem?.(
            `Live updates of '${modelId}' interrupted (${close.code}${reason}); reconnecting…`,
            false,
          );
          if (options.invoker) void endIfRefused(options.invoker);
        };
        // A failed or broken socket also closes: the close reports it and reconnects.
        socket.onerror = () => {};
      };
      // A refused handshake reaches a WebSocket client only as 1006, like a server that is down.
      const endIfRefused = async (invoker: Invoker) => {
        const refusal = await feedRefusal(invoker, modelId);
        if (refusal === null || stopped) return;
        // Stored but not loaded there: a repair (an evolution) brings it back, so the feed keeps reconnecting.
        if (refusal.kind === "conflict") {
          return options.onProblem?.(
            `Live updates of '${modelId}' wait for it to load: ${refusal.message}`,
            false,
          );
        }
        stopped = true;
        scheduler.clearTimeout(timer);
        if (refusal.kind === "not_found") listener({ kind: "deleted", modelId });
        else options.onProblem?.(`Live updates of '${modelId}' stopped: ${refusal.message}`, true);
      };
      connect();
      return () => {
        stopped = true;
        scheduler.clearTimeout(timer);
        socket?.close(1000);
      };
    },
  };
}
