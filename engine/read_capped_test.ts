import assert from "node:assert/strict";
import { readCapped } from "./read_capped.ts";

function streamOf(chunks: string[]): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  const queue = chunks.map((c) => new TextEncoder().encode(c));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

Deno.test("readCapped: chunks joined up to the cap; past it undefined, the stream cancelled at once", async () => {
  const exact = streamOf(["ab", "cd"]);
  assert.equal(new TextDecoder().decode(await readCapped(exact.stream, 4)), "abcd");
  assert.equal(exact.cancelled(), false);
  const over = streamOf(["ab", "cde", "never read"]);
  assert.equal(await readCapped(over.stream, 4), undefined);
  assert.equal(over.cancelled(), true);
  assert.deepEqual(await readCapped(streamOf([]).stream, 0), new Uint8Array());
});
