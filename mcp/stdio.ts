/**
 * MCP over stdio (SPEC.md "MCP over stdio"): newline-delimited JSON-RPC 2.0 on
 * web streams, one message per line; a leading byte order mark is tolerated;
 * a line that is not JSON gets a parse error (-32700) and a JSON value that is
 * not a JSON-RPC message an invalid-request error (-32600). Only protocol
 * messages are written; diagnostics go to the caller's error sink.
 *
 * A batch (a JSON array, which protocol versions before 2025-06-18 allow) is
 * answered as JSON-RPC 2.0 requires: one array line holding the answers to its
 * requests and its invalid members, written once the last of them is answered
 * (or cancelled); an empty array, or one of more than the SDK's HTTP cap of
 * 100 members, gets one invalid-request error, as on HTTP. Its members are
 * handed on with the batch (`extra.batch`): the lifecycle gate answers one
 * holding `initialize` as `/mcp` does.
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
// @ts-types="@modelcontextprotocol/sdk/server/requestBody"
import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage, invalidRequest } from "./invalid_request.ts";
import { lineText, LineTooLong, readLines } from "./lines.ts";
import type { BatchExtra } from "./received.ts";

/** Where a transport's lines go: a byte stream, or a function writing all of the bytes it is given. */
export type LineOutput = WritableStream<Uint8Array> | ((bytes: Uint8Array) => Promise<void>);

/** Input already split into lines (the rest of a stream whose first lines were read elsewhere). */
export interface LineInput {
  lines: AsyncGenerator<string | LineTooLong>;
}

type RequestId = string | number;

/** A batch read and not yet answered: the requests it waits for and the answers gathered. */
interface PendingBatch {
  waiting: Map<RequestId, number>;
  answers: JSONRPCMessage[];
}

/** The id a message answers, or undefined when it is a request or a notification. */
const answeredId = (message: JSONRPCMessage) =>
  "id" in message && !("method" in message) ? message.id as RequestId : undefined;

/** A transport over a source of bytes split into lines, and a line output. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: BatchExtra) => void;
  readonly #input: AsyncIterable<Uint8Array> | LineInput;
  readonly #write: (bytes: Uint8Array) => Promise<void>;
  readonly #release: () => Promise<void>;
  readonly #encoder = new TextEncoder();
  #reader?: AsyncGenerator<string | LineTooLong>;
  #closed = false;
  /** Requests read and not yet answered, by id (a client may reuse an id). */
  readonly #unanswered = new Map<RequestId, number>();
  /** Batches waiting for answers, oldest first. */
  readonly #batches: PendingBatch[] = [];
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
      if (Array.isArray(parsed)) await this.#dispatchBatch(parsed);
      else await this.#dispatch(parsed);
    }
    if (this.#unanswered.size) await new Promise<void>((resolve) => this.#onAnswered = resolve);
  }

  /** One message: handed on when it is JSON-RPC, else answered with an invalid-request error. */
  async #dispatch(item: unknown): Promise<void> {
    const message = JSONRPCMessageSchema.safeParse(item);
    if (!message.success) return await this.send(invalidRequest(item));
    this.#track(message.data);
    this.onmessage?.(message.data);
  }

  /** A batch's messages handed on one by one; their answers are gathered into one array line. */
  async #dispatchBatch(items: unknown[]): Promise<void> {
    if (!items.length) return await this.send(invalidRequest(null));
    // The cap and the answer of the SDK's HTTP transport (JSON-RPC sets none), so a batch fares alike on both.
    if (items.length > MAX_BATCH_SIZE) {
      const message = `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`;
      return await this.send(errorMessage(null, ErrorCode.InvalidRequest, message));
    }
    const batch: PendingBatch = { waiting: new Map(), answers: [] };
    const messages: JSONRPCMessage[] = [];
    for (const item of items) {
      const message = JSONRPCMessageSchema.safeParse(item);
      if (!message.success) batch.answers.push(invalidRequest(item));
      else {
        messages.push(message.data);
        if ("method" in message.data && "id" in message.data) {
          batch.waiting.set(message.data.id, (batch.waiting.get(message.data.id) ?? 0) + 1);
        }
      }
    }
    // Registered before any message is handed on, so that no answer can miss its batch.
    this.#batches.push(batch);
    for (const message of messages) {
      this.#track(message);
      this.onmessage?.(message, { batch: items });
    }
    await this.#flushIfAnswered(batch);
  }

  /** The batch waiting for an answer to `id`, oldest first. */
  #batchOf(id: RequestId): PendingBatch | undefined {
    return this.#batches.find((batch) => batch.waiting.has(id));
  }

  /** Counts off one awaited answer of `batch`. */
  #settle(batch: PendingBatch, id: RequestId): void {
    const count = batch.waiting.get(id)!;
    if (count > 1) batch.waiting.set(id, count - 1);
    else batch.waiting.delete(id);
  }

  /** Writes a batch's answers once none is awaited (nothing when it held only notifications). */
  async #flushIfAnswered(batch: PendingBatch): Promise<void> {
    if (batch.waiting.size) return;
    this.#batches.splice(this.#batches.indexOf(batch), 1);
    if (batch.answers.length) await this.#writeLine(batch.answers);
  }

  /** Counts a request read; a cancellation ends the wait for its answer (none comes). */
  #track(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message) {
      this.#unanswered.set(message.id, (this.#unanswered.get(message.id) ?? 0) + 1);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const batch = id === undefined ? undefined : this.#batchOf(id);
      if (batch) {
        this.#settle(batch, id!);
        // Not awaited: the reader must not wait for a write while the batch's last answer is written.
        this.#flushIfAnswered(batch).catch((err) => this.onerror?.(err as Error));
      }
      this.#answered(id);
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
    const id = answeredId(message);
    const batch = id === undefined ? undefined : this.#batchOf(id);
    try {
      if (!batch) return await this.#writeLine(message);
      batch.answers.push(message);
      this.#settle(batch, id!);
      await this.#flushIfAnswered(batch);
    } finally {
      this.#answered(id);
    }
  }

  async #writeLine(value: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    if (this.#closed) return;
    // JSON.stringify escapes newlines inside strings, so one message is one line.
    await this.#write(this.#encoder.encode(JSON.stringify(value) + "\n"));
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
