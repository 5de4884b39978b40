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

/** Sweep idle clients after this many requests, so the table stays bounded by active clients. */
const SWEEP_EVERY = 1024;

/** Limits each client to `requests` per sliding window. */
export function rateLimit(options: RateLimitOptions): MiddlewareHandler {
  const windowMs = options.windowSeconds * 1000;
  const now = options.now ?? (() => Date.now());
  const hits = new Map<string, number[]>();
  let sinceSweep = 0;
  const sweep = (cutoff: number) => {
    for (const [key, times] of hits) if (times[times.length - 1] <= cutoff) hits.delete(key);
  };
  return async function rateLimit(c, next) {
    if (options.exempt?.has(c.req.path)) return await next();
    const t = now();
    const cutoff = t - windowMs;
    if (++sinceSweep >= SWEEP_EVERY) {
      sinceSweep = 0;
      sweep(cutoff);
    }
    const key = clientKey(c, options.trustForwardedFor);
    let times = hits.get(key);
    if (!times) hits.set(key, times = []);
    let expired = 0;
    while (expired < times.length && times[expired] <= cutoff) expired++;
    if (expired) times.splice(0, expired);
    if (times.length >= options.requests) {
      const retryAfter = Math.max(1, Math.ceil((times[0] + windowMs - t) / 1000));
      return problemResponse(
        429,
        `Rate limit exceeded: ${options.requests} requests per ${options.windowSeconds}s`,
        undefined,
        { "Retry-After": String(retryAfter) },
      );
    }
    times.push(t);
    return await next();
  };
}
