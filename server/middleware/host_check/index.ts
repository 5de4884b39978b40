/**
 * DNS rebinding protection for a server bound to a loopback address: a request
 * whose `Host` is not a loopback name (`localhost`, `127.0.0.0/8`, `[::1]`),
 * or whose `Origin`, when present, is neither a loopback origin nor listed in
 * `svc.websocket.allowed-origins` / `svc.mcp.allowed-origins`, is refused with
 * 403 on every route (REST, the WebSocket handshake, `/mcp`). A page on
 * another site that rebinds its name to 127.0.0.1 sends its own name as `Host`
 * and its own origin as `Origin`, so it never reaches a loopback-only server.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { normalizedOrigin } from "../../../engine/origin.ts";
import { problemResponse } from "../../problem.ts";
import { answer } from "../answer.ts";

/** True for `localhost`, `*.localhost`, an address in 127.0.0.0/8, and `::1` (bracketed or not). */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost") || name === "::1") return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  return v4 !== null && v4.slice(1).every((part) => Number(part) <= 255);
}

/** The hostname of a `Host` header value (`host`, `host:port`, `[v6]:port`). */
export function hostnameOf(host: string): string {
  const trimmed = host.trim();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  const colon = trimmed.lastIndexOf(":");
  return colon >= 0 ? trimmed.slice(0, colon) : trimmed;
}

/** True when `origin` is a loopback origin (`http://localhost:8080`, `http://127.0.0.1`, …). */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackName(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** Options of {@link hostCheck}. */
export interface HostCheckOptions {
  /** Origins listed by the operator (server/config.ts readOrigins gives them); `*` accepts any origin. */
  allowedOrigins: readonly string[];
}

/** The 403 (on /mcp, server/middleware/json_rpc_errors answers it as a JSON-RPC error). */
function refuse(detail: string): Promise<Response> {
  return answer(problemResponse(403, detail));
}

/** Refuses foreign `Host` and `Origin` headers (install only on a loopback bind). */
export function hostCheck(options: HostCheckOptions): MiddlewareHandler {
  const listed = new Set(options.allowedOrigins);
  // The last Host value found loopback: a client sends the same one on every request, so the check of its
  // name (three regular expressions) runs once per distinct value in a row, not once per request.
  let admittedHost: string | undefined;
  return function hostCheck(c, next) {
    const host = c.req.header("Host") ?? new URL(c.req.url).host;
    if (host !== admittedHost) {
      if (!isLoopbackName(hostnameOf(host))) {
        return refuse(`Host '${host}' is not served: this server listens on a loopback address`);
      }
      admittedHost = host;
    }
    const origin = c.req.header("Origin");
    if (
      origin !== undefined && !isLoopbackOrigin(origin) && !listed.has("*") &&
      !listed.has(normalizedOrigin(origin))
    ) {
      return refuse(`origin '${origin}' is not allowed on this loopback server`);
    }
    return next();
  };
}
