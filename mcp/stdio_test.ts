import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport } from "./stdio.ts";

const encoder = new TextEncoder();

/** The given lines as input, then its end. */
async function* linesOf(lines: unknown[]): AsyncGenerator<Uint8Array> {
  for (const line of lines) yield encoder.encode(JSON.stringify(line) + "\n");
}

/** Runs a transport whose peer answers `ping` after a tick and never answers `slow`; the lines written. */
async function served(input: unknown[]): Promise<unknown[]> {
  const written: unknown[] = [];
  const decoder = new TextDecoder();
  const transport = new LineTransport(linesOf(input), (bytes) => {
    written.push(JSON.parse(decoder.decode(bytes)));
    return Promise.resolve();
  });
  transport.onmessage = (message) => {
    if ("method" in message && message.method === "ping" && "id" in message) {
      setTimeout(() => transport.send({ jsonrpc: "2.0", id: message.id, result: {} } as JSONRPCMessage), 5);
    }
  };
  await transport.start();
  await transport.finished;
  return written;
}

const request = (id: number, method: string) => ({ jsonrpc: "2.0", id, method });

Deno.test("a batch waits for all of its answers and writes them as one array", async () => {
  const written = await served([[request(1, "ping"), request(2, "ping")], request(3, "ping")]);
  assert.equal(written.length, 2);
  const batch = written.find(Array.isArray) as { id: number }[];
  assert.deepEqual(batch.map((a) => a.id).sort(), [1, 2]);
  assert.deepEqual(written.find((line) => !Array.isArray(line)), { jsonrpc: "2.0", id: 3, result: {} });
});

Deno.test("a cancelled request of a batch is left out of its array; a batch of one cancelled request writes nothing", async () => {
  const cancel = (id: number) => ({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: id },
  });
  const written = await served([
    [request(1, "ping"), request(2, "slow")],
    cancel(2),
    [request(4, "slow")],
    cancel(4),
  ]);
  assert.deepEqual(written, [[{ jsonrpc: "2.0", id: 1, result: {} }]]);
});

Deno.test("a batch of notifications and invalid members is answered at once with the errors only", async () => {
  const written = await served([[{ jsonrpc: "2.0", method: "notifications/initialized" }, 7, { id: "x" }]]);
  assert.deepEqual(
    (written[0] as { id: unknown; error: { code: number } }[]).map((a) => [a.id, a.error.code]),
    [[null, -32600], ["x", -32600]],
  );
  assert.equal(written.length, 1);
});
