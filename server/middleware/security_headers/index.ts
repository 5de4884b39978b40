/**
 * Security headers on every response, in every mode (SPEC.md "Authentication" 8):
 * HSTS, frame denial, no MIME sniffing, no referrer, and the configured
 * Content-Security-Policy; the browser pages' paths get their own policy.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";

/** Options of {@link securityHeaders}. */
export interface SecurityHeadersOptions {
  /** The Content-Security-Policy value (`svc.security.csp`). */
  contentSecurityPolicy: string;
  /** Paths served with their own policy (the browser pages), and that policy. */
  pages?: { paths: ReadonlySet<string>; contentSecurityPolicy: string };
}

/** Adds the security headers after the handler ran (errors included). */
export function securityHeaders(options: SecurityHeadersOptions): MiddlewareHandler {
  const headers: [string, string][] = [
    ["Strict-Transport-Security", "max-age=31536000; includeSubDomains"],
    ["X-Frame-Options", "DENY"],
    ["X-Content-Type-Options", "nosniff"],
    ["Referrer-Policy", "no-referrer"],
  ];
  const pages = options.pages;
  return async function securityHeaders(c, next) {
    await next();
    // A WebSocket upgrade answer (101) is handed to the runtime as is.
    if (c.res.status === 101) return;
    for (const [name, value] of headers) c.res.headers.set(name, value);
    const page = pages?.paths.has(c.req.path) && c.req.method === "GET";
    c.res.headers.set(
      "Content-Security-Policy",
      page ? pages!.contentSecurityPolicy : options.contentSecurityPolicy,
    );
  };
}
