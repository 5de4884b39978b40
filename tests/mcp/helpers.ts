/**
 * MCP test helpers: the SDK's own `Client` connected to the real CLI process
 * (`deno run -A cli/main.ts mcp`, stdio) or to the real server's `/mcp`
 * (Streamable HTTP); raw JSON-RPC exchanges for what a client library hides
 * (negotiation, malformed input, batches); and JSON Schema validation of
 * structured results with ajv.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type {
  CallToolResult,
  ClientCapabilities,
  ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { LineTransport } from "../../mcp/stdio.ts";
import assert from "node:assert/strict";
import { call, CLI_MAIN, orderSpec as serverOrderSpec } from "../server/helpers.ts";

/** A connected client and what it received unasked. */
export interface Connected {
  client: Client;
  /** Every server notification, in arrival order. */
  notifications: ServerNotification[];
  /** Resolves with the first notification matching `predicate` (already received ones count). */
  waitFor(predicate: (n: ServerNotification) => boolean, timeoutMs?: number): Promise<ServerNotification>;
  close(): Promise<void>;
}

function observe(client: Client, close: () => Promise<void>): Connected {
  const notifications: ServerNotification[] = [];
  const waiters: {
    predicate: (n: ServerNotification) => boolean;
    resolve: (n: ServerNotification) => void;
  }[] = [];
  client.fallbackNotificationHandler = (notification) => {
    const n = notification as ServerNotification;
    notifications.push(n);
    for (const w of waiters.splice(0)) {
      if (w.predicate(n)) w.resolve(n);
      else waiters.push(w);
    }
    return Promise.resolve();
  };
  return {
    client,
    notifications,
    waitFor(predicate, timeoutMs = 5000) {
      const seen = notifications.find(predicate);
      if (seen) return Promise.resolve(seen);
      const { promise, resolve, reject } = Promise.withResolvers<ServerNotification>();
      const timer = setTimeout(() => reject(new Error("timed out waiting for a notification")), timeoutMs);
      waiters.push({
        predicate,
        resolve: (n) => {
          clearTimeout(timer);
          resolve(n);
        },
      });
      return promise;
    },
    close,
  };
}

/** Logging notifications are routed to the fallback handler only without a dedicated handler. */
function newClient(capabilities: ClientCapabilities = {}): Client {
  return new Client({ name: "svc-tests", version: "1.0.0" }, { capabilities });
}

/** A running `svc mcp` process with its stdio as byte streams. */
export interface McpProcess {
  child: Deno.ChildProcess;
  /** stderr so far. */
  stderr(): string;
  /** Everything the process wrote to stdout so far (only with `connectStdio`). */
  stdout(): string;
  /** Closes stdin and waits for the exit code. */
  stop(): Promise<number>;
}

/** Starts `deno run -A cli/main.ts mcp [...args]` with piped stdio. */
export function startMcpProcess(args: string[] = [], env: Record<string, string> = {}): McpProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, "mcp", ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  let stderr = "";
  const drained = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  let stopping: Promise<number> | undefined;
  return {
    child,
    stderr: () => stderr,
    stdout: () => "",
    stop: () =>
      stopping ??= (async () => {
        await child.stdin.close().catch(() => {});
        const { code } = await child.status;
        await drained;
        return code;
      })(),
  };
}

/** The SDK client over the real CLI process. */
export async function connectStdio(
  args: string[] = [],
  env: Record<string, string> = {},
  /** What the client declares (`{elicitation: {url: {}}}` for URL-mode elicitation). */
  capabilities: ClientCapabilities = {},
): Promise<Connected & { process: McpProcess }> {
  const started = startMcpProcess(args, env);
  // A copy of stdout, to check what the process wrote besides what the client decoded.
  const [forClient, copy] = started.child.stdout.tee();
  let stdout = "";
  const copied = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of copy) stdout += decoder.decode(chunk, { stream: true });
  })();
  const process: McpProcess = {
    ...started,
    stdout: () => stdout,
    stop: async () => {
      const code = await started.stop();
      await copied;
      return code;
    },
  };
  const transport = new LineTransport(forClient, started.child.stdin);
  const client = newClient(capabilities);
  await client.connect(transport);
  const connected = observe(client, async () => {
    await client.close();
    await process.stop();
  });
  return { ...connected, process };
}

/** The SDK client over Streamable HTTP at `<base>/mcp`. */
export async function connectHttp(base: string, headers: Record<string, string> = {}): Promise<
  Connected & { transport: StreamableHTTPClientTransport }
> {
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", base), { requestInit: { headers } });
  const client = newClient();
  await client.connect(transport);
  const connected = observe(client, async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
  });
  return { ...connected, transport };
}

/** Parses the text block of a tool result. */
export function textOf(result: CallToolResult): unknown {
  const block = result.content[0];
  if (block?.type !== "text") throw new Error("no text block");
  return JSON.parse(block.text);
}

const ajv = new Ajv2020({ strict: false, allErrors: true });

/** Validates `value` against a JSON Schema; returns the errors (empty when valid). */
export function schemaErrors(schema: object, value: unknown): string[] {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/**
 * A raw JSON-RPC exchange with a fresh `svc mcp` process: writes the lines,
 * reads `expected` answers; without `expected`, closes stdin at once and reads
 * everything the process writes before it exits (so that a line never written
 * is seen to be missing).
 */
export async function rawStdio(lines: string[], expected = Infinity): Promise<Record<string, unknown>[]> {
  const process = startMcpProcess();
  const writer = process.child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.map((l) => l + "\n").join("")));
  if (expected === Infinity) await writer.close();
  const out: Record<string, unknown>[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = process.child.stdout.getReader();
  while (out.length < expected) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      out.push(JSON.parse(buffer.slice(0, newline)));
      buffer = buffer.slice(newline + 1);
    }
  }
  if (expected !== Infinity) await writer.close();
  await reader.cancel();
  await process.stop();
  return out;
}

/** An `initialize` request line asking for `protocolVersion`. */
export function initializeMessage(protocolVersion: string, id: number | string = 1): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1.0.0" } },
  };
}

/** The headers a Streamable HTTP POST needs. */
export const POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** Opens a `/mcp` session on the server at `url`: the headers of its later POSTs. */
export async function openSession(url: string): Promise<Record<string, string>> {
  const init = await call(url, "POST", "/mcp", initializeMessage("2025-06-18"), POST_HEADERS);
  assert.equal(init.status, 200);
  return {
    ...POST_HEADERS,
    "mcp-session-id": init.headers.get("mcp-session-id")!,
    "mcp-protocol-version": "2025-06-18",
  };
}

/** The server tests' order spec (qty, price, total, constraints, a caller effect) with a view. */
export function orderSpec(id = "order"): Record<string, unknown> {
  return {
    ...serverOrderSpec(id),
    viewDefinition: {
      defaultView: "main",
      views: [{
        id: "main",
        components: [{ id: "qty", type: "numericStepper", label: "Qty", bind: "$.qty" }],
      }],
    },
  };
}
