/**
 * The MCP surface: the operations' MCP bindings served with the official SDK,
 * served over stdio ({@link serveMcpStdio}, `svc mcp`) and Streamable HTTP
 * ({@link createMcpHttpMount}, `/mcp` on the server).
 *
 * @module
 */
import type { Invoker } from "../engine/operations/invoker.ts";
import type { ModelApi } from "../engine/service/api.ts";
import { createMcpServer, type McpServerOptions } from "./server.ts";
import { stdinChunks, writeStdout } from "./lines.ts";
import { type LineOutput, LineTransport } from "./stdio.ts";

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
export {
  createMcpServer,
  INSTRUCTIONS,
  type McpServerOptions,
  type McpSession,
  PROTOCOL_VERSIONS,
} from "./server.ts";
export { TOOLS, toolsFor } from "./tools.ts";

/** Input and output of a stdio session (the process's own by default). */
export interface StdioStreams {
  input: AsyncIterable<Uint8Array>;
  output: LineOutput;
}

/**
 * Serves MCP over stdio until the input ends, over an in-process
 * {@link ModelApi} or an {@link Invoker} (the remote client in remote mode).
 */
export async function serveMcpStdio(
  target: ModelApi | Invoker,
  options: McpServerOptions,
  streams: StdioStreams = { input: stdinChunks(), output: writeStdout },
): Promise<void> {
  const session = createMcpServer(target, options);
  const transport = new LineTransport(streams.input, streams.output);
  await session.connect(transport);
  await transport.finished;
  await session.server.close();
}
