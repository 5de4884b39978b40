/**
 * The MCP lifecycle as the server holds a client to it: `initialize` comes
 * first and must be well formed. Over stdio nothing else enforces it (the SDK
 * server runs whatever it is sent), so a session's transport is wrapped: until
 * a valid `initialize` is received, requests other than `ping` are refused
 * with -32000, worded as `/mcp` refuses a request without a session, and
 * notifications are dropped. An `initialize` whose params fail the protocol's
 * schema gets -32602 naming the bad member, at any time and on both
 * transports (the `/mcp` mount answers a sessionless one itself, with
 * {@link initializeRefusal}, as the SDK transport takes it for another request).
 *
 * The gate opens when a valid `initialize` arrives, not when it is answered:
 * a client that pipes its requests right after it is served in order, as
 * before.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { InitializeRequestSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "./invalid_request.ts";
import { invalidParams } from "./protocol_error.ts";
import { receivingTransport } from "./received.ts";

/** The code `/mcp` (and the SDK's HTTP transport) answers a request before `initialize` with. */
const NOT_INITIALIZED = -32000;

/** The refusal of a request before `initialize`: what is wrong, then what to do, as `/mcp` says it. */
export const NOT_INITIALIZED_MESSAGE =
  "Bad Request: initialize is required first: send initialize and wait for its answer " +
  "(only ping may come before it)";

/**
 * The -32602 answer to `message` when it is an `initialize` request whose
 * params fail the protocol's schema; undefined for anything else.
 */
export function initializeRefusal(message: unknown): JSONRPCMessage | undefined {
  const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
  if (method !== "initialize" || id === undefined) return undefined;
  const parsed = InitializeRequestSchema.safeParse(message);
  if (parsed.success) return undefined;
  const error = invalidParams("initialize", parsed.error.issues);
  return errorMessage(id, error.code, error.message);
}

/** `inner` holding its client to the lifecycle (see the module); connect the server to the result. */
export function lifecycleTransport(inner: Transport): Transport {
  let initialized = false;
  const answer = (message: JSONRPCMessage) => {
    inner.send(message).catch((err) => inner.onerror?.(err as Error));
  };
  return receivingTransport(inner, (message, extra, deliver) => {
    const refusal = initializeRefusal(message);
    if (refusal) return answer(refusal);
    if ("method" in message && message.method === "initialize") initialized = true;
    else if (!initialized && "method" in message && message.method !== "ping") {
      // A notification before initialize is dropped: there is no answer to refuse it with.
      if ("id" in message) answer(errorMessage(message.id, NOT_INITIALIZED, NOT_INITIALIZED_MESSAGE));
      return;
    }
    deliver(message, extra);
  });
}
