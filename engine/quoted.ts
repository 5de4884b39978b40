/**
 * Caller input quoted in a failure, cut down: a 2 MB id or expression sent
 * back whole in an error would flood a log, an agent's context or a terminal.
 *
 * @module
 */

/** Most characters of a value (or a message) a failure quotes. */
export const MAX_QUOTED_CHARS = 1000;

/** Most characters of one word of caller input (an id, a path, a name) a message quotes. */
export const MAX_QUOTED_WORD = 200;

/** `text`, or its first `max` characters (a surrogate pair kept whole) and its length. */
export function quoted(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) return text;
  const cut = (text.charCodeAt(max - 1) & 0xfc00) === 0xd800 ? max - 1 : max;
  // Joined anew: V8's slice of a long string keeps all of it alive (a trace ring of cut results would).
  return `${text.slice(0, cut).split("").join("")}… (${text.length} characters)`;
}

/**
 * A failure's message fit to show: each run of more than
 * {@link MAX_QUOTED_WORD} characters without a space or a quote mark (an id,
 * a path, a name as sent) {@link quoted} to that many, then a message still
 * over twice {@link MAX_QUOTED_CHARS} (input with spaces) to its first
 * {@link MAX_QUOTED_CHARS}. A shortened message, or a value {@link quoted}
 * in it already, is left as it is (a remote
 * client rebuilds the server's error from it).
 */
export function shortMessage(message: string): string {
  // A run the engine quoted already (a value of up to MAX_QUOTED_CHARS, then "… (N characters)") stays.
  // The ellipsis escaped: esbuild leaves a regex as written, and one non-ASCII character in the CLI
  // bundle costs every start a copy of the whole source (cli/build/bundle.ts).
  const short = message.replace(
    /[^\s'"`\u2026]{201,}/g,
    (run, at: number) => message.startsWith("… (", at + run.length) ? run : quoted(run, MAX_QUOTED_WORD),
  );
  return short.length > 2 * MAX_QUOTED_CHARS ? quoted(short) : short;
}

/** `scheme://`, then a user part up to its `@` (the last before the host, as a URL parser reads it). */
const URL_USER_PART = /\b([a-z][a-z0-9+.-]*:\/\/)(?:([^\s/?#@:'"`]*):)?[^\s/?#'"`]*@/gi;

/**
 * `text` with the credentials of every URL in it masked, wherever it stands (a
 * driver's error quoting its connection URL, a configured base URL): a
 * password as `***` after its user (`postgres://svc:***@db`, as the storage
 * messages name the user), a user part without one whole (`https://***@host`:
 * a token). Mask before cutting ({@link quoted}): a cut inside a password
 * leaves no `@` to find it by.
 */
export function maskCredentials(text: string): string {
  return text.replace(
    URL_USER_PART,
    (_, scheme: string, user?: string) => `${scheme}${user === undefined ? "" : `${user}:`}***@`,
  );
}
