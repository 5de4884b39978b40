/**
 * Error responses. Every error is `application/problem+json` (RFC 7807), but
 * every 401, the key gate's (server/middleware/auth) and a route's alike: it is
 * DECISIONS.md's `{"error": message}` as plain `application/json` (SPEC.md maps
 * domain errors to problem details, not a refused credential), so a client
 * reads one shape whichever check refused it:
 *
 * - a domain error whose shape SPEC.md or DECISIONS.md fixes (constraint
 *   rollback, schema violation, version conflict, spec validation findings)
 *   is sent with exactly those members: RFC 7807 makes every member
 *   optional, so `{error, violations}` is a problem document with extension
 *   members only, and clients comparing the documented body see nothing extra;
 * - every other error is `{type: "about:blank", title, status, detail}`, with
 *   `title` the status phrase and `detail` the service's message.
 *
 * @module
 */
import { ServiceError, STATUS_OF_KIND } from "../engine/errors.ts";
import type { Json } from "../engine/json/value.ts";
import { shortMessage } from "../engine/quoted.ts";

/** The media type of every error body but a 401's. */
export const PROBLEM_JSON = "application/problem+json";

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  426: "Upgrade Required",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

/** A generic problem document; a detail quoting huge input (a path, a header) is cut down. */
export function problemBody(status: number, detail: string): Record<string, Json> {
  return { type: "about:blank", title: TITLES[status] ?? "Error", status, detail: shortMessage(detail) };
}

/** A problem response with a generic body, or with `body` verbatim when given. */
export function problemResponse(
  status: number,
  detail: string,
  body?: Record<string, Json>,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body ?? problemBody(status, detail)), {
    status,
    headers: { "content-type": PROBLEM_JSON, ...headers },
  });
}

/** A 401: `{"error": message, ...members}` as plain JSON, with the challenge of the bearer scheme. */
export function unauthorizedResponse(message: string, members: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: shortMessage(message), ...members }), {
    status: 401,
    headers: { "content-type": "application/json", "WWW-Authenticate": 'Bearer realm="svc"' },
  });
}

/** Maps a thrown service error to its response; `null` for anything else. */
export function serviceErrorResponse(err: unknown): Response | null {
  if (!(err instanceof ServiceError)) return null;
  const status = STATUS_OF_KIND[err.kind] ?? 500;
  if (status === 401) return unauthorizedResponse(err.message);
  // problemBody quotes huge input short.
  // Every 429 says when to come back: a queue or the model registry frees up within moments. Another failure
  // says it when it knows (an upstream's 429 or 503 passed on as our 502).
  const retryAfter = err.retryAfter ?? (status === 429 ? 1 : undefined);
  const headers: Record<string, string> = retryAfter === undefined
    ? {}
    : { "Retry-After": String(retryAfter) };
  return problemResponse(status, err.message, err.body, headers);
}
