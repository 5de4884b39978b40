/**
 * Refusals on a JSON-RPC path (`/mcp`) as JSON-RPC errors: a shared check
 * that answers a problem document on every route (413 body over
 * `svc.http.max-body-size`, 429 per-IP rate limit, 403 foreign `Host` or
 * `Origin`, 405) is re-sent there as `{jsonrpc, error: {code: -32000, message:
 * "<title>: <detail>"}, id: null}`, status and headers kept. That is how the
 * MCP SDK's own transport refuses a request (its 413, 403, 406 and 415), and
 * what Streamable HTTP allows an error status to carry ("a JSON-RPC error
 * response that has no id"), so an MCP client reads every `/mcp` error alike.
 * A 401 keeps `{"error": …}` (DECISIONS.md): a client answers it from the
 * status and `WWW-Authenticate`, as the SDK's OAuth-style bearer check sends.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { PROBLEM_JSON } from "../../problem.ts";

/** The JSON-RPC error code of a refusal before any message was read (the SDK's). */
export const REFUSED = -32000;

/** Rewrites problem documents answered on `paths` as JSON-RPC errors without an id. */
export function jsonRpcErrors(paths: ReadonlySet<string>): MiddlewareHandler {
  return async function jsonRpcErrors(c, next) {
    await next();
    if (!paths.has(c.req.path) || c.res.headers.get("content-type") !== PROBLEM_JSON) return;
    const { status } = c.res;
    const problem = await c.res.json() as { title?: string; detail?: string };
    const headers = new Headers(c.res.headers);
    headers.set("content-type", "application/json");
    headers.delete("content-length");
    const message = [problem.title, problem.detail].filter((part) => typeof part === "string").join(": ");
    c.res = new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: REFUSED, message }, id: null }), {
      status,
      headers,
    });
  };
}
