/**
 * Methods no route serves (`TRACE`, `CONNECT`, anything unknown) are answered
 * 405 before any other middleware reads the request.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { problemResponse } from "../../problem.ts";

/** Methods the routes and the `/mcp` mount may answer; the rest get 405 here. */
const SERVED = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Refuses methods outside {@link SERVED} with 405 and the methods that are. */
export function methodGuard(): MiddlewareHandler {
  return async function methodGuard(c, next) {
    if (!SERVED.has(c.req.method.toUpperCase())) {
      return problemResponse(405, `Method ${c.req.method} is not supported`, undefined, {
        Allow: "GET, HEAD, POST, DELETE",
      });
    }
    return await next();
  };
}
