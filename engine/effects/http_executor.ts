/**
 * The `server` effect kind over a host's HTTP transport: the effect's request
 * (or each request of its `requests` fan-out). A JSON answer is parsed into
 * `$response` (an empty one is null, another text stays text), its status is
 * `$status`. 2xx succeeds; 3xx (redirects are not followed), 4xx and an answer
 * past the size cap fail for good; 5xx, 429, I/O errors and time-outs are worth a
 * retry (after the answer's `Retry-After`, when it has one). A fan-out reports
 * each request on its own (one attempt each, `$response` the list of their
 * answers), however many there are. How requests leave is the host's: the
 * server sends them through its egress guard, a browser tab with `fetch`
 * under the page's CORS rules.
 *
 * @module
 */
import type { Json } from "../json/value.ts";
import { URL_CREDENTIALS } from "../model/sections/effects.ts";
import { MAX_QUOTED_WORD, quoted } from "../quoted.ts";
import type { HttpRequestSpec } from "../runtime/results.ts";
import { type EffectExecutor, type ExecutorOutcome, idempotencyKeyOf, type PartOutcome } from "./executor.ts";

/** Default `svc.effects.max-response-bytes` (SPEC.md "Limits"): the largest answer an effect reads. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;

/** One request of an effect, as it is sent. */
export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * The same at every attempt of one firing, after a restart too, and ASCII (an effect's id may be any
   * text): a host may send it as `Idempotency-Key`, so a service can tell a request sent again (a retry
   * after a time-out, at-least-once delivery after a crash) from a new one.
   */
  idempotencyKey?: string;
}

/** An answer, received in full. */
export interface InboundResponse {
  status: number;
  body: Uint8Array;
  /** The answer's `Retry-After` header, when the transport sees it. */
  retryAfter?: string | null;
  /** Its `Content-Type` and `Location` headers, when the transport sees them: a failure's reason. */
  contentType?: string | null;
  location?: string | null;
}

/** How a host sends an effect's requests. */
export interface HttpTransport {
  /**
   * Sends one request within the attempt's limits. Throws
   * {@link RequestRefused} for a request that must not be sent, and
   * {@link RequestFailed} (or any other error) when it failed on the way.
   */
  send(
    request: OutboundRequest,
    limits: { signal: AbortSignal; timeoutMs: number },
  ): Promise<InboundResponse>;
}

/** A request the host refuses to send (its egress policy): another attempt will not change that. */
export class RequestRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RequestRefused";
  }
}

/** A request that failed on the way (I/O, time limit), with the message to report. */
export class RequestFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RequestFailed";
  }
}

/** An answer past the host's cap: the same request most likely gets it again, so it is not retried. */
export class ResponseTooLarge extends RequestFailed {
  constructor(max: number) {
    super(`response exceeds svc.effects.max-response-bytes (${max})`);
  }
}

/** The body of an answer as `$response`: parsed JSON, null when empty, else the text. */
export function responseValue(body: Uint8Array): Json {
  const text = new TextDecoder().decode(body);
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The text and content type of a request body. */
function bodyOf(spec: HttpRequestSpec): { body?: string; type?: string } {
  if (spec.body === undefined) return {};
  if (typeof spec.body === "string") return { body: spec.body, type: "text/plain; charset=utf-8" };
  return { body: JSON.stringify(spec.body), type: "application/json" };
}

/** An HTTP token (RFC 9110 §5.6.2): what a method and a header name are made of. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What a header value may carry: no CR, LF, NUL or other control character, nothing beyond Latin-1. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Why a request can never be sent as it is (no transport builds it, so
 * another attempt would fail the same way), or null: its URL carries
 * credentials, its method or a header name is not a token, or a header value
 * holds a line break or another control character.
 */
function unsendable(request: OutboundRequest): string | null {
  if (hasCredentials(request.url)) return `invalid request: ${URL_CREDENTIALS}`;
  if (!TOKEN.test(request.method)) {
    return `invalid request: method ${JSON.stringify(request.method)} is not an HTTP token`;
  }
  for (const [name, value] of Object.entries(request.headers)) {
    if (!TOKEN.test(name)) return `invalid request: header name ${JSON.stringify(name)} is not an HTTP token`;
    if (!FIELD_VALUE.test(value)) {
      // The value itself is not repeated: headers carry credentials.
      return `invalid request: the value of header '${name}' holds a line break or another character ` +
        "a header cannot carry";
    }
  }
  return null;
}

/** Whether a URL names a user or password (one the parser refuses is left to the transport to report). */
function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}

