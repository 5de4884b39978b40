/**
 * The WebSocket change feed: one service listener fans committed mutations and
 * spec evolutions out to the sockets subscribed to each model.
 *
 * Sending never waits: each socket may lag by at most `maxBufferedBytes` of
 * unsent frames; a subscriber that falls further behind is closed (code 1013)
 * instead of slowing mutations or growing memory without bound. A pairing
 * session's sockets close (4401) when the session ends; a model's close when it
 * is deleted (1000) or stops loading here (4409). The feed is one-way:
 * a client's message, whatever it holds, closes its socket (1003) rather than
 * being read and dropped for as long as the client cares to send.
 *
 * @module
 */
import type { ModelService, ServiceEvent } from "../engine/service/service.ts";
import { canonicalizePath, pathsOverlap, type Segment } from "../engine/json/path.ts";
import { CREDENTIAL_ENDED_CLOSE } from "../engine/operations/change_feed.ts";
import { utf8Length } from "./utf8_length.ts";

/** A mutation frame (SPEC.md "WebSocket frames"). */
export interface MutationFrame {
  kind: "mutation";
  modelId: string;
  mutatedPaths: string[];
  derivedUpdated: string[];
  /** The meta keys (`$.note#required`) the commit updated: beyond SPEC's members, so a filter's subscriber sees why a frame passed. */
  metaUpdated: string[];
  flaggedConstraints: unknown[];
  dispatchedEffects: unknown[];
}

/** A spec-evolved frame. */
export interface SpecEvolvedFrame {
  kind: "spec-evolved";
  modelId: string;
  version: string;
}

/** Close code for a subscriber dropped for lagging ("Try Again Later"). */
export const SLOW_SUBSCRIBER_CLOSE = 1013;

/** Close code for a client that sent a message ("Unsupported Data"): the feed takes none. */
export const CLIENT_MESSAGE_CLOSE = 1003;

/** The close reason with {@link CLIENT_MESSAGE_CLOSE}. */
export const CLIENT_MESSAGE_REASON = "the change feed takes no messages";

/**
 * Close code for the feeds of a model that stopped loading here (another
 * instance gave it a spec this one does not compile): unlike a deletion's
 * 1000 it is no end, the model may be repaired, so clients reconnect.
 */
export const MODEL_UNLOADED_CLOSE = 4409;

/** The close reason of a pairing session's feed, with {@link CREDENTIAL_ENDED_CLOSE}. */
export const SESSION_ENDED_REASON = "the pairing session ended";

/** The close reason of a feed whose browser token a rejoin replaced: the session goes on in another tab. */
export const SESSION_MOVED_REASON = "the pairing session moved to another tab";

/**
 * Parses the `paths` query (comma-separated prefixes, canonical or unrooted; a
 * meta key `$.note#required` stands for its field `$.note`); `null` when absent
 * or naming none, as `,` (every frame passes: an empty list would pass none, in
 * silence). Throws the parse message on a bad prefix.
 */
