/**
 * One request to a server that waits a bounded time for the answer: the
 * remote client's, the agent's browser pairing's and the approve page's, so
 * a server that takes the connection but never answers, or stops halfway
 * through its answer, fails the request with a message saying so rather than
 * leaving its caller waiting for ever.
 *
 * @module
 */
import { NoAnswerError } from "../errors.ts";

/** How long a request waits for the server to answer by default. */
export const REQUEST_TIMEOUT_MS = 60_000;

/** The 503 {@link NoAnswerError} of the server at `server` not answering within `timeoutMs`. */
export const unanswered = (server: string, timeoutMs?: number): NoAnswerError =>
  new NoAnswerError("unavailable", `The server at ${server} did not answer within ${timeoutMs} ms`);

/**
 * Why a request failed: the innermost cause (Deno's fetch says only "fetch failed", its cause says why, such
 * as "Connection refused"), without the request's URL and local address (the message names the server).
 */
function why(err: unknown): string {
  while (err instanceof Error && err.cause instanceof Error) err = err.cause;
  return (err instanceof Error ? err.message : String(err)).replace(
    /^error sending request .*?\): /,
    "",
  );
}

/** The {@link NoAnswerError} of an answer the server at `server` broke off (its connection closed halfway). */
export const brokenOff = (server: string, err: unknown): NoAnswerError =>
  new NoAnswerError("internal", `The server at ${server} broke off its answer: ${why(err)}`);

/** Statuses whose answer has no body (a Response cannot be built with one). */
const NO_BODY = [204, 205, 304];

/**
 * Sends `request` through `fetch`, waiting at most `timeoutMs` (none when
 * undefined) for the whole answer, read here (without a bound its body is left
 * to stream); `signal` is the caller's own cancellation. A 503
 * {@link NoAnswerError} when the time is up, an internal one when the server
 * cannot be reached or breaks off its answer; `server` names it in each.
 */
export async function fetchWithin(
  fetch: (request: Request) => Promise<Response>,
  request: Request,
  server: string,
  timeoutMs?: number,
  signal?: AbortSignal,
): Promise<Response> {
  const late = new AbortController();
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => late.abort(), timeoutMs);
  const signals = [signal, timer === undefined ? undefined : late.signal].filter((s) => s !== undefined);
  let response: Response;
  try {
    response = await fetch(
      signals.length ? new Request(request, { signal: AbortSignal.any(signals) }) : request,
    );
  } catch (err) {
    clearTimeout(timer);
    if (late.signal.aborted) throw unanswered(server, timeoutMs);
    if (signal?.aborted) throw err; // the caller's own cancellation: the server was not out of reach
    throw new NoAnswerError("internal", `Cannot reach the server at ${server}: ${why(err)}`);
  }
  try {
    // An opaque redirect (a browser's, status 0) has no body and cannot be rebuilt.
    if (timer === undefined || response.type === "opaqueredirect") return response;
    // Read within the same bound: a server that sends its status line and then stalls has not answered.
    const body = NO_BODY.includes(response.status) ? null : await response.arrayBuffer();
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  } catch (err) {
    if (late.signal.aborted) throw unanswered(server, timeoutMs);
    if (signal?.aborted) throw err; // the caller's own cancellation
    throw brokenOff(server, err);
  } finally {
    clearTimeout(timer);
  }
}
