/// <reference lib="dom" />
/**
 * How a tab sends its `server` effects (decisions/browser.md: "the tab is a
 * host like the server"): `fetch` under the page's CORS rules, which take the
 * place of the server's egress guard; redirects are not followed, the
 * attempt's time limit holds, and the answer is capped as on the server. The
 * request's idempotency key is not sent: a header CORS does not list makes
 * every request need the service's consent first (a preflight).
 *
 * @module
 */
import {
  DEFAULT_MAX_RESPONSE_BYTES,
  type HttpTransport,
  type InboundResponse,
  RequestFailed,
  RequestRefused,
  ResponseTooLarge,
} from "../../engine/effects/http_executor.ts";
import { readCapped } from "../../engine/read_capped.ts";

/** Options of {@link fetchTransport}. */
export interface FetchTransportOptions {
  /** The largest answer read (default {@link DEFAULT_MAX_RESPONSE_BYTES}). */
  maxResponseBytes?: number;
  /** The fetch to use (default the page's). */
  fetch?: typeof fetch;
}

/** The tab's transport. */
export function fetchTransport(options: FetchTransportOptions = {}): HttpTransport {
  const max = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  return {
    async send(request, { signal, timeoutMs }): Promise<InboundResponse> {
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        const response = await send(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: "manual",
          credentials: "omit",
          signal: AbortSignal.any([signal, timeout]),
        });
        if (response.type === "opaqueredirect") throw new RequestRefused("redirect not followed");
        const body = response.body ? await readCapped(response.body, max) : new Uint8Array();
        if (!body) throw new ResponseTooLarge(max);
        // Retry-After is readable across origins only where the service exposes it (CORS).
        const header = (name: string) => response.headers.get(name);
        return {
          status: response.status,
          body,
          retryAfter: header("retry-after"),
          contentType: header("content-type"),
          location: header("location"),
        };
      } catch (err) {
        if (err instanceof RequestFailed || err instanceof RequestRefused) throw err;
        if (signal.aborted) throw new RequestFailed("cancelled");
        if (timeout.aborted) throw new RequestFailed(`no answer within ${timeoutMs} ms`);
        throw err;
      }
    },
  };
}
