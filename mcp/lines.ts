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

/** Yields each line of a byte stream (or any source of chunks), without its terminator. */
export async function* readLines(stream: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
    }
  }
  buffer += decoder.decode();
  if (buffer.length) yield buffer.replace(/\r$/, "");
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
