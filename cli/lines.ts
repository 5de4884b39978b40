/**
 * Splits a byte stream into text lines (UTF-8, `\n` or `\r\n`).
 *
 * @module
 */

/** Yields each line of a byte stream, without its terminator. */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
    }
  }
  if (buffer.length) yield buffer.replace(/\r$/, "");
}
