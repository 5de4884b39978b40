/**
 * The `web_fetch` tool's egress (llm/egress.ts port) over the server's SSRF
 * guard (server/egress/): http and https, every resolved address checked and
 * private, loopback, link-local, shared and unique-local ranges refused, the
 * connection pinned to the checked address, redirects answered rather than
 * followed. `svc.effects.allow-private-ips` and `svc.effects.allowed-hosts`
 * do not apply to the LLM's fetches (decisions/llm.md "Tools").
 *
 * @module
 */
import { EgressRefused, type GuardedFetch } from "../llm/egress.ts";
import {
  EgressBlocked,
  type EgressPolicy,
  guardedFetch,
  type Resolver,
  STRICT_POLICY,
} from "./egress/mod.ts";

/** What the LLM may fetch: any public host, over http or https. */
export const LLM_FETCH_POLICY: EgressPolicy = Object.freeze({ ...STRICT_POLICY, allowInsecureHttp: true });

/** Bytes of a page fetched at most (the text the model sees is cut far shorter). */
export const LLM_FETCH_MAX_BYTES = 2 * 1024 * 1024;

/** Statuses whose response has no body. */
const NO_BODY = new Set([101, 204, 205, 304]);

/** The guarded fetch of `web_fetch` (a resolver port for tests). */
export function llmEgress(options: { resolve?: Resolver; timeoutMs?: number } = {}): GuardedFetch {
  return async (url, init = {}) => {
    try {
      const response = await guardedFetch(
        { method: "GET", url, headers: init.headers },
        {
          policy: LLM_FETCH_POLICY,
          resolve: options.resolve,
          timeoutMs: options.timeoutMs ?? 10_000,
          maxResponseBytes: LLM_FETCH_MAX_BYTES,
          signal: init.signal,
        },
      );
      const body = NO_BODY.has(response.status) ? null : response.body as Uint8Array<ArrayBuffer>;
      return new Response(body, { status: response.status, headers: response.headers });
    } catch (err) {
      if (err instanceof EgressBlocked) throw new EgressRefused(err.message);
      throw err;
    }
  };
}
