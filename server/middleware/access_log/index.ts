/**
 * One access log line per request (`svc.http.access-log`): method, path with
 * credentials masked, status and duration. Headers are never logged.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { type Logger, redactUrl } from "../../log.ts";

/** Logs each request after it was answered. */
export function accessLog(log: Logger, now: () => number = () => performance.now()): MiddlewareHandler {
  return async function accessLog(c, next) {
    const started = now();
    await next();
    log.info(`${c.req.method} ${redactUrl(c.req.url)} ${c.res.status} ${(now() - started).toFixed(1)}ms`);
  };
}
