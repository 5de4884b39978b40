/**
 * The protocol around the tools, over both transports: version negotiation,
 * initialize contents, the readiness log line and `logging/setLevel`
 * suppression, JSON-RPC errors for malformed input, and the HTTP session
 * lifecycle (session id, 202 for notifications, batches, GET stream, DELETE,
 * API key, Origin check).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { SERVICE_NAME, SERVICE_VERSION } from "../../engine/version.ts";
import { PROTOCOL_VERSIONS } from "../../mcp/server.ts";
import { call, orderSpec, startTestServer } from "../server/helpers.ts";
import {
  connectHttp,
  connectStdio,
  initializeMessage,
  openSession,
  POST_HEADERS,
  rawStdio,
} from "./helpers.ts";

const ASKED = [...PROTOCOL_VERSIONS, "2024-10-07", "1999-01-01"];
const answerFor = (asked: string) => PROTOCOL_VERSIONS.includes(asked) ? asked : "2025-11-25";

const isLog = (level: string) => (n: ServerNotification) =>
  n.method === "notifications/message" && n.params.level === level;
/** The text of a log notification. */
const logText = (n: ServerNotification) => String((n.params as { data?: unknown }).data);

Deno.test("stdio: each supported version is echoed, others get the newest; initialize contents", async () => {
  // One process per version: a session is initialized once.
  const results: Record<string, unknown>[] = [];
  for (const asked of ASKED) {
    const [answer] = await rawStdio([JSON.stringify(initializeMessage(asked))], 1);
    results.push(answer.result as Record<string, unknown>);
  }
  ASKED.forEach((asked, i) => assert.equal(results[i].protocolVersion, answerFor(asked), asked));
  const result = results[0];
  assert.deepEqual(result.serverInfo, { name: SERVICE_NAME, version: SERVICE_VERSION });
  assert.deepEqual(result.capabilities, { tools: {}, resources: { subscribe: true }, logging: {} });
  assert.match(
    result.instructions as string,
    /validate_spec[\s\S]*dry_run[\s\S]*create_model[\s\S]*evolve_spec/,
  );
});

Deno.test("stdio: malformed input gets JSON-RPC errors; a byte order mark is tolerated; ping is {}", async () => {
  const lines = [
    "\uFEFF" + JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    JSON.stringify(initializeMessage("2025-11-25", 0)),
    "not json",
    JSON.stringify({ hello: "world" }),
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "bogus/method" }),
    JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } }),
  ];
  const answers = await rawStdio(lines, 6);
  const byId = (id: unknown) => answers.filter((a) => a.id === id);
  assert.deepEqual(byId(1)[0].result, {});
  assert.ok(byId(0)[0].result, "initialize");
  const parseAndInvalid = byId(null).map((a) => (a.error as { code: number }).code).sort((a, b) => a - b);
  assert.deepEqual(parseAndInvalid, [-32700, -32600]);
  assert.equal((byId(2)[0].error as { code: number }).code, -32601);
  const missingName = byId(3)[0].error as { code: number; message: string };
  assert.equal(missingName.code, -32602);
  assert.match(missingName.message, /name/);
});

Deno.test("stdio: before initialize, requests but ping are refused as /mcp refuses them, notifications ignored", async () => {
  const call = (id: number) => ({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "list_models", arguments: {} },
  });
  const answers = await rawStdio([
    // Would bring the readiness line, were it not ignored.
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    JSON.stringify(call(1)),
    JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }),
    JSON.stringify([call(3), { jsonrpc: "2.0", id: 4, method: "ping" }]),
    JSON.stringify(initializeMessage("2025-06-18", 5)),
    JSON.stringify(call(6)),
  ]);
  const byId = new Map(answers.filter((a) => !Array.isArray(a)).map((a) => [a.id, a]));
  const refused = byId.get(1)!.error as { code: number; message: string };
  assert.equal(refused.code, -32000);
  assert.match(refused.message, /^Bad Request: initialize is required first: send initialize/);
  assert.deepEqual(byId.get(2)!.result, {});
  const batch = answers.find(Array.isArray) as unknown as Record<string, unknown>[];
  assert.deepEqual(batch.map((a) => a.id), [3, 4]);
  assert.deepEqual(batch[0].error, refused);
  assert.deepEqual(batch[1].result, {});
  assert.equal((byId.get(5)!.result as { protocolVersion: string }).protocolVersion, "2025-06-18");
  assert.equal((byId.get(6)!.result as { isError: boolean }).isError, false, "runs once initialized");
  assert.equal(answers.length, 5, "no readiness line: notifications/initialized came before initialize");
});

