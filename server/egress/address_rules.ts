/**
 * Which addresses outbound requests may reach (SPEC.md "Authentication" 10,
 * decisions/effects.md "Egress guard"): loopback, unspecified, private,
 * link-local, multicast, shared address space, benchmarking, reserved, IPv6
 * site-local and unique-local ranges are blocked; an IPv6 address that embeds
 * an IPv4 one (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4
 * 2002::/16) is judged by the IPv4 address it carries.
 *
 * @module
 */
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

const ranges = (table: [string, string][]): [Range, string][] =>
  table.map(([cidr, rule]) => [ipaddr.parseCIDR(cidr), rule]);

const BLOCKED_V4 = ranges([
  ["0.0.0.0/8", "unspecified"],
  ["127.0.0.0/8", "loopback"],
  ["10.0.0.0/8", "private"],
  ["172.16.0.0/12", "private"],
  ["192.168.0.0/16", "private"],
  ["169.254.0.0/16", "link-local"],
  ["100.64.0.0/10", "shared address space"],
  ["198.18.0.0/15", "benchmarking"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved"],
]);

const BLOCKED_V6 = ranges([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["fec0::/10", "site-local"],
  ["fe80::/10", "link-local"],
  ["fc00::/7", "unique-local"],
  ["ff00::/8", "multicast"],
]);

/** IPv6 ranges that carry an IPv4 address in their last 32 bits. */
const EMBEDDING_LOW32 = [
  ipaddr.parseCIDR("::ffff:0:0/96"),
  ipaddr.parseCIDR("::/96"),
  ipaddr.parseCIDR("64:ff9b::/96"),
];
/** 6to4 carries it in bits 16 to 48. */
const SIX_TO_FOUR = ipaddr.parseCIDR("2002::/16");

/** The IPv4 address an IPv6 address embeds, if it embeds one. */
function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const bytes = address.toByteArray();
  if (EMBEDDING_LOW32.some((range) => address.match(range))) return new ipaddr.IPv4(bytes.slice(12, 16));
  if (address.match(SIX_TO_FOUR)) return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

/** Whether `text` is an IP address literal (IPv6 with or without brackets). */
export function isIpLiteral(text: string): boolean {
  return ipaddr.isValid(text.replace(/^\[|\]$/g, ""));
}

/**
 * Why an address may not be reached (`"loopback"`, `"private"`, …), or null
 * when it is public.
 */
export function blockedRange(text: string): string | null {
  const address = ipaddr.parse(text.replace(/^\[|\]$/g, ""));
  if (address.kind() === "ipv4") {
    const v4 = address as ipaddr.IPv4;
    return BLOCKED_V4.find(([range]) => v4.match(range))?.[1] ?? null;
  }
  const v6 = address as ipaddr.IPv6;
  const own = BLOCKED_V6.find(([range]) => v6.match(range))?.[1];
  if (own) return own;
  const v4 = embeddedV4(v6);
  if (!v4) return null;
  const carried = BLOCKED_V4.find(([range]) => v4.match(range))?.[1];
  return carried ? `${carried} (embedded IPv4 ${v4.toString()})` : null;
}
