/**
 * The server's log lines: information on stdout, warnings and errors on
 * stderr, one line each ({@link oneLine}). Nothing logged carries a
 * credential: request URLs pass through {@link redactUrl} first.
 *
 * @module
 */

/** Where the server writes its lines. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The short escapes of the control characters that have one. */
const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Control characters, and the separators some viewers break lines at. */
const CONTROL = /[\p{Cc}\u2028\u2029]/gu;

/**
 * `text` on one line: each control character written as an escape (`\n`,
 * `\u001b`). A message carries text from specs, values and upstream
 * servers; a newline in it would forge a log line of its own, an escape
 * sequence would drive the terminal showing the log.
 */
export function oneLine(text: string): string {
  return text.replace(CONTROL, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A logger over the console, one line per message. */
export const consoleLogger: Logger = {
  info: (message) => console.log(oneLine(message)),
  warn: (message) => console.error(`warning: ${oneLine(message)}`),
  error: (message) => console.error(`error: ${oneLine(message)}`),
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
