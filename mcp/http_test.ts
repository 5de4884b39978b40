import assert from "node:assert/strict";
import { ModelService } from "../engine/service/service.ts";
import { createMcpHttpMount } from "./http.ts";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const ping = (sessionId: string) =>
  post({ jsonrpc: "2.0", id: 2, method: "ping" }, {
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-11-25",
  });

Deno.test("origins compare normalized; an unlisted one is 403 before anything else", async () => {
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: ["HTTP://Good.Example/"] });
  try {
    assert.equal((await mount.handle(post(initialize, { origin: "http://good.example" }))).status, 200);
    const refused = await mount.handle(post(initialize, { origin: "http://good.example:8080" }));
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).error.message, /not allowed/);
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("an Origin header in another form of a listed origin passes: slash, capitals, default port", async () => {
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: ["https://good.example"] });
  try {
    for (const origin of ["https://good.example/", "HTTPS://Good.Example", "https://good.example:443"]) {
      assert.equal((await mount.handle(post(initialize, { origin }))).status, 200, origin);
    }
    const refused = await mount.handle(post(initialize, { origin: "https://good.example:8443" }));
    assert.equal(refused.status, 403);
    await refused.body?.cancel();
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("svc.mcp.allowed-origins=* lets every origin in", async () => {
  // README "Configuration" allows * in the list; the mount compared it as an origin and refused every browser.
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: ["*"] });
  try {
    assert.equal((await mount.handle(post(initialize, { origin: "https://elsewhere.example" }))).status, 200);
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("sessions idle longer than the limit end at a request of another session", async () => {
  const service = await ModelService.open();
  let clock = 0;
  const mount = createMcpHttpMount(service, { allowedOrigins: [], idleSessionMs: 1000, now: () => clock });
  try {
    const idle = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    const active = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    clock = 800;
    assert.equal((await mount.handle(ping(active))).status, 200);
    clock = 1600;
    assert.equal((await mount.handle(ping(active))).status, 200, "used 800 ms ago: kept");
    const gone = await mount.handle(ping(idle));
    assert.equal(gone.status, 404, "unused for 1,600 ms: ended by the other session's request");
    await gone.body?.cancel();
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("a session idle longer than the limit is 404 at its own request, before any sweep; a new one opens", async () => {
  const service = await ModelService.open();
  let clock = 0;
  const mount = createMcpHttpMount(service, { allowedOrigins: [], idleSessionMs: 100_000, now: () => clock });
  try {
    const idle = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    clock = 50_000;
    // This initialize sweeps: the next sweep is due a minute later.
    await (await mount.handle(post(initialize))).body?.cancel();
    clock = 100_001;
    const gone = await mount.handle(ping(idle));
    assert.equal(gone.status, 404, "idle for over 100 s: ended, not revived");
    // The SDK server's shape for an unknown session: what a client keys its new initialize on.
    const body = await gone.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32001);
    assert.match(body.error.message, /^Session not found \(.*\): POST initialize without Mcp-Session-Id/);
    assert.equal((await mount.handle(sessionRequest("GET", idle))).status, 404, "its stream too");
    const again = await mount.handle(post(initialize));
    assert.equal(again.status, 200);
    assert.equal((await mount.handle(ping(again.headers.get("mcp-session-id")!))).status, 200);
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("sessions idle longer than the limit end when the next session opens", async () => {
  const service = await ModelService.open();
  let clock = 0;
  const mount = createMcpHttpMount(service, { allowedOrigins: [], idleSessionMs: 1000, now: () => clock });
  try {
    const first = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    clock = 900;
    assert.equal((await mount.handle(ping(first))).status, 200);
    clock = 1500;
    await (await mount.handle(post(initialize))).body?.cancel();
    assert.equal((await mount.handle(ping(first))).status, 200, "used 600 ms ago: kept");
    clock = 3000;
    const third = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    const gone = await mount.handle(ping(first));
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
    assert.equal((await mount.handle(ping(third))).status, 200);
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("a request without a live session is told how to start one", async () => {
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: [] });
  const told = async (response: Response, status: number) => {
    assert.equal(response.status, status);
    const { error } = await response.json();
    assert.match(error.message, /POST initialize without Mcp-Session-Id; its answer's Mcp-Session-Id header/);
    return error.message as string;
  };
  try {
    // A first call that forgot the handshake (the SDK alone says "Server not initialized").
    const list = post({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.match(
      await told(await mount.handle(list), 400),
      /^Bad Request: Mcp-Session-Id header is required/,
    );
    const stream = new Request("http://127.0.0.1/mcp", { method: "GET", headers: HEADERS });
    await told(await mount.handle(stream), 400);
    // A session that ended: the client starts a new one.
    const id = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    assert.equal((await mount.handle(sessionRequest("DELETE", id))).status, 200);
    assert.match(await told(await mount.handle(ping(id)), 404), /^Session not found/);
    // The hint is not in the answers of other refusals: a malformed body stays a parse error.
    const garbled = new Request("http://127.0.0.1/mcp", { method: "POST", headers: HEADERS, body: "{" });
    const parse = await mount.handle(garbled);
    assert.equal(parse.status, 400);
    assert.equal((await parse.json()).error.code, -32700);
    // An empty batch is no JSON-RPC message, as over stdio and in a session (README "MCP and the CLI").
    const empty = await mount.handle(post([]));
    assert.equal(empty.status, 400);
    assert.equal((await empty.json()).error.code, -32600);
  } finally {
    await mount.close?.();
    await service.close();
  }
});

const sessionRequest = (method: "GET" | "DELETE", sessionId: string) =>
  new Request("http://127.0.0.1/mcp", {
    method,
    headers: { ...HEADERS, "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
  });

Deno.test("beyond max-sessions initialize is refused (503, JSON-RPC error, Retry-After); open ones stay", async () => {
  const service = await ModelService.open();
  let clock = 0;
  const mount = createMcpHttpMount(service, {
    allowedOrigins: [],
    maxSessions: 2,
    idleSessionMs: 60_000,
    now: () => clock,
  });
  try {
    const first = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    clock = 10_000;
    const second = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    const refused = await mount.handle(post(initialize));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("mcp-session-id"), null);
    assert.equal(refused.headers.get("retry-after"), "50", "when the least recently used one may idle out");
    const body = await refused.json();
    assert.equal(body.error.code, -32000);
    assert.match(body.error.message, /Too many MCP sessions: 2 are open \(svc\.mcp\.max-sessions\)/);
    for (const id of [first, second]) assert.equal((await mount.handle(ping(id))).status, 200, "kept");

    // Ending one makes room; so does one idling out.
    await (await mount.handle(sessionRequest("DELETE", first))).body?.cancel();
    const third = await mount.handle(post(initialize));
    assert.equal(third.status, 200);
    await third.body?.cancel();
    assert.equal((await mount.handle(post(initialize))).status, 503);
    clock = 65_000;
    assert.equal((await mount.handle(ping(second))).status, 200, "idle for 55 s: kept");
    assert.equal((await mount.handle(post(initialize))).status, 503);
    clock = 130_000;
    const fourth = await mount.handle(post(initialize));
    assert.equal(fourth.status, 200, "sessions idle for over a minute were ended to make room");
    await fourth.body?.cancel();
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("initialize calls answered at once count against max-sessions before they are registered", async () => {
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: [], maxSessions: 1 });
  try {
    const answers = await Promise.all([mount.handle(post(initialize)), mount.handle(post(initialize))]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 503]);
    for (const answer of answers) await answer.body?.cancel();
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("idle sessions are ended by a timer, with no request to /mcp at all", async () => {
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: [], idleSessionMs: 50 });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const id = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    const stream = await mount.handle(sessionRequest("GET", id));
    assert.equal(stream.status, 200);
    // The notification stream ends when the session does.
    const ended = new Response(stream.body).text().then(() => "ended");
    const outcome = await Promise.race([
      ended,
      new Promise((resolve) => (timer = setTimeout(() => resolve("still open after 2 s"), 2000))),
    ]);
    assert.equal(outcome, "ended");
    const gone = await mount.handle(ping(id));
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
  } finally {
    clearTimeout(timer);
    await mount.close?.();
    await service.close();
  }
});

Deno.test("the answers /mcp makes itself carry the headers the SDK's answers of the same status carry", async () => {
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: [] });
  /** Status, header names (but the length) and session id of an answer. */
  const shape = async (request: Request) => {
    const response = await mount.handle(request);
    await response.body?.cancel();
    const names = [...response.headers.keys()].filter((name) => name !== "content-length").sort();
    return { status: response.status, names, session: response.headers.get("mcp-session-id") };
  };
  const raw = (body: string, headers: Record<string, string> = {}) =>
    new Request("http://127.0.0.1/mcp", { method: "POST", headers: { ...HEADERS, ...headers }, body });
  try {
    const id = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    const inSession = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    // The SDK's: a 200 in the session names it, a 400 does not.
    const sdkOk = await shape(ping(id));
    assert.deepEqual(sdkOk, { status: 200, names: ["content-type", "mcp-session-id"], session: id });
    const sdkRefused = await shape(raw("{not json", inSession));
    assert.deepEqual(sdkRefused, { status: 400, names: ["content-type"], session: null });
    // Ours, answered before or around the SDK: a batch of members that are no messages, a lone one, a
    // second initialize, a request without a session.
    assert.deepEqual(await shape(raw('[{"no": "message"}]', inSession)), sdkOk, "a batch of invalid members");
    assert.deepEqual(
      await shape(raw('[{"no": "message"}, {"jsonrpc": "2.0", "method": "x"}]', inSession)),
      sdkOk,
    );
    for (
      const [name, request] of [
        ["a lone invalid member", raw('{"no": "message"}', inSession)],
        ["an empty batch", raw("[]", inSession)],
        ["a second initialize", post(initialize, inSession)],
        ["no session", post({ jsonrpc: "2.0", id: 2, method: "ping" })],
        ["no session, no message", raw('{"no": "message"}')],
      ] as const
    ) {
      assert.deepEqual(await shape(request), sdkRefused, name);
    }
  } finally {
    await mount.close?.();
    await service.close();
  }
});
