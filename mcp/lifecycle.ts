/**
 * The MCP lifecycle as the server holds a client to it: `initialize` comes
 * first and must be well formed. Over stdio nothing else enforces it (the SDK
 * server runs whatever it is sent), so a session's transport is wrapped: until
 * a valid `initialize` is received, requests other than `ping` are refused
 * with -32000, worded as `/mcp` refuses a request without a session, and
 * notifications are dropped. An `initialize` whose params fail the protocol's
 * schema gets -32602 naming the bad member, at any time and on both
 * transports (the `/mcp` mount answers a sessionless one itself, with
 * {@link sessionlessRefusal}, as the SDK transport takes it for another request;
 * in a batch too, which the protocol forbids `initialize` in). Over stdio a
 * batch holding `initialize` is answered as `/mcp` answers it without a
 * session, member by member, and opens nothing; once initialized, only its
 * `initialize` is refused ({@link batchedInitializeRefusal}), on `/mcp` in a
 * session too (./http_post.ts). A well-formed `initialize` sent alone once
 * initialized gets -32600 "Server already initialized" with its id, on both
 * ({@link reinitializeRefusal}): the SDK server would run it again over stdio.
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
import {
  InitializeRequestSchema,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, invalidRequest } from "./invalid_request.ts";
import { invalidParams } from "./protocol_error.ts";
import { type BatchExtra, receivingTransport } from "./received.ts";

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
  if (!isInitializeCall(message)) return undefined;
  const parsed = InitializeRequestSchema.safeParse(message);
  if (parsed.success) return undefined;
  const error = invalidParams("initialize", parsed.error.issues);
  return errorMessage(message.id, error.code, error.message);
}

/** Whether `message` calls `initialize` (well formed or not): it has the method and an id. */
function isInitializeCall(message: unknown): message is { id: unknown } {
  const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
  return method === "initialize" && id !== undefined;
}

/** A well-formed `initialize` in a batch (the protocol has it sent alone; the SDK says "Only one initialization …"). */
const NOT_ALONE =
  "Invalid Request: initialize must be sent alone, not in a batch: its answer opens the session " +
  "the other requests need";

/**
 * The answer to a member of a batch refused for holding an `initialize`
 * request, as a session would give it: a malformed `initialize` its -32602,
 * a well-formed one -32600 (it must come alone), a member that is no message
 * -32600, another request -32000 with `noSession`; none to a notification or
 * a response.
 */
function refusedMember(member: unknown, noSession: string): JSONRPCMessage | undefined {
  if (isInitializeCall(member)) {
    return initializeRefusal(member) ?? errorMessage(member.id, -32600, NOT_ALONE);
  }
  const parsed = JSONRPCMessageSchema.safeParse(member);
  if (!parsed.success) return invalidRequest(member);
  return "method" in parsed.data && "id" in parsed.data
    ? errorMessage(parsed.data.id, NOT_INITIALIZED, noSession)
    : undefined;
}

/**
 * A well-formed `initialize` sent alone once initialized: the SDK's words on
 * `/mcp` (where it answered with id null, leaving the client's request
 * unanswered), then what to do.
 */
const ALREADY_INITIALIZED =
  "Invalid Request: Server already initialized: initialize is sent once, first; to start over, open a new " +
  "session (on /mcp an initialize without Mcp-Session-Id, over stdio a new process)";

/**
 * The refusal of an `initialize` request sent alone once a session is open,
 * with its id: -32600 ({@link ALREADY_INITIALIZED}; -32602 when malformed).
 * Undefined for any other message. Stdio and `/mcp` in a session answer alike.
 */
export function reinitializeRefusal(message: unknown): JSONRPCMessage | undefined {
  if (!isInitializeCall(message)) return undefined;
  return initializeRefusal(message) ?? errorMessage(message.id, -32600, ALREADY_INITIALIZED);
}

/**
 * The refusal of a batch member once a session is open: an `initialize`
 * call's (-32600, it must come alone; -32602 when malformed); undefined for
 * any other member, which runs. Stdio and `/mcp` in a session answer alike.
 */
export function batchedInitializeRefusal(member: unknown): JSONRPCMessage | undefined {
  return isInitializeCall(member) ? refusedMember(member, NOT_INITIALIZED_MESSAGE) : undefined;
}

/**
 * The answer to a POST body without a session that opened none, when it holds
 * an `initialize` request: a single one's -32602 ({@link initializeRefusal});
 * for a batch, an answer per member ({@link refusedMember}); `[]`'s -32600,
 * as stdio and a session answer it. Undefined for a body without an
 * `initialize` request.
 */
export function sessionlessRefusal(
  body: unknown,
  noSession: string,
): JSONRPCMessage | JSONRPCMessage[] | undefined {
  if (!Array.isArray(body)) return initializeRefusal(body);
  if (!body.length) return invalidRequest(null);
  if (!body.some(isInitializeCall)) return undefined;
  return body.flatMap((member) => refusedMember(member, noSession) ?? []);
}

/** `inner` holding its client to the lifecycle (see the module); connect the server to the result. */
export function lifecycleTransport(inner: Transport): Transport {
  let initialized = false;
  const answer = (message: JSONRPCMessage | undefined) => {
    if (message) inner.send(message).catch((err) => inner.onerror?.(err as Error));
  };
  return receivingTransport(inner, (message, extra, deliver) => {
    // A batch holding initialize opens no session, as on /mcp: before one, none of its members runs;
    // after, its initialize is refused and the rest run.
    if (
      (extra as BatchExtra | undefined)?.batch?.some(isInitializeCall) &&
      (!initialized || isInitializeCall(message))
    ) {
      return answer(
        initialized ? batchedInitializeRefusal(message) : refusedMember(message, NOT_INITIALIZED_MESSAGE),
      );
    }
    const refusal = initialized ? reinitializeRefusal(message) : initializeRefusal(message);
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