export function parsePathFilter(raw: string | undefined): Segment[][] | null {
  const prefixes = (raw ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  if (!prefixes.length) return null;
  return prefixes.map((prefix) => {
    const path = canonicalizePath(prefix);
    const field = typeof path === "string" && prefix.lastIndexOf("#") > 0
      ? canonicalizePath(fieldOf(prefix))
      : path;
    if (typeof field === "string") throw new Error(path as string);
    return field;
  });
}

/** The field address of a meta key (`$.note#required` -> `$.note`). */
function fieldOf(metaKey: string): string {
  return metaKey.slice(0, metaKey.lastIndexOf("#"));
}

/** A subscriber that came with a pairing session's token. */
export interface SessionSubscriber {
  /** The session's namespace: the socket closes when the session ends. */
  namespaceId: string;
  /** Who holds the token: the socket closes too when that party's token is revoked (a rejoin). */
  party?: "agent" | "browser";
  /** The model id its frames carry: the session's plain id. */
  shownAs: string;
}

interface Subscriber {
  socket: WebSocket;
  filter: Segment[][] | null;
  /** The model id its frames carry (a pairing session's plain id; otherwise the model's own). */
  shownAs: string;
  /** The pairing session's namespace, when it came with a session's token. */
  namespaceId?: string;
  party?: "agent" | "browser";
  /** Frames sent before the socket finished opening. */
  pending: string[] | null;
  pendingBytes: number;
}

/** A mutation event prepared once for every subscriber of the model. */
interface PreparedMutation {
  /** The frame's text naming the model as given. */
  text(shownAs: string): string;
  /** Always delivered: carries flagged constraints or dispatched effects. */
  urgent: boolean;
  touched: Segment[][];
}

/** Fans service events out to WebSocket subscribers. */
export class SubscriptionHub {
  readonly #byModel = new Map<string, Set<Subscriber>>();
  readonly #maxBufferedBytes: number;
  readonly #unsubscribe: () => void;

  constructor(service: ModelService, maxBufferedBytes: number) {
    this.#maxBufferedBytes = maxBufferedBytes;
    this.#unsubscribe = service.subscribe((event) => this.#dispatch(event));
  }

  /** Number of open subscriptions (all models). */
  get size(): number {
    let n = 0;
    for (const set of this.#byModel.values()) n += set.size;
    return n;
  }

  /**
   * Subscribes a freshly upgraded socket to a model's frames; a pairing
   * session's socket gets frames naming the model by its plain id, and is
   * closed when the session ends ({@link endSession}).
   */
  add(modelId: string, socket: WebSocket, filter: Segment[][] | null, session?: SessionSubscriber): void {
    const subscriber: Subscriber = {
      socket,
      filter,
      shownAs: session?.shownAs ?? modelId,
      namespaceId: session?.namespaceId,
      party: session?.party,
      pending: socket.readyState === WebSocket.OPEN ? null : [],
      pendingBytes: 0,
    };
    let set = this.#byModel.get(modelId);
    if (!set) this.#byModel.set(modelId, set = new Set());
    set.add(subscriber);
    socket.addEventListener("open", () => {
      const pending = subscriber.pending ?? [];
      subscriber.pending = null;
      for (const text of pending) this.#send(modelId, subscriber, text);
    });
    socket.addEventListener("message", () => {
      this.#drop(modelId, subscriber, CLIENT_MESSAGE_CLOSE, CLIENT_MESSAGE_REASON);
    });
    socket.addEventListener("close", () => this.#remove(modelId, subscriber));
    socket.addEventListener("error", () => this.#remove(modelId, subscriber));
  }

  /**
   * Closes the sockets a pairing session opened, with
   * {@link CREDENTIAL_ENDED_CLOSE}: its token no longer reaches the models, so
   * neither may the frames it subscribed to, and clients do not reconnect.
   * With `party`, only the sockets of that party's tokens (revoked by a rejoin).
   */
  endSession(namespaceId: string, party?: "agent" | "browser"): void {
    for (const [modelId, set] of this.#byModel) {
      for (const subscriber of [...set]) {
        if (subscriber.namespaceId === namespaceId && (!party || subscriber.party === party)) {
          this.#drop(
            modelId,
            subscriber,
            CREDENTIAL_ENDED_CLOSE,
            party ? SESSION_MOVED_REASON : SESSION_ENDED_REASON,
          );
        }
      }
    }
  }

  /**
   * Closes a model's sockets with 1000 "model deleted" (or, `unloaded`, 4409
   * "model not loaded"), as its deletion does; the route calls it too, for a
   * socket added after the deletion was announced (it looked the model up
   * before adding it).
   */
  deleted(modelId: string, unloaded = false): void {
    const [code, reason] = unloaded ? [MODEL_UNLOADED_CLOSE, "model not loaded"] : [1000, "model deleted"];
    for (const subscriber of [...this.#byModel.get(modelId) ?? []]) {
      this.#drop(modelId, subscriber, code, reason);
    }
  }

  /** Stops listening and closes every socket (server shutdown). */
  close(): void {
    this.#unsubscribe();
    for (const [modelId, set] of this.#byModel) {
      for (const subscriber of set) this.#drop(modelId, subscriber, 1001, "server shutting down");
    }
  }

  #remove(modelId: string, subscriber: Subscriber): void {
    const set = this.#byModel.get(modelId);
    if (!set?.delete(subscriber)) return;
    if (set.size === 0) this.#byModel.delete(modelId);
  }

  #drop(modelId: string, subscriber: Subscriber, code: number, reason: string): void {
    this.#remove(modelId, subscriber);
    const { socket } = subscriber;
    const close = () => {
      try {
        socket.close(code, reason);
      } catch {
        // already closing: nothing left to release
      }
    };
    // Deno marks a socket closed while still opening as closing, then opens it and never closes it:
    // close it once open instead, with none of the frames held for it.
    if (socket.readyState === WebSocket.CONNECTING) {
      subscriber.pending = [];
      socket.addEventListener("open", close, { once: true });
    } else close();
  }

  #dispatch(event: ServiceEvent): void {
    const set = this.#byModel.get(event.modelId);
    if (!set?.size) return;
    if (event.type === "deleted") return this.deleted(event.modelId, event.unloaded);
    if (event.type === "spec-evolved") {
      const frame: SpecEvolvedFrame = {
        kind: "spec-evolved",
        modelId: event.modelId,
        version: event.version,
      };
      const text = textsOf(frame);
      for (const subscriber of [...set]) this.#send(event.modelId, subscriber, text(subscriber.shownAs));
      return;
    }
    if (event.type !== "mutation") return;
    const prepared = prepareMutation(event);
    for (const subscriber of [...set]) {
      if (prepared.urgent || passes(subscriber.filter, prepared.touched)) {
        this.#send(event.modelId, subscriber, prepared.text(subscriber.shownAs));
      }
    }
  }

  #send(modelId: string, subscriber: Subscriber, text: string): void {
    const { socket } = subscriber;
    const bytes = utf8Length(text);
    if (subscriber.pending) {
      subscriber.pendingBytes += bytes;
      if (subscriber.pendingBytes > this.#maxBufferedBytes) {
        this.#drop(modelId, subscriber, SLOW_SUBSCRIBER_CLOSE, "subscriber too slow");
      } else subscriber.pending.push(text);
      return;
    }
    if (socket.readyState !== WebSocket.OPEN) return;
    if (socket.bufferedAmount + bytes > this.#maxBufferedBytes) {
      this.#drop(modelId, subscriber, SLOW_SUBSCRIBER_CLOSE, "subscriber too slow");
      return;
    }
    socket.send(text);
  }
}

