/**
 * The MCP surface: a thin adapter over {@link ModelApi} with the official SDK,
 * served over stdio ({@link serveMcpStdio}, `svc mcp`) and Streamable HTTP
 * ({@link createMcpHttpMount}, `/mcp` on the server).
 *
 * @module
 */
import type { ModelApi } from "../engine/service/api.ts";
import { createMcpServer, type McpServerOptions } from "./server.ts";
import { LineTransport } from "./stdio.ts";

export { type AuthoringEngine, localAuthoring } from "./authoring.ts";
export { type CommitEvents, serviceCommitEvents, websocketCommitEvents } from "./events.ts";
export { createMcpHttpMount, createServiceMcpMount, type McpHttpOptions, type McpMount } from "./http.ts";
export { RESULT_LIMIT_CHARS } from "./results.ts";
export { createMcpServer, INSTRUCTIONS, type McpServerOptions, PROTOCOL_VERSIONS } from "./server.ts";
export { TOOLS } from "./tools.ts";

/** Streams of a stdio session (the process's own by default). */
export interface StdioStreams {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}

/**
 * Serves MCP over stdio until the input ends. `api` is any {@link ModelApi}:
 * the in-process service (embedded mode) or a REST client (remote mode).
 */
export async function serveMcpStdio(
  api: ModelApi,
  options: McpServerOptions,
  streams: StdioStreams = { input: Deno.stdin.readable, output: Deno.stdout.writable },
): Promise<void> {
  const server = createMcpServer(api, options);
  const transport = new LineTransport(streams.input, streams.output);
  await server.connect(transport);
  await transport.finished;
  await server.close();
}
