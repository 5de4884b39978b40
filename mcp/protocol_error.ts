/**
 * JSON-RPC errors as the SDK sends them: it answers a thrown error with its
 * numeric `code`, `message` and `data`. The SDK's own `McpError` prefixes the
 * message with "MCP error <code>: ", which the client's `McpError` prefixes
 * again; this error keeps the wire message as written.
 *
 * @module
 */
import { shortMessage } from "../engine/quoted.ts";

/** A JSON-RPC error with a code (SPEC.md "Errors": -32002 unknown resource, -32602 bad params). */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(shortMessage(message));
    this.name = "ProtocolError";
    this.code = code;
    this.data = data;
  }
}
