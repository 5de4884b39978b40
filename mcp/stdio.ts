/**
 * MCP over stdio (SPEC.md "MCP over stdio"): newline-delimited JSON-RPC 2.0 on
 * web streams, one message per line; a leading byte order mark is tolerated;
 * a line that is not JSON gets a parse error (-32700) and a JSON value that is
 * not a JSON-RPC message an invalid-request error (-32600). Only protocol
 * messages are written; diagnostics go to the caller's error sink.
 *
 * The end of input closes the transport once every request read has been
 * answered (or cancelled): a client may pipe its requests and close stdin at
 * once.
 *
 * The SDK's own stdio transport reads Node streams, drops unparsable lines
 * without answering and never reports the end of input, hence this one.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { lineText, LineTooLong, readLines } from "./lines.ts";

/** A JSON-RPC error answer to a line that could not be handled. */
function errorMessage(id: unknown, code: number, message: string): JSONRPCMessage {
  const validId = typeof id === "string" || typeof id === "number" ? id : null;
  return { jsonrpc: "2.0", id: validId, error: { code, message } } as unknown as JSONRPCMessage;
}

/** Where a transport's lines go: a byte stream, or a function writing all of the bytes it is given. */
export type LineOutput = WritableStream<Uint8Array> | ((bytes: Uint8Array) => Promise<void>);

/** Input already split into lines (the rest of a stream whose first lines were read elsewhere). */
export interface LineInput {
  lines: AsyncGenerator<string | LineTooLong>;
}

type RequestId = string | number;

/** A transport over a source of bytes split into lines, and a line output. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #input: AsyncIterable<Uint8Array> | LineInput;
  readonly #write: (bytes: Uint8Array) => Promise<void>;
  readonly #release: () => Promise<void>;
  readonly #encoder = new TextEncoder();
  #reader?: AsyncGenerator<string | LineTooLong>;
  #closed = false;
  /** Requests read and not yet answered, by id (a client may reuse an id). */
  readonly #unanswered = new Map<RequestId, number>();
  /** Called when the last unanswered request is answered. */
  #onAnswered?: () => void;
  /** Resolves once input ended and every request read was answered, or the transport was closed. */
  readonly finished: Promise<void>;
  readonly #finish: () => void;

  constructor(input: AsyncIterable<Uint8Array> | LineInput, output: LineOutput) {
    this.#input = input;
    if (typeof output === "function") {
      this.#write = output;
      this.#release = () => Promise.resolve();
    } else {
      const writer = output.getWriter();
      this.#write = (bytes) => writer.write(bytes);
      this.#release = async () => {
        await writer.ready.catch(() => {});
        writer.releaseLock();
      };
    }
    const { promise, resolve } = Promise.withResolvers<void>();
    this.finished = promise;
    this.#finish = resolve;
  }

  start(): Promise<void> {
    this.#reader = "lines" in this.#input ? this.#input.lines : readLines(this.#input);
    this.#pump().catch((err) => this.onerror?.(err as Error)).finally(() => this.close());
    return Promise.resolve();
  }

  async #pump(): Promise<void> {
    for await (const raw of this.#reader!) {
      if (raw instanceof LineTooLong) {
        await this.send(errorMessage(null, ErrorCode.ParseError, `Parse error: ${raw.message}`));
        continue;
      }
      const line = lineText(raw);
      if (line === "") continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (err) {
        await this.send(errorMessage(null, ErrorCode.ParseError, `Parse error: ${(err as Error).message}`));
        continue;
      }
      // A batch is dispatched message by message; each answer is its own line.
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        const message = JSONRPCMessageSchema.safeParse(item);
        if (message.success) {
          this.#track(message.data);
          this.onmessage?.(message.data);
        } else {
          const id = (item as { id?: unknown } | null)?.id;
          await this.send(
            errorMessage(id, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message"),
          );
        }
      }
    }
    if (this.#unanswered.size) await new Promise<void>((resolve) => this.#onAnswered = resolve);
  }

  /** Counts a request read; a cancellation ends the wait for its answer (none comes). */
  #track(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) {
      this.#unanswered.set(message.id, (this.#unanswered.get(message.id) ?? 0) + 1);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      this.#answered((message.params as { requestId?: RequestId } | undefined)?.requestId);
    }
  }

  #answered(id: RequestId | undefined): void {
    const count = id === undefined ? undefined : this.#unanswered.get(id);
    if (count === undefined) return;
    if (count > 1) this.#unanswered.set(id!, count - 1);
    else this.#unanswered.delete(id!);
    if (!this.#unanswered.size) this.#onAnswered?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    try {
      // JSON.stringify escapes newlines inside strings, so one message is one line.
      await this.#write(this.#encoder.encode(JSON.stringify(message) + "\n"));
    } finally {
      if ("id" in message && !("method" in message)) this.#answered(message.id as RequestId);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#onAnswered?.();
    // Not awaited: a generator suspended on a read finishes its return only after that read.
    this.#reader?.return(undefined).catch(() => {});
    await this.#release();
    this.onclose?.();
    this.#finish();
  }
}
