import assert from "node:assert/strict";
import { cancellingFetch } from "./providers.ts";

Deno.test("an abort after the answer began cancels its body (a hung provider's connection is closed)", async () => {
  let cancelled = false;
  // A provider that sends headers and then nothing: only a cancelled body ends it.
  const hung = () =>
    Promise.resolve(
      new Response(new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) }), {
        status: 200,
      }),
    );
  const call = new AbortController();
  const response = await cancellingFetch(hung)("http://provider.invalid/", { signal: call.signal });
  assert.equal(response.status, 200);
  const reading = response.body!.getReader().read();
  call.abort();
  await assert.rejects(reading);
  assert.equal(cancelled, true);
});

Deno.test("without a signal the answer is passed on as it is", async () => {
  const answer = new Response("{}", { status: 201 });
  assert.equal(await cancellingFetch(() => Promise.resolve(answer))("http://provider.invalid/"), answer);
});
