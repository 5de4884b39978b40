/**
 * Splits a byte stream into text lines (UTF-8, `\n` or `\r\n`), and the
 * process's standard input and output as plain reads and writes for the
 * line protocols (console, MCP over stdio).
 *
 * @module
 */

/** A line's text: without a leading byte-order mark (some tools write one) and surrounding white space. */
export function lineText(line: string): string {
  return line.replace(/^\uFEFF/, "").trim();
}

/** The longest line read (10 MiB, the server's JSON body limit): a longer one is dropped and answered with an error. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** Stands in for a line over the limit, whose bytes were dropped as they came: the protocol answers it with an error. */
export class LineTooLong {
  constructor(readonly limit: number) {}
  get message(): string {
    return `Line ignored: it is longer than ${this.limit} bytes, the most one message may have`;
  }
}

/** `parts` as one array. */
function joined(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.byteLength;
  }
  return bytes;
}

/**
 * Yields each line of a byte stream (or any source of chunks), without its
 * terminator; a line over `maxBytes` is a {@link LineTooLong}. Each chunk is
 * scanned once (a long line arriving in many chunks costs its length, not its
 * length times the chunk count), and bytes are decoded a line at a time (a
 * newline byte is never inside a UTF-8 sequence).
 */
export async function* readLines(
  stream: AsyncIterable<Uint8Array>,
  maxBytes: number = MAX_LINE_BYTES,
): AsyncGenerator<string | LineTooLong> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let size = 0;
  let overlong = false;
  const line = (): string | LineTooLong => {
    const text = overlong
      ? new LineTooLong(maxBytes)
      : decoder.decode(joined(parts, size)).replace(/\r$/, "");
    parts = [];
    size = 0;
    overlong = false;
    return text;
  };
  for await (const chunk of stream) {
    for (let start = 0; start <= chunk.byteLength;) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.byteLength : newline;
      if (!overlong && end > start) {
        size += end - start;
        // Copied: a source may reuse its buffer for the next chunk.
        if (size <= maxBytes) parts.push(chunk.slice(start, end));
        else {
          overlong = true;
          parts = [];
        }
      }
      if (newline < 0) break;
      yield line();
      start = newline + 1;
    }
  }
  if (size > 0 || overlong) yield line();
}

/**
 * Standard input as chunks, read without web streams: `Deno.stdin.readable`
 * (and `Deno.stdout.writable`) load Deno's streams implementation at start,
 * about 5 ms of the 100 ms a console or MCP client waits for its first answer.
 */
export async function* stdinChunks(): AsyncGenerator<Uint8Array> {
  const buffer = new Uint8Array(64 * 1024);
  for (;;) {
    const n = await Deno.stdin.read(buffer);
    if (n === null) return;
    yield buffer.slice(0, n);
  }
}

/** Writes all of `bytes` to standard output (one write may take part of them). */
export async function writeStdout(bytes: Uint8Array): Promise<void> {
  for (let written = 0; written < bytes.byteLength;) {
    written += await Deno.stdout.write(bytes.subarray(written));
  }
}
