/**
 * The egress guard: whether a URL may be requested, checked before every
 * attempt. In order: the URL is absolute; the scheme is https, or http with
 * `svc.effects.allow-insecure-http`; the host is non-empty; it is allowed by
 * `svc.effects.allowed-hosts` (exact names and `*.` wildcards, case-insensitive,
 * port ignored); every address it resolves to is public (skipped with
 * `svc.effects.allow-private-ips`, which never relaxes the scheme). The
 * checked addresses are returned so the connection goes to exactly them: no
 * second DNS lookup between check and connect (DNS rebinding). A name that
 * does not resolve is not refused but failed, as worth another attempt: DNS
 * failures are mostly passing.
 *
 * @module
 */
import { blockedRange, isIpLiteral } from "./address_rules.ts";

/** The `svc.effects.*` egress keys. */
export interface EgressPolicy {
  /** `svc.effects.allow-private-ips`. */
  allowPrivateIps: boolean;
  /** `svc.effects.allow-insecure-http`. */
  allowInsecureHttp: boolean;
  /** `svc.effects.allowed-hosts`; null allows any public host. */
  allowedHosts: readonly string[] | null;
}

/** The default policy: https to public hosts only. */
export const STRICT_POLICY: EgressPolicy = Object.freeze({
  allowPrivateIps: false,
  allowInsecureHttp: false,
  allowedHosts: null,
});

/** Resolves a host name to its IPv4 and IPv6 addresses (a port, so tests need no DNS); {@link EgressFailure} when none. */
export type Resolver = (hostname: string) => Promise<string[]>;

/** A refused request; the message names the rule. */
export class EgressBlocked extends Error {
  constructor(message: string) {
    super(`egress blocked: ${message}`);
    this.name = "EgressBlocked";
  }
}

/** A request that failed on the way (DNS, I/O, time limit, oversized answer). */
export class EgressFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EgressFailure";
  }
}

/** An answer longer than the request's `maxResponseBytes` (`max`); what is read of it is dropped. */
export class EgressTooLarge extends EgressFailure {
  constructor(readonly max: number) {
    super(`response exceeds ${max} bytes`);
    this.name = "EgressTooLarge";
  }
}

/** A checked destination. */
export interface CheckedTarget {
  url: URL;
  /** The host without IPv6 brackets. */
  hostname: string;
  /** The addresses to connect to, every one checked (unless private ones are allowed). */
  addresses: string[];
}

/** Whether `hostname` matches an `allowed-hosts` entry (`name` or `*.domain`). */
export function hostAllowed(hostname: string, allowed: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return allowed.some((entry) => {
    const rule = entry.trim().toLowerCase().replace(/\.$/, "");
    return rule.startsWith("*.")
      ? host.endsWith(rule.slice(1)) && host.length > rule.length - 1
      : host === rule;
  });
}

/**
 * The DNS port over Deno's resolver: A and AAAA records. A name without any
 * fails with {@link EgressFailure} saying why in a few words (no record, a
 * lookup that timed out or failed), never with the resolver's whole message.
 */
export const systemResolver: Resolver = async (hostname) => {
  const lookups = await Promise.allSettled([
    Deno.resolveDns(hostname, "A"),
    Deno.resolveDns(hostname, "AAAA"),
  ]);
  const addresses = lookups.flatMap((r) => r.status === "fulfilled" ? r.value : []);
  if (!addresses.length) {
    throw new EgressFailure(`dns: cannot resolve host '${hostname}': ${dnsReason(lookups)}`);
  }
  return addresses;
};

/** Why lookups found no address: no record (NXDOMAIN, or no A/AAAA), else the first lookup's failure. */
function dnsReason(lookups: PromiseSettledResult<string[]>[]): string {
  const failed = lookups.find((r): r is PromiseRejectedResult =>
    r.status === "rejected" && !(r.reason instanceof Deno.errors.NotFound)
  );
  if (!failed) return "no A or AAAA record";
  return failed.reason instanceof Deno.errors.TimedOut
    ? "the lookup timed out"
    : `the lookup failed (${(failed.reason as Error).name})`;
}

/** Checks `target` against `policy`; throws {@link EgressBlocked} naming the rule, the resolver's failure as it is. */
export async function checkEgress(
  target: string,
  policy: EgressPolicy,
  resolve: Resolver,
): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new EgressBlocked(`'${target}' is not an absolute URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new EgressBlocked(`scheme '${url.protocol.replace(/:$/, "")}' is not http(s)`);
  }
  if (url.protocol === "http:" && !policy.allowInsecureHttp) {
    throw new EgressBlocked("cleartext http is not allowed (svc.effects.allow-insecure-http)");
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (!hostname) throw new EgressBlocked("the URL has no host");
  if (policy.allowedHosts && !hostAllowed(hostname, policy.allowedHosts)) {
    throw new EgressBlocked(`host '${hostname}' is not in svc.effects.allowed-hosts`);
  }
  // The URL parser already turned numeric forms (2130706433, 0x7f.1) into dotted IPv4.
  const addresses = isIpLiteral(hostname) ? [hostname] : await resolve(hostname);
  if (!policy.allowPrivateIps) {
    for (const address of addresses) {
      const range = blockedRange(address);
      if (range) {
        throw new EgressBlocked(
          `${hostname === address ? address : `'${hostname}' resolves to ${address}, which`} is ${range} ` +
            "(svc.effects.allow-private-ips)",
        );
      }
    }
  }
  return { url, hostname, addresses };
}
