/**
 * Methods no route serves (`TRACE`, `CONNECT`, anything unknown) are answered
 * 405 before any other middleware reads the request.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { problemResponse } from "../../problem.ts";
import { answer } from "../answer.ts";

/** Methods the routes and the `/mcp` mount may answer; the rest get 405 here. */
const SERVED = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Refuses methods outside {@link SERVED} with 405 and, in `Allow`, the methods
 * `allowedOn` says the path's routes serve (a page, or a path no route
 * serves: `GET, HEAD`). Not async: a request it passes costs the chain no
 * promise of its own (see server/middleware/answer.ts).
 */
export function methodGuard(allowedOn: (path: string) => string[]): MiddlewareHandler {
  return function methodGuard(c, next) {
    if (!SERVED.has(c.req.method.toUpperCase())) {
      const allowed = allowedOn(c.req.path);
      return answer(problemResponse(405, `Method ${c.req.method} is not supported`, undefined, {
        Allow: allowed.length ? allowed.join(", ") : "GET, HEAD",
      }));
    }
    return next();
  };
}
