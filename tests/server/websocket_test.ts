/**
 * The WebSocket change feed on a real server: frames of every write source,
 * the `paths` filter, always-delivered frames, the token and origin rules,
 * unknown models and malformed filters.
 */
import assert from "node:assert/strict";
import { call, orderSpec, startTestServer, type TestServer } from "./helpers.ts";
import { originAllowed } from "../../server/routes/subscribe.ts";

/** A connected client that collects frames in arrival order. */
interface Client {
  next(): Promise<Record<string, unknown>>;
  closed: Promise<CloseEvent>;
  close(): Promise<void>;
}

async function connect(url: string): Promise<Client> {
  const socket = new WebSocket(url);
  const frames: Record<string, unknown>[] = [];
  const waiting: ((frame: Record<string, unknown>) => void)[] = [];
  socket.onmessage = (event) => {
    const frame = JSON.parse(event.data);
    const waiter = waiting.shift();
    if (waiter) waiter(frame);
    else frames.push(frame);
  };
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener("close", resolve));
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error(`handshake to ${url} failed`));
  });
  return {
    next: () =>
      frames.length ? Promise.resolve(frames.shift()!) : new Promise((resolve) => waiting.push(resolve)),
    closed,
    close: async () => {
      if (socket.readyState !== WebSocket.CLOSED) socket.close();
      await closed;
    },
  };
}

/** Sends a raw handshake and returns the status code (for refused handshakes). */
async function handshakeStatus(server: TestServer, path: string, headers: Record<string, string> = {}) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    const lines = [
      `GET ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${server.port}`,
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      "",
      "",
    ];
    await conn.write(new TextEncoder().encode(lines.join("\r\n")));
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  } finally {
    conn.close();
  }
}

Deno.test("mutation frames after client writes, patches and fold-backs; closed when the model is deleted", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const client = await connect(`${server.wsUrl}/models/order/subscribe`);
    await call(server.url, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 3 });
    assert.deepEqual(await client.next(), {
      kind: "mutation",
      modelId: "order",
      mutatedPaths: ["$.qty", "$.price"],
      derivedUpdated: ["$.total"],
      flaggedConstraints: [],
      dispatchedEffects: [],
    });
    await call(server.url, "POST", "/models/order/mutations/patch", [{
      op: "replace",
      path: "/qty",
      value: 3,
    }]);
    assert.deepEqual((await client.next()).mutatedPaths, ["$.qty"]);
    await server.service.foldback("order", { "$.note": "from an executor" });
    assert.deepEqual((await client.next()).mutatedPaths, ["$.note"]);

    const rejected = await call(server.url, "POST", "/models/order/mutations", { "$.qty": 1000 });
    assert.equal(rejected.status, 409);
    await call(server.url, "POST", "/models/order/mutations", { "$.qty": 4 });
    assert.deepEqual((await client.next()).mutatedPaths, ["$.qty"], "a rolled-back write sends no frame");

    await call(server.url, "DELETE", "/models/order");
    const closed = await client.closed;
    assert.equal(closed.code, 1000);
    assert.equal(closed.reason, "model deleted");
    assert.equal(server.subscriptions.size, 0);
  } finally {
    await server.close();
  }
});

Deno.test("paths filter: prefixes OR-ed over written and derived paths; flagged and effect frames always pass", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const notes = await connect(
      `${server.wsUrl}/models/order/subscribe?paths=${encodeURIComponent("$.note")}`,
    );
    const totals = await connect(
      `${server.wsUrl}/models/order/subscribe?paths=price,${encodeURIComponent("$.total")}`,
    );
    const items = await connect(
      `${server.wsUrl}/models/order/subscribe?paths=${encodeURIComponent("$.items[*]")}`,
    );

    await call(server.url, "POST", "/models/order/mutations", { "$.qty": 2 });
    await call(server.url, "POST", "/models/order/mutations", { "$.note": "hello" });
    await call(server.url, "POST", "/models/order/mutations", { "$.items": [{ sku: "a" }] });
    await call(server.url, "POST", "/models/order/mutations", { "$.items[0].sku": "b" });
    await call(server.url, "POST", "/models/order/mutations", { "$.qty": 60, "$.price": 10 });

    assert.deepEqual((await notes.next()).mutatedPaths, ["$.note"], "the qty write was filtered out");
    const urgent = await notes.next();
    assert.deepEqual(urgent.mutatedPaths, ["$.qty", "$.price"], "flagged frame passes any filter");
    assert.equal((urgent.flaggedConstraints as unknown[]).length, 1);

    assert.deepEqual((await totals.next()).mutatedPaths, ["$.qty"], "derived $.total matched");
    assert.deepEqual((await totals.next()).mutatedPaths, ["$.qty", "$.price"]);

    assert.deepEqual((await items.next()).mutatedPaths, ["$.items"], "a write above the prefix replaced it");
    assert.deepEqual((await items.next()).mutatedPaths, ["$.items[0].sku"], "wildcard prefix");
    assert.deepEqual((await items.next()).mutatedPaths, ["$.qty", "$.price"]);
    await Promise.all([notes.close(), totals.close(), items.close()]);
  } finally {
    await server.close();
  }
});

