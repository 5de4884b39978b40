/**
 * The single shared API key gate (SPEC.md "Authentication"). With `svc.api.key`
 * set, a request needs `Authorization: Bearer <key>`; paths listed as open pass
 * without it, and WebSocket handshake paths may carry the key as the `token`
 * query parameter instead. Missing, malformed and wrong keys all answer 401
 * `{"error":"Missing or invalid API key"}` (application/json). The comparison
 * is constant-time and the key is never logged.
 *
 * Open paths pass whatever credential they carry, a stale session token too.
 * A pairing session's token (README "Browser pairing") is a credential of its
 * own, in open mode too: it must belong to a live session (401 otherwise, so
 * an ended session never falls back to unscoped access; a WebSocket
 * handshake may be answered with a feed that closes at once), it reaches only the
 * paths the session may use (403 elsewhere), and the request
 * is admitted with its session for the routes to scope.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { problemResponse, unauthorizedResponse } from "../../problem.ts";
import { answer } from "../answer.ts";

/** Options of {@link apiKeyAuth}. */
export interface AuthOptions {
  /** The configured key; `null` is open mode (everything passes). */
  apiKey: string | null;
  /** Paths served without the key (`/actuator/health`). */
  openPaths: ReadonlySet<string>;
  /** True for paths whose handshake may carry the key as `?token=` (browsers cannot set headers there). */
  acceptsQueryToken: (path: string) => boolean;
  /** Pairing sessions' tokens, when the server pairs browsers. */
  sessions?: SessionGate;
}

/** How the gate treats pairing sessions' tokens (the server's pairing implements it). */
export interface SessionGate<G = unknown> {
  /** Whether a token claims to be a session's (by its form; such a token is never the API key). */
  claims(token: string): boolean;
  /** The grant of a live session's token; `undefined` when no session has it. */
  resolve(token: string): G | undefined;
  /** Whether a token no live session has was replaced by a rejoin (its session moved to another tab). */
  moved?(token: string): boolean;
  /** Whether a session may use this path. */
  reaches(path: string): boolean;
  /** Records the session a request was admitted with. */
  admit(c: Context, grant: G): void;
  /**
   * The answer to a WebSocket handshake carrying a token no live session has,
   * instead of the 401 (`undefined` keeps the 401): a browser reports a
   * refused handshake only as an abnormal closure, which its client retries.
   */
  endedHandshake?(request: Request, moved: boolean): Response | undefined;
}

/** The body of a 401 for a session token no live session has. */
export const SESSION_ENDED_MESSAGE = "Unknown or ended pairing session: pair again (pair_browser)";

/** The body of a 401 for a browser token a rejoin replaced; its `reason` is {@link SESSION_MOVED}. */
export const SESSION_MOVED_MESSAGE =
  "This pairing session moved to another tab: a newer link from the agent was approved there";

/** The `reason` member of the 401 for a token whose session moved (the playground words it for a person). */
export const SESSION_MOVED = "session_moved";

/** The message of the key's 401. */
export const UNAUTHORIZED_MESSAGE = "Missing or invalid API key";

const encoder = new TextEncoder();

/**
 * Compares two strings in time that depends only on the expected value's
 * length, not on where they first differ.
 */
export function constantTimeEqual(provided: string, expected: string): boolean {
  return equalsBytes(provided, encoder.encode(expected));
}

/** {@link constantTimeEqual} against bytes encoded once (the API key, compared on every request). */
function equalsBytes(provided: string, b: Uint8Array): boolean {
  const a = encoder.encode(provided);
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
  return unauthorizedResponse(UNAUTHORIZED_MESSAGE);
}

/** Requires the API key on every path that is not open; admits pairing sessions where they reach. */
export function apiKeyAuth(options: AuthOptions): MiddlewareHandler {
  const { apiKey, openPaths, acceptsQueryToken, sessions } = options;
  const key = apiKey === null ? null : encoder.encode(apiKey);
  return function apiKeyAuth(c, next) {
    const path = c.req.path;
    // Open paths need no credential, so none they carry (a stale session token) can refuse them.
    if (openPaths.has(path)) return next();
    const header = c.req.header("Authorization");
    const token = header !== undefined
      ? bearerToken(header)
      : acceptsQueryToken(path)
      ? c.req.query("token") ?? null
      : null;
    if (token !== null && sessions?.claims(token)) {
      const grant = sessions.resolve(token);
      if (grant === undefined) {
        const moved = sessions.moved?.(token) ?? false;
        const handshake = acceptsQueryToken(path) && c.req.header("Upgrade")?.toLowerCase() === "websocket"
          ? sessions.endedHandshake?.(c.req.raw, moved)
          : undefined;
        return answer(
          handshake ??
            (moved
              ? unauthorizedResponse(SESSION_MOVED_MESSAGE, { reason: SESSION_MOVED })
              : unauthorizedResponse(SESSION_ENDED_MESSAGE)),
        );
      }
      if (!sessions.reaches(path)) {
        return answer(
          problemResponse(403, `A pairing session's token cannot reach ${path}: only its own models`),
        );
      }
      sessions.admit(c, grant);
      return next();
    }
    if (key === null) return next();
    if (token === null || !equalsBytes(token, key)) return answer(unauthorized());
    return next();
  };
}
