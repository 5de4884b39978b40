/**
 * A request's `Origin` header in the form the configured origin lists hold
 * (server/config.ts readOrigins writes each entry as a browser sends it), so
 * one exact comparison decides at every door that checks an origin: CORS,
 * the loopback host check and `/mcp`. Pure, for server/ and mcp/ alike.
 *
 * @module
 */

/**
 * `origin` as a list holds it: `HTTPS://App.Example:443/` is
 * `https://app.example` (lower case, no trailing slash, no default port);
 * anything that is no bare `scheme://host[:port]` (`null`, an extension's
 * scheme, a path) as written, less trailing slashes and case.
 */
export function normalizedOrigin(origin: string): string {
  const text = origin.trim().replace(/\/+$/, "");
  const url = URL.canParse(text) ? new URL(text) : null;
  // A path, a query or credentials keep it from standing for its URL's origin.
  return url !== null && url.origin !== "null" && url.href === `${url.origin}/`
    ? url.origin
    : text.toLowerCase();
}
