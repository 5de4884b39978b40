/**
 * Middleware run as one: Hono's chain gives every middleware its own `async`
 * dispatch (a promise, a closure and a microtask turn per request), which the
 * checks that only refuse or pass a request (host, rate limit, key, body cap)
 * do not need. In a sequence each one's `next()` calls the following one
 * directly and the last one's is the chain's; a refusal ends it there, as it
 * would end Hono's chain, and what is thrown reaches the app's error handler
 * the same way.
 *
 * @module
 */
import type { MiddlewareHandler, Next } from "hono";

/** `middleware` in order, as one middleware. */
export function inSequence(middleware: readonly MiddlewareHandler[]): MiddlewareHandler {
  return middleware.reduceRight<MiddlewareHandler>(
    (rest, first) => (c, next) => first(c, (() => rest(c, next)) as Next),
    (_c, next) => next(),
  );
}