Deno.test("handshake: token required when a key is set (401), Bearer header accepted too", async () => {
  const key = "ws-secret-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    await call(server.url, "POST", "/models", orderSpec(), { authorization: `Bearer ${key}` });
    assert.equal(await handshakeStatus(server, "/models/order/subscribe"), 401);
    assert.equal(await handshakeStatus(server, "/models/order/subscribe?token=wrong"), 401);
    assert.equal(
      await handshakeStatus(server, "/models/nope/subscribe?token=wrong"),
      401,
      "no existence leak",
    );
    assert.equal(await handshakeStatus(server, `/models/order/subscribe?token=${key}`), 101);
    assert.equal(
      await handshakeStatus(server, "/models/order/subscribe", { Authorization: `Bearer ${key}` }),
      101,
    );
    const client = await connect(`${server.wsUrl}/models/order/subscribe?token=${key}`);
    await call(server.url, "POST", "/models/order/mutations", { "$.qty": 1 }, {
      authorization: `Bearer ${key}`,
    });
    assert.equal((await client.next()).kind, "mutation");
    await client.close();
    assert.ok(!server.logs.join("\n").includes(key), "the key never appears in logs");
  } finally {
    await server.close();
  }
});

Deno.test("handshake: same origin only by default; unknown model 404; bad filter 400; plain GET 426", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const path = "/models/order/subscribe";
    assert.equal(await handshakeStatus(server, path), 101, "no Origin: not a browser");
    assert.equal(await handshakeStatus(server, path, { Origin: `http://127.0.0.1:${server.port}` }), 101);
    assert.equal(await handshakeStatus(server, path, { Origin: "http://evil.example" }), 403);
    assert.equal(await handshakeStatus(server, path, { Origin: "null" }), 403);
    assert.equal(await handshakeStatus(server, "/models/nope/subscribe"), 404);
    assert.equal(await handshakeStatus(server, `${path}?paths=${encodeURIComponent("$.[")}`), 400);
    const plain = await call(server.url, "GET", path);
    assert.equal(plain.status, 426);
  } finally {
    await server.close();
  }
});

Deno.test("handshake: svc.websocket.allowed-origins lists origins; * allows all", async () => {
  const listed = await startTestServer({
    "svc.websocket.allowed-origins": "https://app.example, https://b.example",
  });
  try {
    await call(listed.url, "POST", "/models", orderSpec());
    const path = "/models/order/subscribe";
    assert.equal(await handshakeStatus(listed, path, { Origin: "https://app.example" }), 101);
    assert.equal(await handshakeStatus(listed, path, { Origin: "https://b.example" }), 101);
    assert.equal(await handshakeStatus(listed, path, { Origin: "https://c.example" }), 403);
    assert.equal(
      await handshakeStatus(listed, path, { Origin: `http://127.0.0.1:${listed.port}` }),
      403,
      "a list replaces the same-origin default",
    );
  } finally {
    await listed.close();
  }
  const any = await startTestServer({ "svc.websocket.allowed-origins": "*" });
  try {
    await call(any.url, "POST", "/models", orderSpec());
    assert.equal(
      await handshakeStatus(any, "/models/order/subscribe", { Origin: "https://anything.example" }),
      101,
    );
  } finally {
    await any.close();
  }
});

Deno.test("shutdown closes subscriptions with 1001 and completes", async () => {
  const server = await startTestServer();
  await call(server.url, "POST", "/models", orderSpec());
  const client = await connect(`${server.wsUrl}/models/order/subscribe`);
  await server.close();
  assert.equal((await client.closed).code, 1001, "going away");
});

Deno.test("the WebSocket origin rule compares with the bound address, never the request's Host", () => {
  const loopback = { hostname: "127.0.0.1", port: 8080 };
  assert.ok(originAllowed(undefined, loopback, null));
  assert.ok(originAllowed("http://localhost:8080", loopback, null));
  assert.ok(!originAllowed("http://localhost:9999", loopback, null));
  assert.ok(!originAllowed("http://evil.example:8080", loopback, null));
  const named = { hostname: "models.example", port: 443 };
  assert.ok(originAllowed("https://models.example", named, null));
  assert.ok(!originAllowed("https://evil.example", named, null));
  assert.ok(originAllowed("https://evil.example", named, ["*"]));
});
