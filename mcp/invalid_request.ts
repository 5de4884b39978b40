/**
 * JSON-RPC 2.0 error answers to input that never became a message (SPEC.md
 * "MCP over stdio", "MCP over HTTP"): both transports answer a member that is
 * no JSON-RPC 2.0 message with -32600, echoing its id when it has a valid one.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** A JSON-RPC error answer to a line or member that could not be handled. */
export function errorMessage(id: unknown, code: number, message: string): JSONRPCMessage {
  const validId = typeof id === "string" || typeof id === "number" ? id : null;
  return { jsonrpc: "2.0", id: validId, error: { code, message } } as unknown as JSONRPCMessage;
}

/** The answer to a member that is not a JSON-RPC 2.0 message. */
export function invalidRequest(item: unknown): JSONRPCMessage {
  const id = (item as { id?: unknown } | null)?.id;
  return errorMessage(id, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message");
}
