/**
 * CORS for browser pages served from another origin (a playground on a
 * static host, an app embedding the client): origins listed in
 * `svc.http.cors.allowed-origins` get the REST API's answers and preflights;
 * others get no CORS headers, so their browser withholds the answer. No
 * cookies are involved (the credential is the `Authorization` header), so
 * credentials are never allowed. Installed before the key gate: a preflight
 * carries no key.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { normalizedOrigin } from "../../../engine/origin.ts";

/** Request headers a page may send: the credential, JSON bodies, the view of a write, MCP's own. */
const ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "X-View",
  "Mcp-Session-Id",
  "Mcp-Protocol-Version",
  "Last-Event-ID",
];

/** Response headers a page may read. */
const EXPOSED_HEADERS = ["Location", "Retry-After", "Mcp-Session-Id", "Content-Disposition"];

/**
 * CORS for `origins` (`*`: any origin, for development), as server/config.ts
 * readOrigins gives them; `undefined` when the list is empty. A request from
 * anywhere else (or without an `Origin`) passes on with no CORS header at
 * all: a preflight then meets the key gate.
 */
export function corsFor(origins: readonly string[]): MiddlewareHandler | undefined {
  if (origins.length === 0) return undefined;
  const any = origins.includes("*");
  const listed = new Set(origins);
  const allowed = (origin: string | undefined) => !!origin && (any || listed.has(normalizedOrigin(origin)));
  const handler = cors({
    origin: (origin) => origin,
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
  return (c, next) => allowed(c.req.header("origin")) ? handler(c, next) : next();
}
