/**
 * The `server` effect kind over a host's HTTP transport: the effect's request
 * (or each request of its `requests` fan-out). A JSON answer is parsed into
 * `$response` (an empty one is null, another text stays text), its status is
 * `$status`. 2xx succeeds; 3xx (redirects are not followed) and 4xx fail for
 * good; 5xx, I/O errors and time-outs are worth a retry. How requests leave is
 * the host's: the server sends them through its egress guard, a browser tab
 * with `fetch` under the page's CORS rules.
 *
 * @module
 */
import type { Json } from "../json/value.ts";
import type { HttpRequestSpec } from "../runtime/results.ts";
import type { EffectExecutor, ExecutorOutcome, PartOutcome } from "./executor.ts";

/** Default `svc.effects.max-response-bytes` (SPEC.md "Limits"): the largest answer an effect reads. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1_048_576;

/** One request of an effect, as it is sent. */
export interface OutboundRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** An answer, received in full. */
export interface InboundResponse {
  status: number;
  body: Uint8Array;
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

/** A request that failed on the way (I/O, time limit, an oversized answer), with the message to report. */
export class RequestFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RequestFailed";
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

type Attempt = PartOutcome & { retryable?: boolean };

async function send(
  spec: HttpRequestSpec,
  transport: HttpTransport,
  limits: { signal: AbortSignal; timeoutMs: number },
): Promise<Attempt> {
  const { body, type } = bodyOf(spec);
  const headers = { ...spec.headers };
  if (type && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
    headers["content-type"] = type;
  }
  try {
    const response = await transport.send({ method: spec.method, url: spec.url, headers, body }, limits);
    if (response.status >= 200 && response.status < 300) {
      return { ok: true, response: responseValue(response.body), status: response.status };
    }
    return { ok: false, error: `http ${response.status}`, retryable: response.status >= 500 };
  } catch (err) {
    if (err instanceof RequestRefused) return { ok: false, error: err.message, retryable: false };
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
      if (requests.length === 1 && !requests[0].set && !requests[0].statusPath) {
        const only = await send(requests[0], transport, limits);
        return only.ok ? only : { ok: false, error: only.error, retryable: only.retryable ?? false };
      }
      // A fan-out: each request on its own; its outcome goes to its own status document.
      const parts = await Promise.all(requests.map((spec) => send(spec, transport, limits)));
      return {
        ok: true,
        response: parts.map((part) => part.ok ? part.response : null),
        status: null,
        parts: parts.map((part) => part.ok ? part : { ok: false, error: part.error }),
      };
    },
  };
}
