/**
 * The single shared API key gate (SPEC.md "Authentication"). With `svc.api.key`
 * set, a request needs `Authorization: Bearer <key>`; paths listed as open pass
 * without it, and WebSocket handshake paths may carry the key as the `token`
 * query parameter instead. Missing, malformed and wrong keys all answer 401
 * `{"error":"Missing or invalid API key"}`. The comparison is constant-time and
 * the key is never logged.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { problemResponse } from "../../problem.ts";

/** Options of {@link apiKeyAuth}. */
export interface AuthOptions {
  /** The configured key; `null` is open mode (everything passes). */
  apiKey: string | null;
  /** Paths served without the key (`/actuator/health`). */
  openPaths: ReadonlySet<string>;
  /** True for paths whose handshake may carry the key as `?token=` (browsers cannot set headers there). */
  acceptsQueryToken: (path: string) => boolean;
}

/** The body of every 401. */
export const UNAUTHORIZED_MESSAGE = "Missing or invalid API key";

const encoder = new TextEncoder();

/**
 * Compares two strings in time that depends only on the expected value's
 * length, not on where they first differ.
 */
export function constantTimeEqual(provided: string, expected: string): boolean {
  const a = encoder.encode(provided);
  const b = encoder.encode(expected);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= b[i] ^ (i < a.length ? a[i] : 0);
  return diff === 0;
}

/** The bearer token of an `Authorization` header, `null` when absent or malformed. */
export function bearerToken(header: string | undefined | null): string | null {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return match ? match[1] : null;
}

/** The 401 answer. */
export function unauthorized(): Response {
  return problemResponse(401, UNAUTHORIZED_MESSAGE, { error: UNAUTHORIZED_MESSAGE }, {
    "WWW-Authenticate": 'Bearer realm="svc"',
  });
}

/** Requires the API key on every path that is not open. */
export function apiKeyAuth(options: AuthOptions): MiddlewareHandler {
  const { apiKey, openPaths, acceptsQueryToken } = options;
  return async function apiKeyAuth(c, next) {
    if (apiKey === null || openPaths.has(c.req.path)) return await next();
    const header = c.req.header("Authorization");
    const token = header !== undefined
      ? bearerToken(header)
      : acceptsQueryToken(c.req.path)
      ? c.req.query("token") ?? null
      : null;
    if (token === null || !constantTimeEqual(token, apiKey)) return unauthorized();
    return await next();
  };
}
