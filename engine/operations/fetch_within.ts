/**
 * One request to a server that waits a bounded time for the answer: the
 * remote client's, the agent's browser pairing's and the approve page's, so
 * a server that takes the connection but never answers fails the request
 * with a message saying so rather than leaving its caller waiting for ever.
 *
 * @module
 */
import { ServiceError } from "../errors.ts";

/** How long a request waits for the server to answer by default. */
export const REQUEST_TIMEOUT_MS = 60_000;

/**
 * {@link fetchWithin}'s failure: the server was not reached or did not answer in time. Told by its type, not
 * its message (an `svc mcp --url` child relays the type as `_meta["svc/noAnswer"]`, mcp/results.ts).
 */
export class NoAnswerError extends ServiceError {}

/** The 503 {@link NoAnswerError} of the server at `server` not answering within `timeoutMs`. */
export const unanswered = (server: string, timeoutMs?: number): NoAnswerError =>
  new NoAnswerError("unavailable", `The server at ${server} did not answer within ${timeoutMs} ms`);

/**
 * Sends `request` through `fetch`, waiting at most `timeoutMs` (none when
 * undefined) for the whole answer: its status line, and its body, which fails
 * with the same error when it stalls; `signal` is the caller's own
 * cancellation. A 503 {@link NoAnswerError} when the time is up, an internal
 * one when the server cannot be reached; `server` names it in both.
 */
export async function fetchWithin(
  fetch: (request: Request) => Promise<Response>,
  request: Request,
  server: string,
  timeoutMs?: number,
  signal?: AbortSignal,
): Promise<Response> {
  // Aborted with the error itself, which a stalled body's read then rejects with; the timeout's own timer needs
  // no clearing (it keeps no process alive).
  const late = new AbortController();
  if (timeoutMs !== undefined) {
    AbortSignal.timeout(timeoutMs).onabort = () => late.abort(unanswered(server, timeoutMs));
  }
  const signals = [signal, timeoutMs === undefined ? undefined : late.signal].filter((s) => s !== undefined);
  try {
    return await fetch(signals.length ? new Request(request, { signal: AbortSignal.any(signals) }) : request);
  } catch (err) {
    if (late.signal.aborted) throw late.signal.reason;
    throw new NoAnswerError("internal", `Cannot reach the server at ${server}: ${(err as Error).message}`);
  }
}
