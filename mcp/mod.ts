/**
 * The MCP surface: the operations' MCP bindings served with the official SDK,
 * served over stdio ({@link serveLazyMcpStdio}, `svc mcp`) and Streamable HTTP
 * ({@link createMcpHttpMount}, `/mcp` on the server).
 *
 * @module
 */
export { type CommitEvents, serviceCommitEvents, websocketCommitEvents } from "./events.ts";
export {
  createMcpHttpMount,
  createServiceMcpMount,
  type McpHttpOptions,
  type McpMount,
  type McpSessionFactory,
  type McpSessionTarget,
  type SelfFetch,
} from "./http.ts";
export { RESULT_LIMIT_CHARS } from "./results.ts";
export { INSTRUCTIONS } from "./handshake.ts";
export { createMcpServer, type McpServerOptions, type McpSession, PROTOCOL_VERSIONS } from "./server.ts";
export { TOOLS, toolsFor } from "./tools.ts";

export { serveLazyMcpStdio } from "./lazy.ts";
