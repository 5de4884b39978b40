/**
 * Protocol version negotiation (SPEC.md "Versioning"): the server echoes the
 * client's requested version when it is one of the four this service speaks,
 * otherwise it answers with the newest. The SDK echoes every version it knows
 * (including ones this service does not support), so a transport wrapper
 * rewrites an `initialize` request asking for anything else to the newest
 * version before the SDK sees it; everything else passes through unchanged.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { receivingTransport } from "./received.ts";

/** Protocol versions negotiated, newest first. */
export const PROTOCOL_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/** The version answered to a client that asked for `requested`. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : PROTOCOL_VERSIONS[0];
}

/** An `initialize` request asks for a version this service speaks; any other message is itself. */
function negotiated(message: JSONRPCMessage): JSONRPCMessage {
  if (!("method" in message) || message.method !== "initialize" || !("id" in message)) return message;
  const params = (message.params ?? {}) as Record<string, unknown>;
  const version = negotiateVersion(params.protocolVersion);
  return version === params.protocolVersion
    ? message
    : { ...message, params: { ...params, protocolVersion: version } };
}

/** `inner` with version negotiation applied to what it receives; connect the server to the result. */
export function negotiatingTransport(inner: Transport): Transport {
  return receivingTransport(inner, (message, extra, deliver) => deliver(negotiated(message), extra));
}
