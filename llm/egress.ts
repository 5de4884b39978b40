/**
 * The egress port of the `web_fetch` tool, and a PLACEHOLDER guard for it.
 *
 * `web_fetch` must pass the SSRF guard of SPEC.md "Authentication" 10 (every
 * resolved address checked, private ranges blocked, redirects not followed),
 * which the lead is building as `server/egress/`. Until it lands, the server
 * and the CLI wire {@link hostnameOnlyGuardedFetch}: it refuses loopback,
 * private, link-local, shared and unique-local hosts by the host name or IP
 * literal only, with no DNS resolution, so a public name that resolves to a
 * private address is NOT caught. Switch the wiring to the real guarded fetch
 * when it is on main.
 *
 * @module
 */

/** A fetch restricted to public destinations; redirects are answered, not followed. */
export type GuardedFetch = (
  url: string,
  init?: { signal?: AbortSignal; headers?: HeadersInit },
) => Promise<Response>;

/** A refused destination. */
export class EgressRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EgressRefused";
  }
}

function ipv4Private(host: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || a >= 224;
}

function ipv6Private(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (!h.includes(":")) return false;
  if (h === "::" || h === "::1") return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (mapped) return ipv4Private(mapped[1]);
  // The URL parser writes a mapped address in hex: ::ffff:7f00:1 is 127.0.0.1.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (hex) {
    const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
    return ipv4Private(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(h);
}

/** Whether a host name or IP literal is obviously not public (no DNS lookup). */
export function nonPublicHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") ||
    host.endsWith(".internal") || ipv4Private(host) || ipv6Private(host) ||
    !host.includes(".") && !host.includes(":");
}

/**
 * PLACEHOLDER until `server/egress/` lands: refuses non-public hosts by name
 * only (see the module note), http(s) only, redirects not followed.
 */
export const hostnameOnlyGuardedFetch: GuardedFetch = (url, init = {}) => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return Promise.reject(new EgressRefused(`not a URL: ${url}`));
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return Promise.reject(new EgressRefused(`only http and https are allowed, not ${parsed.protocol}`));
  }
  if (nonPublicHost(parsed.hostname)) {
    return Promise.reject(new EgressRefused(`host ${parsed.hostname} is not public`));
  }
  return fetch(parsed, { signal: init.signal, headers: init.headers, redirect: "manual" });
};
