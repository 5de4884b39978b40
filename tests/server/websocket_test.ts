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

/** The status line and headers of a handshake's answer. */
interface HandshakeAnswer {
  status: number;
  headers: Record<string, string>;
}

/** The request lines of a well-formed handshake for `path`, with `headers` replacing or adding lines. */
function handshakeRequest(server: TestServer, path: string, headers: Record<string, string | null>): string {
  const all: Record<string, string | null> = {
    Host: `127.0.0.1:${server.port}`,
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
    ...headers,
  };
  const lines = Object.entries(all).filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${v}`);
  return [`GET ${path} HTTP/1.1`, ...lines, "", ""].join("\r\n");
}

/** Sends a raw handshake (`null` leaves a default header out) and reads the answer's head. */
async function handshake(
  server: TestServer,
  path: string,
  headers: Record<string, string | null> = {},
): Promise<HandshakeAnswer> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  try {
    await conn.write(new TextEncoder().encode(handshakeRequest(server, path, headers)));
    const buffer = new Uint8Array(4096);
    const n = await conn.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n\r\n")[0].split("\r\n");
    return {
      status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head[0])?.[1]),
      headers: Object.fromEntries(
        head.slice(1).map((
          line,
        ) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      ),
    };
  } finally {
    conn.close();
  }
}

/** Sends a raw handshake and returns the status code (for refused handshakes). */
async function handshakeStatus(server: TestServer, path: string, headers: Record<string, string> = {}) {
  return (await handshake(server, path, headers)).status;
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
      metaUpdated: [],
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
  // The header is compared as CORS, the host check and /mcp compare it (engine/origin.ts).
  for (const header of ["https://App.Example", "https://app.example:443", "https://app.example/"]) {
    assert.ok(originAllowed(header, named, ["https://app.example"]), header);
  }
  assert.ok(!originAllowed("https://app.example:8443", named, ["https://app.example"]));
});

Deno.test("a client's message closes its feed with 1003, text or binary; other feeds and writes go on", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const url = `${server.wsUrl}/models/order/subscribe`;
    const listening = await connect(url);
    for (const message of ["hello", '{"subscribe":"other"}', new Uint8Array([1, 2, 3])]) {
      const socket = new WebSocket(url);
      const closed = new Promise<CloseEvent>((resolve) => socket.onclose = resolve);
      await new Promise((resolve) => socket.onopen = resolve);
      socket.send(message);
      const { code, reason } = await closed;
      assert.deepEqual({ code, reason }, { code: 1003, reason: "the change feed takes no messages" });
    }
    assert.equal(server.subscriptions.size, 1, "the closed feeds are gone");
    assert.equal((await call(server.url, "POST", "/models/order/mutations", { "$.qty": 2 })).status, 200);
    assert.deepEqual((await listening.next()).mutatedPaths, ["$.qty"]);
    await listening.close();
  } finally {
    await server.close();
  }
});

Deno.test("malformed handshakes: 400 without a well-formed key or Connection: Upgrade, 426 naming version 13; nothing logged as a failure", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const path = "/models/order/subscribe";
    assert.equal((await handshake(server, path, { "Sec-WebSocket-Key": null })).status, 400);
    // RFC 6455 4.2.1: the base64 of 16 bytes, nothing else (Deno takes any value).
    for (
      const key of ["x", "dGhlIHNhbXBsZSBub25jZQ", "dGhlIHNhbXBsZSBub25jZR==", "dGhlIHNhbXBsZSBub25jZQ==x"]
    ) {
      assert.equal((await handshake(server, path, { "Sec-WebSocket-Key": key })).status, 400, key);
    }
    assert.equal((await handshake(server, path, { Connection: "keep-alive" })).status, 400);
    assert.equal((await handshake(server, path, { Connection: null })).status, 400);
    for (const version of ["8", null]) {
      const old = await handshake(server, path, { "Sec-WebSocket-Version": version });
      assert.equal(old.status, 426, `version ${version}`);
      assert.equal(old.headers["sec-websocket-version"], "13");
    }
    assert.equal(await handshakeStatus(server, path), 101);
    assert.deepEqual(server.logs.filter((line) => line.startsWith("error")), []);
  } finally {
    await server.close();
  }
});

/** A masked client frame. */
function clientFrame(opcode: number, payload: Uint8Array, declaredLength = payload.length): Uint8Array {
  const length = declaredLength < 126
    ? [0x80 | declaredLength]
    : [0x80 | 127, ...new Uint8Array(new BigUint64Array([BigInt(declaredLength)]).buffer).reverse()];
  const mask = [7, 11, 13, 17];
  return new Uint8Array([0x80 | opcode, ...length, ...mask, ...payload.map((b, i) => b ^ mask[i % 4])]);
}

Deno.test("frames that break the protocol (invalid UTF-8, a frame over 64 MiB) end the connection; the feed goes on", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const path = "/models/order/subscribe";
    const frames = {
      "invalid UTF-8": clientFrame(1, new Uint8Array([0xff, 0xfe, 0xc3])),
      // Only the header: the length alone is refused, before any byte of it is read.
      "a frame of 1 TiB": clientFrame(2, new Uint8Array(0), 2 ** 40),
    };
    for (const [name, frame] of Object.entries(frames)) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
      try {
        await conn.write(new TextEncoder().encode(handshakeRequest(server, path, {})));
        const buffer = new Uint8Array(4096);
        assert.match(
          new TextDecoder().decode(buffer.subarray(0, (await conn.read(buffer)) ?? 0)),
          /^HTTP\/1\.1 101/,
        );
        await conn.write(frame);
        // The server ends the connection: the reads run out.
        while ((await conn.read(buffer)) !== null);
      } finally {
        conn.close();
      }
      const client = await connect(`${server.wsUrl}${path}`);
      assert.equal((await call(server.url, "POST", "/models/order/mutations", { "$.qty": 2 })).status, 200);
      assert.deepEqual((await client.next()).mutatedPaths, ["$.qty"], `after ${name}`);
      await client.close();
    }
  } finally {
    await server.close();
  }
});