/** Bad `initialize` params, each with the member its refusal names. */
const BAD_INITIALIZE: [Record<string, unknown>, RegExp][] = [
  [
    { capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    /params\.protocolVersion: .*expected string/,
  ],
  [
    { protocolVersion: "2025-06-18", capabilities: "all", clientInfo: { name: "raw", version: "1" } },
    /params\.capabilities: .*expected object, received string/,
  ],
  [{ protocolVersion: "2025-06-18", capabilities: {} }, /params\.clientInfo: /],
];
const badInitialize = (params: Record<string, unknown>, id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params,
});

/** Asserts a refusal of a bad `initialize`: -32602, a one-line message naming the member, no zod dump. */
function assertInvalidParams(error: unknown, member: RegExp): void {
  const { code, message } = error as { code: number; message: string };
  assert.equal(code, -32602);
  assert.match(message, /^Invalid params for initialize: /);
  assert.match(message, member);
  assert.doesNotMatch(message, /[\n[{]/, "a short message, not zod's issues as JSON");
}

Deno.test("stdio: a bad initialize is -32602 naming the member, and initializes nothing", async () => {
  const answers = await rawStdio([
    ...BAD_INITIALIZE.map(([params], i) => JSON.stringify(badInitialize(params, i))),
    JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
  ]);
  const byId = new Map(answers.map((a) => [a.id, a]));
  BAD_INITIALIZE.forEach(([, member], i) => assertInvalidParams(byId.get(i)!.error, member));
  assert.equal((byId.get(9)!.error as { code: number }).code, -32000, "still not initialized");
});

Deno.test("HTTP: a bad initialize is -32602 naming the member, with or without a session", async () => {
  const server = await startTestServer();
  try {
    for (const [params, member] of BAD_INITIALIZE) {
      const reply = await call(server.url, "POST", "/mcp", badInitialize(params, 7), POST_HEADERS);
      assert.equal(reply.status, 400);
      assert.equal(reply.headers.get("mcp-session-id"), null);
      assert.equal(reply.json.id, 7);
      assertInvalidParams(reply.json.error, member);
    }
    const inSession = await openSession(server.url);
    const [params, member] = BAD_INITIALIZE[1];
    const again = await call(server.url, "POST", "/mcp", badInitialize(params, 8), inSession);
    assert.equal(again.json.id, 8);
    assertInvalidParams(again.json.error, member);
  } finally {
    await server.close();
  }
});

Deno.test("HTTP: a batch holding initialize, without a session, is answered member by member; none opens", async () => {
  const server = await startTestServer();
  try {
    const [params, member] = BAD_INITIALIZE[1];
    const batch = async (body: unknown[]) => {
      const reply = await call(server.url, "POST", "/mcp", body, POST_HEADERS);
      assert.equal(reply.status, 400);
      assert.equal(reply.headers.get("mcp-session-id"), null);
      assert.ok(Array.isArray(reply.json), "a batch's answer is an array");
      return reply.json as { id: unknown; error: { code: number; message: string } }[];
    };
    // Alone in its batch: the single case's answer, in an array.
    const alone = await batch([badInitialize(params, 7)]);
    assert.deepEqual(alone.map((a) => a.id), [7]);
    assertInvalidParams(alone[0].error, member);
    // Beside other members: each request is told why it did not run; a notification gets nothing.
    const mixed = await batch([
      badInitialize(params, 1),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "create_model", arguments: { spec: orderSpec("x") } },
      },
      { hello: "world" },
    ]);
    assert.deepEqual(mixed.map((a) => a.id), [1, 2, null]);
    assertInvalidParams(mixed[0].error, member);
    assert.equal(mixed[1].error.code, -32000);
    assert.match(mixed[1].error.message, /^Bad Request: Mcp-Session-Id header is required: POST initialize/);
    assert.equal(mixed[2].error.code, -32600);
    // A well-formed initialize in a batch is told to come alone (the SDK: "Only one initialization request").
    const wellFormed = await batch([initializeMessage("2025-03-26", 3), {
      jsonrpc: "2.0",
      id: 4,
      method: "ping",
    }]);
    assert.deepEqual(wellFormed.map((a) => [a.id, a.error.code]), [[3, -32600], [4, -32000]]);
    assert.match(wellFormed[0].error.message, /initialize must be sent alone, not in a batch/);
    assert.deepEqual((await call(server.url, "GET", "/models")).json, [], "the batched create did not run");
  } finally {
    await server.close();
  }
});

