/**
 * The egress port of the `web_fetch` tool. Hosts wire the SSRF guard of
 * SPEC.md "Authentication" 10 (server/egress/: every resolved address
 * checked, private ranges blocked, the checked address pinned, redirects not
 * followed) through server/llm_egress.ts; without a port, web fetches are
 * refused.
 *
 * @module
 */

/** A fetch restricted to public destinations; redirects are answered, not followed. */
export type GuardedFetch = (
  url: string,
  init?: { signal?: AbortSignal; headers?: Record<string, string> },
) => Promise<Response>;

/** A refused destination (the message names the rule). */
export class EgressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EgressRefused";
  }
}

/** The default port: every destination refused (a host that wired no guard offers no web access). */
export const noEgress: GuardedFetch = () =>
  Promise.reject(new EgressRefused("web access is not configured on this host"));