type Attempt = PartOutcome & { retryable?: boolean; retryAfterMs?: number };

/** Milliseconds a `Retry-After` (delay-seconds or an HTTP date, RFC 9110 §10.2.3) asks for; none when unreadable or past. */
function retryAfterMs(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const ms = /^\s*\d+\s*$/.test(header) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  return ms > 0 ? ms : undefined;
}

/** Text as one line of at most {@link MAX_QUOTED_WORD} characters: an answer's words in a status document. */
const oneLine = (text: string) =>
  quoted(text.replace(/(?:\s|[^\x20-\x7e\x80-\uffff])+/g, " ").trim(), MAX_QUOTED_WORD);

/**
 * A non-2xx answer as a status document's `error`: `http <status>`, with why in one bounded line: a
 * redirect's `Location` (not followed), else the service's reason (a 402's "card declined"): a JSON body's
 * `message`, `error` or `detail` (or that member's `message`), an HTML page's title, another text's start.
 * A binary body (an image, text that is not UTF-8) says nothing.
 */
function failureOf({ status, body, contentType, location }: InboundResponse): string {
  const head = `http ${status}`;
  if (status < 400) {
    return `${head}: redirects are not followed${location ? ` (Location: ${oneLine(location)})` : ""}`;
  }
  const type = contentType?.toLowerCase() ?? "";
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    return head;
  }
  if ((type && !/^text\/|[+/](json|xml)\b/.test(type)) || text.includes("\0")) return head;
  let reason: unknown = type.includes("html") ? /<title[^>]*>([^<]*)/i.exec(text)?.[1] ?? "" : text;
  try {
    const json = JSON.parse(text);
    reason = ["message", "error", "detail"].map((name) => json[name]).find((v) => v != null) ?? text;
    if (typeof reason === "object") {
      reason = (reason as { message?: unknown })?.message ?? JSON.stringify(reason);
    }
  } catch {
    // Not JSON: the text as it is.
  }
  const line = oneLine(String(reason));
  return line ? `${head}: ${line}` : head;
}

async function send(
  spec: HttpRequestSpec,
  idempotencyKey: string,
  transport: HttpTransport,
  limits: { signal: AbortSignal; timeoutMs: number },
): Promise<Attempt> {
  const { body, type } = bodyOf(spec);
  const headers = { ...spec.headers };
  if (type && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
    headers["content-type"] = type;
  }
  const request = { method: spec.method, url: spec.url, headers, body, idempotencyKey };
  const invalid = unsendable(request);
  if (invalid) return { ok: false, error: invalid, retryable: false };
  try {
    const response = await transport.send(request, limits);
    if (response.status >= 200 && response.status < 300) {
      return { ok: true, response: responseValue(response.body), status: response.status };
    }
    // Too Many Requests is a passing state, like a 5xx: the same request may well succeed later.
    const retryable = response.status >= 500 || response.status === 429;
    const wait = retryable ? retryAfterMs(response.retryAfter) : undefined;
    return { ok: false, error: failureOf(response), retryable, ...wait && { retryAfterMs: wait } };
  } catch (err) {
    if (err instanceof RequestRefused || err instanceof ResponseTooLarge) {
      return { ok: false, error: err.message, retryable: false };
    }
    const message = err instanceof RequestFailed ? err.message : `request failed: ${(err as Error).message}`;
    return { ok: false, error: message, retryable: true };
  }
}

/** The `server` executor over `transport`. */
export function httpExecutor(transport: HttpTransport): EffectExecutor {
  return {
    kind: "server",
    async execute(job, limits): Promise<ExecutorOutcome> {
      if (job.work.type !== "http") return { ok: false, error: "not an http request", retryable: false };
      const requests = job.work.requests;
      // A job stored before `fanOut` was recorded: one plain request was taken for a single one.
      const fanOut = job.work.fanOut ??
        (requests.length !== 1 || !!requests[0].set || !!requests[0].statusPath);
      const key = idempotencyKeyOf(job);
      if (!fanOut) {
        const only = await send(requests[0], key, transport, limits);
        return only.ok ? only : { ...only, retryable: only.retryable ?? false };
      }
      // A fan-out: each request on its own; its outcome goes to its own status document.
      const parts = await Promise.all(
        requests.map((spec, i) => send(spec, `${key}/${i}`, transport, limits)),
      );
      return {
        ok: true,
        response: parts.map((part) => part.ok ? part.response : null),
        status: null,
        parts: parts.map((part) => part.ok ? part : { ok: false, error: part.error }),
      };
    },
  };
}