Deno.test("stdio: a batch holding initialize is answered as /mcp answers it; none initializes", async () => {
  const [params, member] = BAD_INITIALIZE[1];
  const request = (id: number, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, params });
  const create = request(2, "tools/call", { name: "create_model", arguments: { spec: orderSpec("x") } });
  const answers = await rawStdio([
    JSON.stringify([
      badInitialize(params, 1),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      create,
      { hello: "world" },
    ]),
    JSON.stringify([initializeMessage("2025-03-26", 3), request(4, "ping")]),
    JSON.stringify(request(5, "tools/list")),
    JSON.stringify(initializeMessage("2025-03-26", 6)),
    // Once initialized, a batch's initialize is still refused; the rest runs.
    JSON.stringify([
      initializeMessage("2025-03-26", 7),
      request(8, "tools/call", { name: "list_models", arguments: {} }),
      badInitialize(params, 9),
    ]),
  ]);
  type Answer = {
    id: unknown;
    error?: { code: number; message: string };
    result?: { content: { text: string }[] };
  };
  const lines = answers as unknown as (Answer | Answer[])[];
  /** The answers of the batch line answering `id` (lines are written as answers complete, not in order). */
  const batchOf = (id: number) => {
    const batch = lines.find((line) => Array.isArray(line) && line.some((a) => a.id === id)) as Answer[];
    assert.ok(batch, `a batch line answers ${id}`);
    return new Map(batch.map((a) => [a.id, a]));
  };
  const single = (id: number) => lines.find((line) => !Array.isArray(line) && line.id === id) as Answer;
  const [one, two, notYet, initialized, three] = [batchOf(1), batchOf(3), single(5), single(6), batchOf(7)];
  assert.deepEqual([...one.keys()].sort(), [1, 2, null]);
  assertInvalidParams(one.get(1)!.error, member);
  assert.equal(one.get(2)!.error!.code, -32000);
  assert.match(one.get(2)!.error!.message, /initialize is required first/);
  assert.equal(one.get(null)!.error!.code, -32600);
  assert.deepEqual([...two].map(([id, a]) => [id, a.error?.code]), [[3, -32600], [4, -32000]]);
  assert.match(two.get(3)!.error!.message, /initialize must be sent alone, not in a batch/);
  assert.equal(notYet.error!.code, -32000, "the batched initialize opened nothing");
  assert.equal(initialized.id, 6);
  assert.ok(initialized.result, "a lone initialize still opens the session");
  assert.equal(three.get(7)!.error!.code, -32600);
  assertInvalidParams(three.get(9)!.error, member);
  assert.deepEqual(JSON.parse(three.get(8)!.result!.content[0].text), [], "the batched create did not run");
});

Deno.test("HTTP: in a session, a batch's initialize alone is refused, as over stdio; the rest runs", async () => {
  const server = await startTestServer();
  try {
    const inSession = await openSession(server.url);
    const [params, member] = BAD_INITIALIZE[1];
    const request = (id: number, method: string, params?: unknown) => ({
      jsonrpc: "2.0",
      id,
      method,
      params,
    });
    const create = request(4, "tools/call", { name: "create_model", arguments: { spec: orderSpec("x") } });
    const reply = await call(server.url, "POST", "/mcp", [
      initializeMessage("2025-06-18", 2),
      badInitialize(params, 3),
      create,
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ], inSession);
    assert.equal(reply.status, 200, reply.text);
    type Answer = { id: unknown; error?: { code: number; message: string }; result?: { isError?: boolean } };
    const answers = new Map((reply.json as Answer[]).map((a) => [a.id, a]));
    assert.deepEqual([...answers.keys()].sort(), [2, 3, 4]);
    assert.equal(answers.get(2)!.error!.code, -32600);
    assert.match(answers.get(2)!.error!.message, /initialize must be sent alone, not in a batch/);
    assertInvalidParams(answers.get(3)!.error, member);
    assert.ok(answers.get(4)!.result && !answers.get(4)!.result!.isError, "the batched create ran");
    assert.deepEqual((await call(server.url, "GET", "/models")).json, ["x"]);
  } finally {
    await server.close();
  }
});

