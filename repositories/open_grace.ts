/**
 * A watch's feed socket that has neither opened nor closed within a bound (a
 * hung TCP connect or handshake) counts as closed: a WebSocket waiting for an
 * answer that never comes reports nothing, so the feed would neither reconnect
 * nor say that it is down. The feed hears a 1006 close, as of a server that is
 * down, and reconnects and reports it by its usual rules; whatever the given-up
 * socket does later is ignored.
 *
 * @module
 */
import type { ChangeFeedSocket, ChangeFeedSocketConstructor } from "../engine/operations/change_feed.ts";
import type { Scheduler } from "../engine/ports.ts";

/** `Socket` whose sockets close (1006) when they have not opened within `ms`, timed by `scheduler`. */
export function openWithin(
  Socket: ChangeFeedSocketConstructor,
  scheduler: Scheduler,
  ms: number,
): ChangeFeedSocketConstructor {
  return class implements ChangeFeedSocket {
    onopen: ChangeFeedSocket["onopen"] = null;
    onmessage: ChangeFeedSocket["onmessage"] = null;
    onclose: ChangeFeedSocket["onclose"] = null;
    onerror: ChangeFeedSocket["onerror"] = null;
    readonly #socket: ChangeFeedSocket;
    readonly #timer: unknown;
    /** Neither opened nor closed yet. */
    #waiting = true;
    /** Not given up on: its events reach the feed. */
    #live = true;

    constructor(url: string) {
      const socket = this.#socket = new Socket(url);
      socket.onopen = (event) => this.#settle() && this.onopen?.(event);
      socket.onmessage = (event) => this.#live && this.onmessage?.(event);
      socket.onclose = (event) => this.#settle() && this.onclose?.(event);
      socket.onerror = (event) => this.#live && this.onerror?.(event);
      this.#timer = scheduler.setTimeout(() => {
        if (!this.#waiting) return;
        this.#waiting = this.#live = false;
        try {
          socket.close();
        } catch {
          // Closing a socket that never connected may throw on some platforms: it is dropped all the same.
        }
        this.onclose?.({ code: 1006, reason: `no answer within ${ms} ms` });
      }, ms);
    }

    /** The socket opened or closed: no longer waited for. Whether its event reaches the feed. */
    #settle(): boolean {
      this.#waiting = false;
      scheduler.clearTimeout(this.#timer);
      return this.#live;
    }

    close(code?: number, reason?: string): void {
      this.#settle();
      this.#socket.close(code, reason);
    }
  };
}
