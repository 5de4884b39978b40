/**
 * The server's `server` effect kind: the engine's HTTP executor
 * (engine/effects/http_executor.ts) sending through the egress guard, which
 * refuses blocked destinations for good, fails oversized answers for good
 * (the same request would most likely get one again) and reports DNS and I/O
 * failures and time-outs as worth a retry. A request that is not GET, HEAD or
 * OPTIONS carries its firing's `Idempotency-Key`.
 *
 * @module
 */
import type { EffectExecutor } from "../../engine/effects/executor.ts";
import {
  httpExecutor as engineHttpExecutor,
  type OutboundRequest,
  RequestFailed,
  RequestRefused,
  ResponseTooLarge,
} from "../../engine/effects/http_executor.ts";
import {
  EgressBlocked,
  EgressFailure,
  type EgressPolicy,
  EgressTooLarge,
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

/** Methods whose repetition is harmless by definition (RFC 9110 §9.2.2): they need no key. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The request with its firing's `Idempotency-Key` (unless a safe method or the spec's own headers name one):
 * delivery is at least once, so a payment service can tell a request sent again from a new one.
 */
function withIdempotencyKey(request: OutboundRequest): OutboundRequest {
  const named = Object.keys(request.headers).some((name) => name.toLowerCase() === "idempotency-key");
  if (!request.idempotencyKey || named || SAFE_METHODS.has(request.method.toUpperCase())) return request;
  return { ...request, headers: { ...request.headers, "idempotency-key": request.idempotencyKey } };
}

/** The `server` executor through the egress guard. */
export function httpExecutor(options: HttpExecutorOptions): EffectExecutor {
  return engineHttpExecutor({
    async send(request, { signal, timeoutMs }) {
      try {
        const answer = await guardedFetch(withIdempotencyKey(request), {
          policy: options.policy,
          resolve: options.resolve,
          timeoutMs,
          maxResponseBytes: options.maxResponseBytes,
          signal,
        });
        const { "retry-after": retryAfter, "content-type": contentType, location } = answer.headers;
        return { status: answer.status, body: answer.body, retryAfter, contentType, location };
      } catch (err) {
        if (err instanceof EgressBlocked) throw new RequestRefused(err.message);
        if (err instanceof EgressTooLarge) throw new ResponseTooLarge(err.max);
        if (err instanceof EgressFailure) throw new RequestFailed(err.message);
        throw err;
      }
    },
  });
}
