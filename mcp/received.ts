/**
 * A transport wrapper that changes only what the server receives: the
 * negotiation of the protocol version (mcp/negotiation.ts) and the lifecycle
 * gate (mcp/lifecycle.ts) each see a message before the SDK server does.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";

/**
 * What a transport that reads batches itself (stdio's) tells of a message
 * from one: its batch, as read (the lifecycle gate answers a batch holding
 * `initialize` as `/mcp` does).
 */
export interface BatchExtra extends MessageExtraInfo {
  batch?: readonly unknown[];
}

/** Hands a message on to the server. */
export type Deliver = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

/**
 * `inner` with every message it receives passed to `receive`, which hands on
 * what the server should see with `deliver`; everything else is `inner`'s.
 */
export function receivingTransport(
  inner: Transport,
  receive: (message: JSONRPCMessage, extra: MessageExtraInfo | undefined, deliver: Deliver) => void,
): Transport {
  const outer: Transport = {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    get sessionId() {
      return inner.sessionId;
    },
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
  };
  const deliver: Deliver = (message, extra) => outer.onmessage?.(message, extra);
  inner.onmessage = (message, extra) => receive(message, extra, deliver);
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (error) => outer.onerror?.(error);
  return outer;
}
