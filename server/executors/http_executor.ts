/**
 * The server's `server` effect kind: the engine's HTTP executor
 * (engine/effects/http_executor.ts) sending through the egress guard, which
 * refuses blocked destinations for good, fails oversized answers for good
 * (the same request would most likely get one again) and reports DNS and I/O
 * failures and time-outs as worth a retry.
 *
 * @module
 */
import type { EffectExecutor } from "../../engine/effects/executor.ts";
import {
  httpExecutor as engineHttpExecutor,
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

/** The `server` executor through the egress guard. */
export function httpExecutor(options: HttpExecutorOptions): EffectExecutor {
  return engineHttpExecutor({
    async send(request, { signal, timeoutMs }) {
      try {
        const answer = await guardedFetch(request, {
          policy: options.policy,
          resolve: options.resolve,
          timeoutMs,
          maxResponseBytes: options.maxResponseBytes,
          signal,
        });
        return { status: answer.status, body: answer.body, retryAfter: answer.headers["retry-after"] };
      } catch (err) {
        if (err instanceof EgressBlocked) throw new RequestRefused(err.message);
        if (err instanceof EgressTooLarge) throw new ResponseTooLarge(err.max);
        if (err instanceof EgressFailure) throw new RequestFailed(err.message);
        throw err;
      }
    },
  });
}
