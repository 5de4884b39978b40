/**
 * The `initialize` handshake from static data: what the server says about
 * itself (name, version, capabilities, instructions), shared by the SDK server
 * (mcp/server.ts) and the lazy stdio front (mcp/lazy.ts), which answers a
 * plain `initialize` before the engine, the operations and the SDK are
 * loaded. Nothing here imports the SDK at run time.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import { negotiateVersion } from "./negotiation.ts";

/** The server's `serverInfo`. */
export const SERVER_INFO = { name: SERVICE_NAME, version: SERVICE_VERSION };

/** The server's capabilities, as `initialize` announces them. */
export const SERVER_CAPABILITIES = { tools: {}, resources: { subscribe: true }, logging: {} };

/** Usage instructions returned by `initialize`: the agent loop. */
export const INSTRUCTIONS =
  `This server hosts reactive models. A model is created from a declarative ModelSpec (JSON \
Schema of base fields, JSONata derivations, meta derivations, constraints, effects, tests, views); after every write \
it recomputes derived values, checks constraints and commits or rolls back as a whole.

The loop:
1. Author a spec. Read svc://guide/model-spec-format and svc://guide/jsonata-gotchas, look at svc://examples/*, \
ask get_domain_guidance for worked patterns. Try expressions with eval_expression.
2. Check before registering: validate_spec, then test_spec (embedded tests or ad-hoc cases), then dry_run with \
sample mutations. These never change the registry.
3. create_model, then write only base fields with mutate ({"$.qty": 3}) or patch_model (RFC 6902, for array \
insert/remove/reorder). Derived fields are read-only.
4. Read the merged state with get_state (narrow large documents with paths and depth) or get_field; \
get_effective_schema shows live meta values.
5. explain a field or $constraint:<id> to see the expressions, inputs and results behind a value.
6. Change a live model with evolve_spec (svc://guide/spec-evolution; pass expectedVersion), state carried forward.
Addresses are canonical JSON Path ($.items[0].qty). Failures come back as isError results with a structured body: \
a rolled-back constraint, a schema violation, a version conflict. Subscribe to svc://state/<modelId> to hear about \
commits.`;

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}

function optionalString(object: Plain, key: string): boolean {
  return object[key] === undefined || typeof object[key] === "string";
}

/** Client capabilities whose every member the SDK's schema certainly accepts (known members, simple shapes). */
function plainCapabilities(capabilities: unknown): boolean {
  if (!isPlainObject(capabilities)) return false;
  return Object.entries(capabilities).every(([key, value]) => {
    if (!isPlainObject(value)) return false;
    switch (key) {
      case "roots":
        return Object.keys(value).every((k) => k === "listChanged" && typeof value[k] === "boolean");
      case "sampling":
        return Object.keys(value).every((k) => (k === "context" || k === "tools") && isPlainObject(value[k]));
      case "elicitation":
        return Object.keys(value).every((k) => (k === "form" || k === "url") && isEmptyObject(value[k]));
      case "experimental":
      case "extensions":
        return Object.values(value).every(isPlainObject);
      default:
        return false;
    }
  });
}

/**
 * Whether `message` is an `initialize` request that the SDK server would
 * certainly accept and answer with {@link initializeResult}: a plain request
 * with a client name and version and simple capabilities. Anything unusual
 * (metadata, icons, task capabilities, a malformed member) is left to the SDK
 * server, which answers it as it always has.
 */
export function isPlainInitialize(message: unknown): message is JSONRPCMessage & { id: string | number } {
  if (!isPlainObject(message)) return false;
  const { jsonrpc, id, method, params } = message;
  if (Object.keys(message).some((key) => !["jsonrpc", "id", "method", "params"].includes(key))) return false;
  if (jsonrpc !== "2.0" || method !== "initialize" || !isPlainObject(params)) return false;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (params._meta !== undefined || typeof protocolVersion !== "string") return false;
  return isPlainObject(clientInfo) && typeof clientInfo.name === "string" &&
    typeof clientInfo.version === "string" && clientInfo.icons === undefined &&
    ["title", "websiteUrl", "description"].every((key) => optionalString(clientInfo, key)) &&
    plainCapabilities(capabilities);
}

/**
 * The answer to a plain `initialize` request (see {@link isPlainInitialize}),
 * member for member as the SDK server writes it: the negotiated version, the
 * capabilities, the server's name and version, the instructions.
 */
export function initializeAnswer(request: { id: string | number; params?: Plain }): JSONRPCMessage {
  return {
    result: {
      protocolVersion: negotiateVersion(request.params?.protocolVersion),
      capabilities: SERVER_CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    },
    jsonrpc: "2.0",
    id: request.id,
  } as JSONRPCMessage;
}
