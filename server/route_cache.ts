/**
 * Hono's router with the last matches remembered. Hono's default router
 * (its RegExpRouter refuses this app's routes, so its TrieRouter) searches
 * the trie on every request: it splits the path, gathers the handlers of
 * every middleware and route that matches and orders them, about 3.5 KB
 * allocated and a few µs a request, for an answer that depends on the
 * method and path alone. Clients repeat their paths (a model's writes,
 * its reads), so the answer of a recent (method, path) is kept. A match
 * result is only read by Hono (the handlers, the parameters), never
 * changed, so requests can share it. Bounded: the cache starts over when
 * full, so a client sending ever-new paths costs memory of at most
 * {@link ROUTE_CACHE_SIZE} entries.
 *
 * @module
 */
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";

/** The most (method, path) matches kept. */
export const ROUTE_CACHE_SIZE = 1024;

/** A router answering a repeated (method, path) from the matches it remembers. */
export class CachedRouter<T> implements Router<T> {
  readonly #inner: Router<T>;
  /** Matches by method, then path (no key string to build per request). */
  readonly #matches = new Map<string, Map<string, Result<T>>>();
  #size = 0;

  /** Wraps `inner` (default: Hono's own default router). */
  constructor(inner: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] })) {
    this.#inner = inner;
  }

  /** The wrapped router's name. */
  get name(): string {
    return this.#inner.name;
  }

  /** Adds a route (a route added after a match drops what was remembered). */
  add(method: string, path: string, handler: T): void {
    this.#matches.clear();
    this.#size = 0;
    this.#inner.add(method, path, handler);
  }

  /** The handlers and parameters of `method` on `path`. */
  match(method: string, path: string): Result<T> {
    let byPath = this.#matches.get(method);
    let result = byPath?.get(path);
    if (result === undefined) {
      result = this.#inner.match(method, path);
      if (this.#size >= ROUTE_CACHE_SIZE) {
        this.#matches.clear();
        this.#size = 0;
        byPath = undefined;
      }
      if (!byPath) this.#matches.set(method, byPath = new Map());
      byPath.set(path, result);
      this.#size++;
    }
    return result;
  }
}
