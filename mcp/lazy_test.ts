import assert from "node:assert/strict";
import { ModelService } from "../engine/service/service.ts";
import type { Invoker } from "../engine/operations/invoker.ts";
import { isPlainInitialize } from "./handshake.ts";
import { serveLazyMcpStdio } from "./lazy.ts";
import { createMcpServer, type McpSession } from "./server.ts";
import { LineTransport } from "./stdio.ts";

const encoder = new TextEncoder();

/** Input of the given messages (objects as JSON lines, strings as they are), then its end. */
async function* inputOf(messages: unknown[]): AsyncGenerator<Uint8Array> {
  for (const message of messages) {
    yield encoder.encode((typeof message === "string" ? message : JSON.stringify(message)) + "\n");
  }
}

/** An output collecting the lines written. */
function collector(): { lines: string[]; write: (bytes: Uint8Array) => Promise<void> } {
  const lines: string[] = [];
  const decoder = new TextDecoder();
  return {
    lines,
    write: (bytes) => {
      lines.push(...decoder.decode(bytes).split("\n").filter((line) => line !== ""));
      return Promise.resolve();
    },
  };
}

function initialize(params: Record<string, unknown>, id: string | number = 1) {
  return { jsonrpc: "2.0", id, method: "initialize", params };
}

const CLIENT = { name: "test", version: "1" };

/** What the eager server (the SDK server on the line transport from the start) writes for `messages`. */
async function eager(messages: unknown[]): Promise<string[]> {
  const service = await ModelService.open();
  try {
    const out = collector();
    const transport = new LineTransport(inputOf(messages), out.write);
    const session = createMcpServer(service, { mode: "embedded" });
    await session.connect(transport);
    await transport.finished;
    await session.server.close();
    return out.lines;
  } finally {
    await service.close();
  }
}

/** What the lazy front writes for `messages`, and whether the first line was written before loading began. */
async function lazy(messages: unknown[]): Promise<{ lines: string[]; answeredBeforeLoad: boolean }> {
  const service = await ModelService.open();
  try {
    const out = collector();
    let answeredBeforeLoad = false;
    await serveLazyMcpStdio({
      input: inputOf(messages),
      output: out.write,
      load: () => {
        answeredBeforeLoad = out.lines.length > 0;
        return Promise.resolve(createMcpServer(service, { mode: "embedded" }));
      },
    });
    return { lines: out.lines, answeredBeforeLoad };
  } finally {
    await service.close();
  }
}

Deno.test("the lazy front answers a plain initialize before loading, byte for byte as the SDK server does", async () => {
  const plain = [
    initialize({ protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT }),
    initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT }, "init-1"),
    initialize({
      protocolVersion: "2025-03-26",
      capabilities: { roots: { listChanged: true } },
      clientInfo: CLIENT,
    }),
    initialize({ protocolVersion: "2024-11-05", capabilities: { sampling: {} }, clientInfo: CLIENT }, 0),
    // A version this service does not speak: the newest is answered.
    initialize({ protocolVersion: "2024-10-07", capabilities: {}, clientInfo: CLIENT }),
    initialize({ protocolVersion: "1999-01-01", capabilities: {}, clientInfo: { ...CLIENT, title: "T" } }),
    initialize({
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: { url: {} }, experimental: { x: {} }, sampling: { tools: {} } },
      clientInfo: CLIENT,
    }),
  ];
  for (const request of plain) {
    assert.ok(isPlainInitialize(request), JSON.stringify(request));
    const lazily = await lazy([request]);
    assert.ok(lazily.answeredBeforeLoad, JSON.stringify(request));
    assert.deepEqual(lazily.lines, await eager([request]));
    assert.equal(lazily.lines.length, 1);
  }
});

