/**
 * The server's log lines: information on stdout, warnings and errors on
 * stderr. Nothing logged carries a credential: request URLs pass through
 * {@link redactUrl} first.
 *
 * @module
 */

/** Where the server writes its lines. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A logger over the console. */
export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  warn: (message) => console.error(`warning: ${message}`),
  error: (message) => console.error(`error: ${message}`),
};

/** Query parameters that carry credentials. */
const SECRET_PARAMS = ["token", "api_key", "apiKey", "key"];

/** A URL's path and query with credential parameters masked. */
export function redactUrl(url: string): string {
  const parsed = new URL(url);
  for (const name of SECRET_PARAMS) {
    if (parsed.searchParams.has(name)) parsed.searchParams.set(name, "***");
  }
  return parsed.pathname + parsed.search;
}
