/**
 * A request's `Origin` header in the form the configured origin lists hold
 * (server/config.ts readOrigins writes each entry as a browser sends it), so
 * one exact comparison decides at every door that checks an origin: CORS,
 * the loopback host check and `/mcp`. Pure, for server/ and mcp/ alike.
 *
 * @module
 */

/**
 * Longer than any origin a browser sends (a scheme, a host name of at most 253
 * characters, a port): a header past it is compared as written, unexamined, so
 * a hostile one costs no more than its length.
 */
export const MAX_ORIGIN_LENGTH = 1024;

/**
 * `origin` as a list holds it: `HTTPS://App.Example:443/` is
 * `https://app.example` (lower case, no trailing slash, no default port);
 * anything that is no bare `scheme://host[:port]` (`null`, an extension's
 * scheme, a path) as written, less trailing slashes and case.
 */
export function normalizedOrigin(origin: string): string {
  if (origin.length > MAX_ORIGIN_LENGTH) return origin;
  const text = withoutTrailingSlashes(origin.trim());
  const url = URL.canParse(text) ? new URL(text) : null;
  // A path, a query or credentials keep it from standing for its URL's origin.
  return url !== null && url.origin !== "null" && url.href === `${url.origin}/`
    ? url.origin
    : text.toLowerCase();
}

/** `text` less its trailing slashes, in one pass from the end (`/\/+$/` backtracks from every slash: quadratic). */
function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return text.slice(0, end);
}
