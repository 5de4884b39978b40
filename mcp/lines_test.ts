/**
 * Reading lines: terminators, UTF-8 split across chunks, the line cap (an
 * over-long line stands as a {@link LineTooLong} and reading goes on), the
 * cost of a long line arriving in many chunks, and how the console and MCP
 * over stdio answer an over-long line.
 */
import assert from "node:assert/strict";
import { runConsole } from "../cli/console.ts";
import { ModelService } from "../engine/service/service.ts";
import { LineTooLong, MAX_LINE_BYTES, readLines } from "./lines.ts";
import { LineTransport } from "./stdio.ts";

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? new TextEncoder().encode(part) : part;
}

async function all<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

Deno.test("lines: \\n and \\r\\n, a character split across chunks, a last line without a terminator", async () => {
  const euro = new TextEncoder().encode("€");
  assert.deepEqual(
    await all(readLines(chunks("a\r\nb", "c\n\n", euro.subarray(0, 1), euro.subarray(1), "x\nlast"))),
    ["a", "bc", "", "€x", "last"],
  );
  assert.deepEqual(await all(readLines(chunks())), []);
  assert.equal(MAX_LINE_BYTES, 10 * 1024 * 1024);
});

Deno.test("a line over the cap is a LineTooLong, dropped as it comes; the next lines are read", async () => {
  const lines = await all(readLines(chunks("short\n0123456789", "0123456789\nafter\n", "x".repeat(30)), 16));
  assert.deepEqual(lines.slice(0, 1), ["short"]);
  assert.ok(lines[1] instanceof LineTooLong);
  assert.match((lines[1] as LineTooLong).message, /longer than 16 bytes/);
  assert.equal(lines[2], "after");
  assert.ok(lines[3] instanceof LineTooLong, "an unterminated last line over the cap too");
  assert.equal(lines.length, 4);
  // Exactly at the cap is a line.
  assert.deepEqual(await all(readLines(chunks("0123456789abcdef\n"), 16)), ["0123456789abcdef"]);
});

Deno.test("a long line in many small chunks is read in linear time", async () => {
  const size = 30 * 1024 * 1024;
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  async function* source() {
    for (let sent = 0; sent < size; sent += chunk.byteLength) yield chunk;
    yield new TextEncoder().encode("\n");
  }
  // The bytes searched and copied: a reader that searched or copied the line so far at every chunk touches
  // the line some 240 times over (480 chunks), a linear one each byte a few times.
  const proto = Uint8Array.prototype;
  const { indexOf, set, slice } = proto;
  let touched = 0;
  proto.indexOf = function (this: Uint8Array, value: number, from = 0) {
    touched += this.byteLength - from;
    return indexOf.call(this, value, from);
  } as typeof indexOf;
  proto.set = function (this: Uint8Array, array: ArrayLike<number>, offset?: number) {
    touched += array.length;
    return set.call(this, array, offset);
  } as typeof set;
  proto.slice = function (this: Uint8Array, start?: number, end?: number) {
    const part = slice.call(this, start, end);
    touched += part.byteLength;
    return part;
  } as typeof slice;
  let line: unknown;
  try {
    [line] = await all(readLines(source(), size));
  } finally {
    Object.assign(proto, { indexOf, set, slice });
  }
  assert.equal((line as string).length, size);
  assert.ok(touched <= 4 * size, `${touched} bytes searched or copied for a line of ${size}`);
});

Deno.test("the console and MCP over stdio answer an over-long line with an error and go on", async () => {
  const service = await ModelService.open();
  try {
    const replies: string[] = [];
    const input = chunks("x".repeat(40) + "\n", '{"cmd":"list-models"}\n');
    await runConsole(service, readLines(input, 32), (line) => {
      replies.push(line);
      return Promise.resolve();
    });
    assert.deepEqual(replies.map((r) => JSON.parse(r)), [
      { ok: false, error: "Line ignored: it is longer than 32 bytes, the most one message may have" },
      { ok: true, result: [] },
    ]);
  } finally {
    await service.close();
  }
  const written: string[] = [];
  const transport = new LineTransport(
    { lines: readLines(chunks("y".repeat(60) + "\n", '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'), 48) },
    (bytes) => {
      written.push(new TextDecoder().decode(bytes));
      return Promise.resolve();
    },
  );
  const received: unknown[] = [];
  transport.onmessage = (message) => {
    received.push(message);
    void transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  };
  await transport.start();
  await transport.finished;
  assert.deepEqual(JSON.parse(written[0]).error, {
    code: -32700,
    message: "Parse error: Line ignored: it is longer than 48 bytes, the most one message may have",
  });
  assert.deepEqual(received, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
});