function prepareMutation(event: Extract<ServiceEvent, { type: "mutation" }>): PreparedMutation {
  const { result } = event;
  const frame: MutationFrame = {
    kind: "mutation",
    modelId: event.modelId,
    mutatedPaths: result.mutatedPaths,
    derivedUpdated: result.derivedUpdated,
    metaUpdated: result.metaUpdated,
    flaggedConstraints: result.flaggedConstraints,
    dispatchedEffects: result.dispatchedEffects,
  };
  const touched: Segment[][] = [];
  // A field's live metadata changing touches the field: its subscribers re-read its schema.
  for (
    const address of [...result.mutatedPaths, ...result.derivedUpdated, ...result.metaUpdated.map(fieldOf)]
  ) {
    const path = canonicalizePath(address);
    if (typeof path !== "string") touched.push(path);
  }
  return {
    text: textsOf(frame),
    urgent: result.flaggedConstraints.length > 0 || result.dispatchedEffects.length > 0,
    touched,
  };
}

/** A frame's text per id it names the model by, each serialised once. */
function textsOf(frame: MutationFrame | SpecEvolvedFrame): (shownAs: string) => string {
  const texts = new Map<string, string>();
  return (shownAs) => {
    let text = texts.get(shownAs);
    if (text === undefined) texts.set(shownAs, text = JSON.stringify({ ...frame, modelId: shownAs }));
    return text;
  };
}

/**
 * A frame passes when a touched address and a filter prefix overlap either way
 * (a write inside the prefix, or a write to an ancestor that replaced it), as
 * the audit's `path` matches a record: a wildcard is any member or index.
 */
function passes(filter: Segment[][] | null, touched: Segment[][]): boolean {
  if (!filter) return true;
  return filter.some((prefix) => touched.some((path) => pathsOverlap(prefix, path, true)));
}