Deno.test("a lone initialize once initialized is -32600 'Server already initialized' with its id, on /mcp and stdio alike", async () => {
  const ping = { jsonrpc: "2.0", id: 3, method: "ping" };
  const server = await startTestServer();
  let overHttp: unknown;
  try {
    const inSession = await openSession(server.url);
    const again = await call(server.url, "POST", "/mcp", initializeMessage("2025-03-26", 2), inSession);
    assert.equal(again.status, 400, again.text);
    overHttp = again.json;
    const after = await call(server.url, "POST", "/mcp", ping, inSession);
    assert.equal(after.status, 200, "the session is still open");
  } finally {
    await server.close();
  }
  const lines = [initializeMessage("2025-06-18", 1), initializeMessage("2025-03-26", 2), ping];
  const answers = new Map((await rawStdio(lines.map((m) => JSON.stringify(m)), 3)).map((a) => [a.id, a]));
  assert.deepEqual(overHttp, answers.get(2));
  assert.deepEqual(answers.get(2), {
    jsonrpc: "2.0",
    id: 2,
    error: {
      code: -32600,
      message:
        "Invalid Request: Server already initialized: initialize is sent once, first; to start over, " +
        "open a new session (on /mcp an initialize without Mcp-Session-Id, over stdio a new process)",
    },
  });
  assert.deepEqual(answers.get(3)!.result, {}, "the stdio session goes on");
});

Deno.test("stdio: a batch is answered with one array line; an empty batch with one error", async () => {
  const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
  const lines = [
    JSON.stringify(initializeMessage("2025-03-26", 1)),
    JSON.stringify([ping(2), { jsonrpc: "2.0", id: 3, method: "bogus/method" }, { hello: "world" }, ping(4)]),
    JSON.stringify([{ jsonrpc: "2.0", method: "notifications/initialized" }]),
    "[]",
    JSON.stringify(ping(5)),
  ];
  // Four answers and the readiness log line that notifications/initialized brings.
  const answers = await rawStdio(lines, 5) as unknown[];
  const batch = answers.find(Array.isArray) as Record<string, unknown>[];
  assert.ok(batch, "one line holds the batch's answers as an array");
  const codes = new Map(batch.map((a) => [a.id, (a.error as { code?: number } | undefined)?.code ?? "ok"]));
  assert.deepEqual(codes, new Map<unknown, unknown>([[2, "ok"], [3, -32601], [null, -32600], [4, "ok"]]));
  const single = answers.filter((a) => !Array.isArray(a) && "id" in (a as object)) as Record<
    string,
    unknown
  >[];
  assert.deepEqual(
    single.map((a) => a.id),
    [1, null, 5],
    "initialize, the empty batch's error, the last ping",
  );
  assert.equal((single[1].error as { code: number }).code, -32600);
});

Deno.test("stdio: a readiness line after initialized; setLevel suppresses below the level", async () => {
  const connected = await connectStdio();
  const { client, notifications } = connected;
  try {
    const ready = await connected.waitFor(isLog("info"));
    assert.match(logText(ready), /ready: mode embedded, 31 tools/);
    // Per-call lines are debug: suppressed at the default level and at warning, shown at debug.
    await client.callTool({ name: "list_models", arguments: {} });
    assert.equal(notifications.filter(isLog("debug")).length, 0);
    await client.setLoggingLevel("debug");
    await client.callTool({ name: "list_models", arguments: {} });
    assert.equal(notifications.filter(isLog("debug")).length, 1);
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "list_models", arguments: {} });
    assert.equal(notifications.filter(isLog("debug")).length, 1);
    assert.equal(notifications.filter(isLog("info")).length, 1, "exactly one readiness line");
    assert.deepEqual(await client.ping(), {});
  } finally {
    await connected.close();
  }
});

Deno.test("HTTP: readiness line on the session stream, logging levels, negotiation per session", async (t) => {
  const server = await startTestServer();
  try {
    await t.step("SDK client: readiness line names the server mode; setLevel suppresses", async () => {
      const connected = await connectHttp(server.url);
      try {
        const ready = await connected.waitFor(isLog("info"));
        assert.match(logText(ready), /ready: mode server, 32 tools/);
        await connected.client.setLoggingLevel("debug");
        await connected.client.callTool({ name: "list_models", arguments: {} });
        await connected.waitFor(isLog("debug"));
        await connected.client.setLoggingLevel("error");
        await connected.client.callTool({ name: "list_models", arguments: {} });
        await connected.client.setLoggingLevel("debug");
        await connected.client.callTool({ name: "get_model_info", arguments: { id: "x" } });
        // The barrier: the debug line of the third call; the second one's line never came.
        await connected.waitFor((n) => isLog("debug")(n) && /get_model_info failed/.test(logText(n)));
        assert.equal(connected.notifications.filter(isLog("debug")).length, 2);
      } finally {
        await connected.close();
      }
    });
    await t.step("each version over raw POST; every initialize opens its own session", async () => {
      const sessions = new Set<string>();
      for (const asked of ASKED) {
        const reply = await call(server.url, "POST", "/mcp", initializeMessage(asked), POST_HEADERS);
        assert.equal(reply.status, 200);
        assert.match(reply.headers.get("content-type")!, /application\/json/);
        assert.equal(reply.json.result.protocolVersion, answerFor(asked));
        sessions.add(reply.headers.get("mcp-session-id")!);
      }
      assert.equal(sessions.size, ASKED.length);
    });
  } finally {
    await server.close();
  }
});