Deno.test("anything but a plain initialize first is left to the SDK server, with the same answers", async () => {
  const unusual: unknown[][] = [
    [initialize({
      protocolVersion: "2025-06-18",
      capabilities: { roots: { listChanged: "yes" } },
      clientInfo: CLIENT,
    })],
    [initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x" } })],
    [initialize({
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: CLIENT,
      _meta: { progressToken: 1 },
    })],
    [initialize({ protocolVersion: 5, capabilities: {}, clientInfo: CLIENT })],
    [{ ...initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT }), extra: 1 }],
    [{ jsonrpc: "2.0", id: 1.5, method: "initialize", params: {} }],
    ["not json"],
    [[initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT })]],
    [{ jsonrpc: "2.0", id: 7, method: "ping" }],
  ];
  for (const messages of unusual) {
    assert.ok(!isPlainInitialize(messages[0]), JSON.stringify(messages));
    const lazily = await lazy(messages);
    assert.ok(!lazily.answeredBeforeLoad, JSON.stringify(messages));
    assert.deepEqual(lazily.lines, await eager(messages), JSON.stringify(messages));
  }
});

Deno.test("requests arriving while the server loads are answered in order, after the handshake is replayed", async () => {
  const service = await ModelService.open();
  try {
    const out = collector();
    const loading = Promise.withResolvers<McpSession>();
    let loads = 0;
    const served = serveLazyMcpStdio({
      input: inputOf([
        initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT }),
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", id: 2, method: "ping" },
        { jsonrpc: "2.0", id: 3, method: "resources/templates/list" },
        { jsonrpc: "2.0", id: 4, method: "tools/list" },
        { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "list_models", arguments: {} } },
      ]),
      output: out.write,
      load: () => {
        loads++;
        return loading.promise;
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(out.lines.length, 1, "only the handshake is answered while loading");
    assert.equal(JSON.parse(out.lines[0]).id, 1);
    loading.resolve(createMcpServer(service, { mode: "embedded" }));
    await served;
    assert.equal(loads, 1);
    const messages = out.lines.map((line) => JSON.parse(line));
    // Requests run concurrently (a tool call may finish after a later, quicker request); these answer at once.
    assert.deepEqual(messages.filter((m) => "id" in m).map((m) => m.id).slice(0, 4), [1, 2, 3, 4]);
    assert.ok(messages.find((m) => m.id === 4).result.tools.length > 0);
    assert.equal(messages.find((m) => m.id === 5).result.content[0].text, "[]");
    // The replayed handshake made the server ready: it announced itself, and answered the initialize only once.
    assert.match(
      messages.find((m) => m.method === "notifications/message").params.data,
      /ready: mode embedded/,
    );
    assert.equal(messages.filter((m) => m.id === 1).length, 1);
  } finally {
    await service.close();
  }
});

Deno.test("a server that fails to load answers each request with an internal error, then ends with the input", async () => {
  const out = collector();
  const errors: Error[] = [];
  await serveLazyMcpStdio({
    input: inputOf([
      initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT }),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      "not json",
      { jsonrpc: "2.0", id: "three", method: "tools/call", params: { name: "list_models" } },
    ]),
    output: out.write,
    load: () => Promise.reject(new Error("no engine")),
    onError: (error) => errors.push(error),
  });
  const messages = out.lines.map((line) => JSON.parse(line));
  assert.equal(messages[0].id, 1);
  assert.ok(messages[0].result.protocolVersion);
  assert.deepEqual(
    messages.slice(1),
    [2, "three"].map((id) => ({
      jsonrpc: "2.0",
      id,
      error: { code: -32603, message: "Internal error: the MCP server did not start: no engine" },
    })),
  );
  assert.deepEqual(errors.map((e) => e.message), ["no engine"]);
});

Deno.test("the end of input waits for the answers to the requests read, unless cancelled", async () => {
  const released = Promise.withResolvers<void>();
  const slow: Invoker = {
    invoke: async <O>() => {
      await released.promise;
      return [] as O;
    },
  };
  const call = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "list_models", arguments: {} },
  });
  const out = collector();
  const transport = new LineTransport(
    inputOf([
      initialize({ protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT }),
      call(2),
      call(3),
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } },
    ]),
    out.write,
  );
  const session = createMcpServer(slow, { mode: "embedded" });
  await session.connect(transport);
  let finished = false;
  transport.finished.then(() => finished = true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(!finished, "request 2 is still being answered");
  released.resolve();
  await transport.finished;
  await session.server.close();
  const ids = out.lines.map((line) => JSON.parse(line).id);
  assert.deepEqual(ids, [1, 2]);
});
