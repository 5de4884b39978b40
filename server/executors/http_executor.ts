/**
 * The `server` effect kind: the effect's request (or each request of its
 * `requests` fan-out) through the egress guard. A JSON answer is parsed into
 * `$response` (an empty one is null, another text stays text), its status is
 * `$status`. 2xx succeeds; 3xx (redirects are not followed) and 4xx fail for
 * good; 5xx, I/O errors and time-outs are worth a retry.
 *
 * @module
 */
import type { EffectExecutor, ExecutorOutcome, PartOutcome } from "../../engine/effects/executor.ts";
import type { Json } from "../../engine/json/value.ts";
import type { HttpRequestSpec } from "../../engine/runtime/results.ts";
import {
  EgressBlocked,
  EgressFailure,
  type EgressPolicy,
  type EgressResponse,
  guardedFetch,
  type Resolver,
} from "../egress/mod.ts";

/** How the host's `server` effects reach out. */
export interface HttpExecutorOptions {
  policy: EgressPolicy;
  /** `svc.effects.max-response-bytes`. */
  maxResponseBytes: number;
  /** The DNS port (tests map names to loopback). */
  resolve?: Resolver;
}

/** The body of a response as `$response`: parsed JSON, null when empty, else the text. */
export function responseValue(response: EgressResponse): Json {
  const text = new TextDecoder().decode(response.body);
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The bytes and content type of a request body. */
function bodyOf(spec: HttpRequestSpec): { body?: string; type?: string } {
  if (spec.body === undefined) return {};
  if (typeof spec.body === "string") return { body: spec.body, type: "text/plain; charset=utf-8" };
  return { body: JSON.stringify(spec.body), type: "application/json" };
}

type Attempt = PartOutcome & { retryable?: boolean };

async function send(
  spec: HttpRequestSpec,
  options: HttpExecutorOptions,
  signal: AbortSignal,
  timeoutMs: number,
) {
  const { body, type } = bodyOf(spec);
  const headers = { ...spec.headers };
  if (type && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
    headers["content-type"] = type;
  }
  try {
    const response = await guardedFetch({ method: spec.method, url: spec.url, headers, body }, {
      policy: options.policy,
      resolve: options.resolve,
      timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      signal,
    });
    if (response.status >= 200 && response.status < 300) {
      return { ok: true, response: responseValue(response), status: response.status } satisfies Attempt;
    }
    return {
      ok: false,
      error: `http ${response.status}`,
      retryable: response.status >= 500,
    } satisfies Attempt;
  } catch (err) {
    if (err instanceof EgressBlocked) {
      return { ok: false, error: err.message, retryable: false } satisfies Attempt;
    }
    const message = err instanceof EgressFailure ? err.message : `request failed: ${(err as Error).message}`;
    return { ok: false, error: message, retryable: true } satisfies Attempt;
  }
}

/** The `server` executor. */
export function httpExecutor(options: HttpExecutorOptions): EffectExecutor {
  return {
    kind: "server",
    async execute(job, { signal, timeoutMs }): Promise<ExecutorOutcome> {
      if (job.work.type !== "http") return { ok: false, error: "not an http request", retryable: false };
      const requests = job.work.requests;
      if (requests.length === 1 && !job.work.requests[0].set && !job.work.requests[0].statusPath) {
        const only = await send(requests[0], options, signal, timeoutMs);
        return only.ok ? only : { ok: false, error: only.error, retryable: only.retryable ?? false };
      }
      // A fan-out: each request on its own; its outcome goes to its own status document.
      const parts = await Promise.all(requests.map((spec) => send(spec, options, signal, timeoutMs)));
      return {
        ok: true,
        response: parts.map((part) => part.ok ? part.response : null),
        status: null,
        parts: parts.map((part) => part.ok ? part : { ok: false, error: part.error }),
      };
    },
  };
}