Deno.test("HTTP: session lifecycle, 202 for notifications, batches, key gate, origin check", async (t) => {
  const server = await startTestServer({
    "svc.api.key": "k",
    "svc.mcp.allowed-origins": "http://good.example, https://other.example",
  });
  const auth = { ...POST_HEADERS, authorization: "Bearer k" };
  try {
    const init = await call(server.url, "POST", "/mcp", initializeMessage("2025-06-18"), auth);
    const session = init.headers.get("mcp-session-id")!;
    assert.ok(session);
    const inSession = { ...auth, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };

    await t.step("the key gate of every endpoint", async () => {
      const noKey = await call(server.url, "POST", "/mcp", initializeMessage("2025-06-18"), POST_HEADERS);
      assert.equal(noKey.status, 401);
    });
    await t.step("a body of only notifications is 202", async () => {
      const reply = await call(server.url, "POST", "/mcp", {
        jsonrpc: "2.0",
        method: "notifications/initialized",
      }, inSession);
      assert.equal(reply.status, 202);
      assert.equal(reply.text, "");
    });
    await t.step("a batch is answered as one JSON array", async () => {
      const reply = await call(server.url, "POST", "/mcp", [
        { jsonrpc: "2.0", id: "a", method: "ping" },
        { jsonrpc: "2.0", id: "b", method: "tools/list" },
      ], inSession);
      assert.equal(reply.status, 200);
      const byId = new Map(
        (reply.json as { id: string; result: Record<string, unknown> }[]).map((r) => [r.id, r]),
      );
      assert.deepEqual(byId.get("a")!.result, {});
      assert.equal((byId.get("b")!.result.tools as unknown[]).length, 32, "pair_browser too");
    });
    await t.step("GET opens the event stream of a session", async () => {
      const response = await fetch(`${server.url}/mcp`, {
        headers: { ...inSession, accept: "text/event-stream" },
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type")!, /text\/event-stream/);
      await response.body!.cancel();
      const noSession = await call(server.url, "GET", "/mcp", undefined, {
        authorization: "Bearer k",
        accept: "text/event-stream",
      });
      assert.equal(noSession.status, 400);
    });
    await t.step("an unknown resource is -32002 over HTTP too", async () => {
      const reply = await call(server.url, "POST", "/mcp", {
        jsonrpc: "2.0",
        id: 9,
        method: "resources/read",
        params: { uri: "svc://state/ghost" },
      }, inSession);
      assert.equal(reply.json.error.code, -32002);
    });
    await t.step("Origin: listed passes, unlisted is 403, absent passes", async () => {
      const good = await call(server.url, "POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, {
        ...inSession,
        origin: "http://good.example",
      });
      assert.equal(good.status, 200);
      const evil = await call(server.url, "POST", "/mcp", initializeMessage("2025-11-25"), {
        ...auth,
        origin: "http://evil.example",
      });
      assert.equal(evil.status, 403);
      assert.equal(evil.json.error.code, -32000);
    });
    await t.step("DELETE ends the session", async () => {
      assert.equal((await call(server.url, "DELETE", "/mcp", undefined, inSession)).status, 200);
      const after = await call(
        server.url,
        "POST",
        "/mcp",
        { jsonrpc: "2.0", id: 2, method: "ping" },
        inSession,
      );
      assert.equal(after.status, 404);
      const unknown = await call(server.url, "POST", "/mcp", { jsonrpc: "2.0", id: 3, method: "ping" }, {
        ...auth,
        "mcp-session-id": "no-such-session",
      });
      assert.equal(unknown.status, 404);
    });
    await t.step("a first POST that is not initialize opens no session", async () => {
      const reply = await call(server.url, "POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "ping" }, auth);
      assert.equal(reply.status, 400);
      assert.equal(reply.headers.get("mcp-session-id"), null);
    });
  } finally {
    await server.close();
  }
});
