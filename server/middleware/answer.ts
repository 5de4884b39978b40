/**
 * What the middleware that only checks a request share: they are plain
 * functions, not `async` ones, that return `next()` itself when they pass a
 * request. Hono's chain awaits every middleware, so an `async` wrapper around
 * `await next()` added a promise and a microtask turn per middleware to every
 * request for nothing; a refusal is answered as a resolved promise.
 *
 * @module
 */

/** A middleware's own answer, in the promise the chain expects. */
export function answer(response: Response): Promise<Response> {
  return Promise.resolve(response);
}
