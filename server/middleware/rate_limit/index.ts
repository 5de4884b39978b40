/**
 * Per-client sliding-window rate limit (`svc.rate-limit.*`): at most `requests`
 * requests in any window of `windowSeconds`, per client address; beyond it 429
 * with `Retry-After` (seconds until the oldest counted request leaves the
 * window). Refused requests are not counted, so a client that waits recovers.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { problemResponse } from "../../problem.ts";
import { answer } from "../answer.ts";
import { SlidingWindow } from "./window.ts";

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  requests: number;
  windowSeconds: number;
  /** Key on the first `X-Forwarded-For` hop (only behind a trusted proxy). */
  trustForwardedFor: boolean;
  /** Milliseconds clock; tests pass their own. */
  now?: () => number;
  /** Paths never limited (health and info, so probes keep working under load). */
  exempt?: ReadonlySet<string>;
}

/** The socket peer address Deno passes as the handler's `env`, `unknown` in-process. */
export function peerAddress(c: Context): string {
  const addr = (c.env as { remoteAddr?: { hostname?: string } } | undefined)?.remoteAddr;
  return addr?.hostname ?? "unknown";
}

/** The address a request is counted under. */
export function clientKey(c: Context, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const first = c.req.header("X-Forwarded-For")?.split(",")[0]?.trim();
    if (first) return first;
  }
  return peerAddress(c);
}

/** Limits each client to `requests` per sliding window. */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const window = new SlidingWindow(options.requests, options.windowSeconds * 1000, options.now);
  return function rateLimit(c, next) {
    if (options.exempt?.has(c.req.path)) return next();
    const retryAfter = window.take(clientKey(c, options.trustForwardedFor));
    if (retryAfter) {
      return answer(problemResponse(
        429,
        `Rate limit exceeded: ${options.requests} requests per ${options.windowSeconds}s`,
        undefined,
        { "Retry-After": String(retryAfter) },
      ));
    }
    return next();
  };
}
