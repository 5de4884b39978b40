/**
 * JSON-RPC errors as the SDK sends them: it answers a thrown error with its
 * numeric `code`, `message` and `data`. The SDK's own `McpError` prefixes the
 * message with "MCP error <code>: ", which the client's `McpError` prefixes
 * again; this error keeps the wire message as written.
 *
 * @module
 */
import { shortMessage } from "../engine/quoted.ts";

/** JSON-RPC's invalid-params code (the SDK's `ErrorCode.InvalidParams`; its enum is not loaded here). */
const INVALID_PARAMS = -32602;

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

/** A schema issue as zod reports it: where, and what is wrong there. */
export interface ParamsIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * The -32602 (invalid params) error for a request of `method` whose params
 * failed its schema, naming each bad member (`params.capabilities: …`),
 * rather than the SDK's -32603 with zod's issues dumped as JSON.
 */
export function invalidParams(method: string, issues: readonly ParamsIssue[]): ProtocolError {
  const detail = issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; ");
  return new ProtocolError(INVALID_PARAMS, `Invalid params for ${method}: ${detail}`);
}
