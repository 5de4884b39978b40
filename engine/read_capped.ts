/**
 * Reads a byte stream whole, up to a cap: the server's request bodies of
 * unknown length and a tab's effect answers are both refused as soon as they
 * pass theirs, without buffering the rest.
 *
 * @module
 */

/** The stream's bytes, or `undefined` (the stream cancelled) once it passes `max` bytes. */
export async function readCapped(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
