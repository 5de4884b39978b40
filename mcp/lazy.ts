/**
 * MCP over stdio with the server loaded after the handshake: an MCP client
 * waits for the answer to `initialize` before anything else, and that answer
 * is static data (mcp/handshake.ts). The lazy front answers a plain
 * `initialize` at once, then loads the real session (the engine, the
 * operations, the SDK server) and replays the handshake to it, so its state
 * (the client's capabilities, the negotiated version) is what it would have
 * been; its own answer to the replayed `initialize` is not sent again. Lines
 * that arrive meanwhile wait unread in the input and are then handled in
 * order, as the eager server would have handled them. Anything else as the
 * first line (or an unusual `initialize`) goes to the real server as it is.
 *
 * When loading fails, every request gets a JSON-RPC internal error (-32603)
 * naming the cause, until the input ends.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { initializeAnswer, isPlainInitialize } from "./handshake.ts";
import { lineText, type LineTooLong, readLines } from "./lines.ts";
import type { McpSession } from "./server.ts";
import type { LineOutput, LineTransport } from "./stdio.ts";

/** JSON-RPC's internal error code (the SDK's `ErrorCode.InternalError`). */
const INTERNAL_ERROR = -32603;

/** Options of {@link serveLazyMcpStdio}. */
export interface LazyStdioOptions {
  /** Loads the real session (called once, after the handshake was answered or when the first line needs it). */
  load: () => Promise<McpSession>;
  input: AsyncIterable<Uint8Array>;
  output: LineOutput;
  /** Diagnostics (never protocol output). */
  onError?: (error: Error) => void;
}

/** Writes one line to the output (a stream is locked only for the write: the transport takes it over later). */
async function writeLine(output: LineOutput, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text + "\n");
  if (typeof output === "function") return await output(bytes);
  const writer = output.getWriter();
  try {
    await writer.write(bytes);
  } finally {
    writer.releaseLock();
  }
}

/** `first` (when given) followed by the rest of `lines`. */
async function* prepend<T>(first: T | undefined, lines: AsyncGenerator<T>): AsyncGenerator<T> {
  if (first !== undefined) yield first;
  yield* lines;
}

function parsed(line: string | LineTooLong): unknown {
  if (typeof line !== "string") return undefined;
  try {
    return JSON.parse(lineText(line));
  } catch {
    return undefined;
  }
}

/**
 * `inner` with `initialize` (already answered) delivered first when the
 * server connects; the server's answer to it is dropped.
 */
function replayingTransport(
  inner: Transport,
  initialize: JSONRPCMessage & { id: string | number },
): Transport {
  let replayed = false;
  const outer: Transport = {
    start: async () => {
      await inner.start();
      outer.onmessage?.(initialize);
    },
    send: (message, options) => {
      if (!replayed && "id" in message && message.id === initialize.id && !("method" in message)) {
        replayed = true;
        return Promise.resolve();
      }
      return inner.send(message, options);
    },
    close: () => inner.close(),
  };
  inner.onmessage = (message, extra) => outer.onmessage?.(message, extra);
  inner.onclose = () => outer.onclose?.();
  inner.onerror = (error) => outer.onerror?.(error);
  return outer;
}

/** Answers every request of `lines` with an internal error naming why the server is not there. */
async function answerFailures(
  lines: AsyncIterable<string | LineTooLong>,
  output: LineOutput,
  cause: Error,
): Promise<void> {
  const error = {
    code: INTERNAL_ERROR,
    message: `Internal error: the MCP server did not start: ${cause.message}`,
  };
  for await (const line of lines) {
    const messages = [parsed(line)].flat();
    for (const message of messages) {
      const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
      if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) {
        await writeLine(output, JSON.stringify({ jsonrpc: "2.0", id, error }));
      }
    }
  }
}

/** Serves MCP over stdio until the input ends, loading the real server only after the handshake is answered. */
export async function serveLazyMcpStdio(options: LazyStdioOptions): Promise<void> {
  const lines = readLines(options.input);
  const first = await lines.next();
  if (first.done) return;
  const message = parsed(first.value);
  const early = isPlainInitialize(message) ? message : undefined;
  if (early) await writeLine(options.output, JSON.stringify(initializeAnswer(early)));
  const rest = prepend(early ? undefined : first.value, lines);
  let session: McpSession;
  let transport: LineTransport;
  try {
    session = await options.load();
    // The transport checks messages with the SDK's schemas: loaded with the server, not before the handshake.
    transport = new (await import("./stdio.ts")).LineTransport({ lines: rest }, options.output);
    await session.connect(early ? replayingTransport(transport, early) : transport);
  } catch (err) {
    options.onError?.(err as Error);
    await answerFailures(rest, options.output, err as Error);
    return;
  }
  await transport.finished;
  await session.server.close();
}
