/**
 * Hostile input on MCP over Streamable HTTP at `/mcp` (a real server on a
 * loopback port): tool arguments of wrong types, huge, deeply nested, with
 * `__proto__` keys or out of range; garbage session ids, calls before
 * `initialize`, bodies over `svc.http.max-body-size`, a spent rate limit. Each
 * is refused with a clear JSON-RPC error or an `isError` result, the
 * committed state is unchanged, and the session keeps working.
 */
import assert from "node:assert/strict";
import { call, orderSpec, startTestServer } from "../server/helpers.ts";
import { initializeMessage, openSession, POST_HEADERS, rawStdio } from "./helpers.ts";

/** A JSON-RPC `tools/call` request. */
const toolCall = (id: number, name: string, args: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

/** The structured content of a tool result, asserting it is an error. */
function toolError(reply: { status: number; json: unknown }): Record<string, unknown> {
  assert.equal(reply.status, 200);
  const result = (reply.json as { result: { isError: boolean; structuredContent: Record<string, unknown> } })
    .result;
  assert.equal(result.isError, true, JSON.stringify(reply.json));
  return result.structuredContent;
}

Deno.test("/mcp: hostile tool arguments are refused clearly; the state and the session are intact", async (t) => {
  const server = await startTestServer();
  try {
    const headers = await openSession(server.url);
    const post = (body: unknown) => call(server.url, "POST", "/mcp", body, headers);
    assert.equal((await post(toolCall(1, "create_model", { spec: orderSpec("o") }))).status, 200);
    const first = await post(toolCall(0, "mutate", { id: "o", mutations: { "$.qty": 2 } }));
    assert.equal(first.json.result.isError, false);
    const state = async () => (await call(server.url, "GET", "/models/o/state")).json;
    const before = await state();

    await t.step("an unknown tool is -32602 naming it", async () => {
      const reply = await post(toolCall(2, "drop_everything", {}));
      assert.deepEqual(reply.json.error, { code: -32602, message: "Unknown tool: drop_everything" });
    });
    await t.step("arguments of the wrong type: -32602 for the envelope, isError for a member", async () => {
      // One clear line naming the member, the code not repeated in the message.
      assert.deepEqual((await post(toolCall(3, "mutate", "id=o"))).json.error, {
        code: -32602,
        message:
          "Invalid params for tools/call: params.arguments: Invalid input: expected record, received string",
      });
      assert.deepEqual((await post({ ...toolCall(3, "x", {}), params: { name: 5 } })).json.error, {
        code: -32602,
        message:
          "Invalid params for tools/call: params.name: Invalid input: expected string, received number",
      });
      assert.equal(
        toolError(await post(toolCall(4, "mutate", { id: "o", mutations: "x" }))).error,
        "Invalid field 'mutations': expected object",
      );
      assert.equal(
        toolError(await post(toolCall(5, "mutate", { id: 5, mutations: { "$.qty": 1 } }))).error,
        "Invalid field 'id': expected string",
      );
      assert.match(
        String(toolError(await post(toolCall(6, "mutate", { id: "o", mutations: {}, extra: 1 }))).error),
        /^Unknown argument 'extra' for mutate/,
      );
    });
    await t.step("a member of a spec or an evolution passed beside it is said to go inside it", async () => {
      const evolve = { id: "o", evolution: { newVersion: "2.0.0" }, expectedVersion: "1.0.0" };
      assert.equal(
        toolError(await post(toolCall(6, "evolve_spec", evolve))).error,
        "Unknown argument 'expectedVersion' for evolve_spec; expected: id, evolution; " +
          "'expectedVersion' goes inside 'evolution'",
      );
      assert.equal(
        toolError(await post(toolCall(6, "create_model", { id: "flat", schema: { type: "object" } }))).error,
        "Unknown argument 'id' for create_model; expected: spec; 'id' goes inside 'spec'",
      );
    });
    await t.step("1e309 and deep nesting are refused before anything is written", async () => {
      const infinite = await post(
        '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mutate","arguments":' +
          '{"id":"o","mutations":{"$.qty":1e309}}}}',
      );
      assert.equal(toolError(infinite).error, "Schema violation");
      const deep = "[".repeat(50_000) + "]".repeat(50_000);
      const nested = await post(
        `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"mutate","arguments":` +
          `{"id":"o","mutations":{"$.note":${deep}}}}}`,
      );
      assert.match(String(toolError(nested).error), /nested deeper than svc\.limits\.max-depth/);
    });
    await t.step("a __proto__ mutation key is refused like any key that is no address", async () => {
      for (const mutations of ['{"__proto__":{"qty":9}}', '{"$.qty":9,"__proto__":{"qty":9}}']) {
        const reply = await post(
          `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mutate","arguments":` +
            `{"id":"o","mutations":${mutations}}}}`,
        );
        assert.match(String(toolError(reply).error), /^Invalid mutation path: '__proto__'/, mutations);
      }
      const argument = await post(
        '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mutate","arguments":' +
          '{"id":"o","mutations":{"$.qty":9},"__proto__":{"id":"o"}}}}',
      );
      assert.equal(
        toolError(argument).error,
        "Unknown argument '__proto__' for mutate; expected: id, mutations, includeTraces",
      );
    });
    await t.step("a huge id, argument name, tool name or resource is quoted short in the error", async () => {
      const huge = "x".repeat(200_000);
      const cut = `${"x".repeat(200)}… (200000 characters)`;
      const reply = await post(toolCall(10, "get_model_info", { id: huge }));
      assert.equal(toolError(reply).error, `Model '${cut}' not found`);
      const argument = await post(toolCall(10, "get_model_info", { id: "o", [huge]: 1 }));
      assert.match(
        String(toolError(argument).error),
        /^Unknown argument 'x{200}… \(200000 characters\)' for /,
      );
      assert.deepEqual((await post(toolCall(10, huge, {}))).json.error, {
        code: -32602,
        message: `Unknown tool: ${cut}`,
      });
      const read = { jsonrpc: "2.0", id: 10, method: "resources/read", params: { uri: huge } };
      assert.deepEqual((await post(read)).json.error, {
        code: -32002,
        message: `Resource not found: ${cut}`,
        data: { uri: cut },
      });
    });
    await t.step("nothing was committed and the session still answers", async () => {
      assert.deepEqual(await state(), before);
      assert.deepEqual((await post({ jsonrpc: "2.0", id: 11, method: "ping" })).json.result, {});
    });
  } finally {
    await server.close();
  }
});

Deno.test("/mcp: malformed JSON-RPC gets stdio's codes: -32700 not JSON, -32600 not a message, batches per member", async () => {
  const server = await startTestServer();
  try {
    const headers = await openSession(server.url);
    const post = (body: unknown) => call(server.url, "POST", "/mcp", body, headers);
    const invalid = (id: unknown) => ({
      jsonrpc: "2.0",
      id,
      error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" },
    });
    const notJson = await post("{not json");
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.error.code, -32700);
    const single: [unknown, unknown][] = [
      [{ id: 1, method: "ping" }, 1], // no jsonrpc
      [{ jsonrpc: "1.0", id: 2, method: "ping" }, 2],
      [{ jsonrpc: "2.0", id: 3 }, 3], // no method
      [{ jsonrpc: "2.0", id: 4, method: 4 }, 4],
      [{ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }, null],
      [{ jsonrpc: "2.0", id: 5, method: "tools/call", params: "list_models" }, 5],
      ["ping", null],
      [null, null],
      [[], null], // an empty batch
    ];
    for (const [body, id] of single) {
      const reply = await post(JSON.stringify(body));
      assert.equal(reply.status, 400, JSON.stringify(body));
      assert.deepEqual(reply.json, invalid(id), JSON.stringify(body));
    }
    // A batch: its valid members answered, each other member its own -32600.
    const batch = await post([{ jsonrpc: "2.0", id: "a", method: "ping" }, { hello: 1 }, 7, {
      jsonrpc: "2.0",
      id: "b",
      method: "bogus/method",
    }]);
    assert.equal(batch.status, 200);
    const answers = batch.json as { id: unknown; result?: unknown; error?: { code: number } }[];
    assert.deepEqual(
      answers.map((a) => [a.id, a.error?.code ?? a.result]).sort((x, y) =>
        String(x[0]).localeCompare(String(y[0]))
      ),
      [["a", {}], ["b", -32601], [null, -32600], [null, -32600]],
    );
    const tooMany = await post(
      Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })),
    );
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.json.error.code, -32600);
    assert.match(tooMany.json.error.message, /100 messages/);
    // Notifications and garbage: the errors only.
    const quiet = await post([{ jsonrpc: "2.0", method: "notifications/initialized" }, 1]);
    assert.equal(quiet.status, 200);
    assert.deepEqual(quiet.json, [invalid(null)]);
    assert.deepEqual((await post({ jsonrpc: "2.0", id: 9, method: "ping" })).json.result, {});
    // Without a session, a body that is no message opens none.
    const stray = await call(server.url, "POST", "/mcp", { hello: 1 }, POST_HEADERS);
    assert.deepEqual(stray.json, invalid(null));
    assert.equal(stray.headers.get("mcp-session-id"), null);
  } finally {
    await server.close();
  }
});

Deno.test("/mcp: garbage session ids are 404 -32001, calls before initialize 400; neither opens a session", async () => {
  const server = await startTestServer({ "svc.mcp.max-sessions": "1" });
  try {
    for (const id of ["garbage", "' OR 1=1 --", "x".repeat(4096), crypto.randomUUID()]) {
      const reply = await call(server.url, "POST", "/mcp", toolCall(1, "list_models", {}), {
        ...POST_HEADERS,
        "mcp-session-id": id,
      });
      assert.equal(reply.status, 404);
      assert.equal(reply.json.error.code, -32001);
      assert.match(
        reply.json.error.message,
        /^Session not found \(.*\): POST initialize without Mcp-Session-Id/,
      );
    }
    const early = await call(
      server.url,
      "POST",
      "/mcp",
      toolCall(2, "create_model", { spec: orderSpec("x") }),
      {
        ...POST_HEADERS,
      },
    );
    assert.equal(early.status, 400);
    assert.equal(early.json.error.code, -32000);
    assert.deepEqual((await call(server.url, "GET", "/models")).json, [], "the early create did not run");
    // The one session the cap allows is still free.
    await openSession(server.url);
  } finally {
    await server.close();
  }
});

Deno.test("/mcp reads bodies up to svc.http.max-body-size, not the SDK's 4 MiB; a larger one is 413", async () => {
  const server = await startTestServer({ "svc.http.max-body-size": "6MB" });
  try {
    const headers = await openSession(server.url);
    // 4.5 MiB of base64: over the SDK's default cap, under the server's.
    const data = "A".repeat(4.5 * 1024 * 1024);
    const upload = await call(server.url, "POST", "/mcp", toolCall(1, "upload_blob", { data }), headers);
    assert.equal(upload.status, 200, upload.text.slice(0, 300));
    assert.equal(upload.json.result.isError, false);
    const over = await call(
      server.url,
      "POST",
      "/mcp",
      toolCall(2, "upload_blob", { data: data + data }),
      headers,
    );
    assert.equal(over.status, 413);
    // A JSON-RPC error without an id, as the SDK's transport refuses a body (a problem document on other routes).
    assert.equal(over.headers.get("content-type"), "application/json");
    assert.deepEqual(over.json, {
      jsonrpc: "2.0",
      error: { code: -32000, message: "Content Too Large: Request body exceeds the limit of 6291456 bytes" },
      id: null,
    });
    assert.deepEqual(
      (await call(server.url, "POST", "/mcp", { jsonrpc: "2.0", id: 3, method: "ping" }, headers)).json
        .result,
      {},
    );
  } finally {
    await server.close();
  }
});

Deno.test("/mcp shares the per-IP rate limit: 429 with Retry-After, and nothing runs", async () => {
  const server = await startTestServer({
    "svc.rate-limit.enabled": "true",
    "svc.rate-limit.requests": "3",
    "svc.rate-limit.window-seconds": "60",
  });
  try {
    const headers = await openSession(server.url);
    const post = (id: number) =>
      call(server.url, "POST", "/mcp", toolCall(id, "create_model", { spec: orderSpec(`m${id}`) }), headers);
    assert.equal((await post(1)).status, 200);
    assert.equal((await post(2)).status, 200);
    const refused = await post(3);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.equal(refused.headers.get("content-type"), "application/json");
    assert.equal(refused.json.jsonrpc, "2.0");
    assert.equal(refused.json.id, null);
    assert.equal(refused.json.error.code, -32000);
    assert.match(refused.json.error.message, /^Too Many Requests: /);
    // Other routes keep the problem document.
    const rest = await call(server.url, "GET", "/models");
    assert.equal(rest.status, 429);
    assert.equal(rest.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(await server.service.listModels(), ["m1", "m2"], "the refused create did not run");
  } finally {
    await server.close();
  }
});

Deno.test("stdio: a malformed tools/call is one clear -32602 line; __proto__ keys are refused; later lines answered", async () => {
  const lines = [
    JSON.stringify(initializeMessage("2025-06-18", 1)),
    JSON.stringify(toolCall(2, "list_models", [1])),
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_models","arguments":{"__proto__":{}}}}',
    JSON.stringify(toolCall(4, "dry_run", { spec: orderSpec("d"), mutations: { "$.qty": 1 } }))
      .replace('"mutations":{', '"mutations":{"__proto__":{"qty":9},'),
    JSON.stringify({ jsonrpc: "2.0", id: 5, method: "resources/read", params: { uri: 5 } }),
    JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }),
  ];
  const byId = new Map((await rawStdio(lines, 6)).map((a) => [a.id, a]));
  assert.deepEqual(byId.get(2)!.error, {
    code: -32602,
    message:
      "Invalid params for tools/call: params.arguments: Invalid input: expected record, received array",
  });
  const text = (id: number) =>
    JSON.stringify((byId.get(id)!.result as { structuredContent: unknown }).structuredContent);
  assert.match(text(3), /Unknown argument '__proto__' for list_models/);
  assert.match(text(4), /Invalid mutation path: '__proto__'/);
  assert.deepEqual(byId.get(5)!.error, {
    code: -32602,
    message: "Invalid params for resources/read: params.uri: Invalid input: expected string, received number",
  });
  assert.deepEqual(byId.get(6)!.result, {});
});

Deno.test("stdio caps a batch at 100 members as /mcp does, with /mcp's error; 100 are answered", async () => {
  const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
  const pings = (from: number, count: number) => Array.from({ length: count }, (_, i) => ping(from + i));
  const server = await startTestServer();
  let overHttp: unknown;
  try {
    const headers = await openSession(server.url);
    const reply = await call(server.url, "POST", "/mcp", pings(1000, 101), headers);
    assert.equal(reply.status, 400);
    overHttp = reply.json;
  } finally {
    await server.close();
  }
  const lines = [JSON.stringify(initializeMessage("2025-03-26", 1)), JSON.stringify(pings(1000, 101))]
    .concat(JSON.stringify(pings(2000, 100)), JSON.stringify(ping(3)));
  const answers = await rawStdio(lines, 4);
  assert.deepEqual(answers[1], {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32600, message: "Invalid Request: Batch must not exceed 100 messages" },
  });
  assert.deepEqual(answers[1], overHttp, "the same answer on both transports");
  const [full] = answers.filter(Array.isArray) as unknown as { id: number; result: unknown }[][];
  assert.equal(full.length, 100, "a batch of 100 is answered in full");
  assert.deepEqual(answers.at(-1), { jsonrpc: "2.0", id: 3, result: {} });
});

Deno.test("/mcp: a 401 keeps {error} and WWW-Authenticate, a 405 is a JSON-RPC error", async () => {
  const server = await startTestServer({ "svc.api-key": "k".repeat(32) });
  try {
    const refused = await call(server.url, "POST", "/mcp", initializeMessage("2025-06-18"), POST_HEADERS);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get("content-type"), "application/json");
    assert.equal(refused.headers.get("www-authenticate"), 'Bearer realm="svc"');
    assert.deepEqual(Object.keys(refused.json), ["error"]);
    const put = await call(server.url, "PUT", "/mcp", {}, { authorization: `Bearer ${"k".repeat(32)}` });
    assert.equal(put.status, 405);
    assert.ok(put.headers.get("allow"));
    assert.equal(put.json.error.code, -32000);
    assert.match(put.json.error.message, /^Method Not Allowed: /);
  } finally {
    await server.close();
  }
});

Deno.test("a hostile field name is cut short in violations' paths and findings' locations: REST and /mcp", async () => {
  const server = await startTestServer();
  try {
    // A 100 KB field name with a control character: each answer naming it stays small and starts with it.
    const name = "f\u0007" + "x".repeat(100_000);
    const cut = `f\u0007${"x".repeat(198)}… (100002 characters)`;
    const small = (reply: { text: string }) =>
      assert.ok(reply.text.length < 5000, `${reply.text.length} chars`);
    const spec = { id: "h", schema: { type: "object", properties: { [name]: { type: "number" } } } };
    assert.equal((await call(server.url, "POST", "/models", spec)).status, 201);
    // The field written inside a root value: its own address is past the 1024-character limit (refused at the door).
    const wrong = { "$": { [name]: "not a number" } };
    const violation = await call(server.url, "POST", "/models/h/mutations", wrong);
    assert.equal(violation.status, 422);
    small(violation);
    assert.equal(violation.json.violations[0].path, `$['${cut}']`);
    // An unknown top-level member of a spec is a finding located at its name.
    const unknown = { id: "u", schema: { type: "object" }, [name]: 1 };
    const invalid = await call(server.url, "POST", "/models", unknown);
    assert.equal(invalid.status, 422);
    small(invalid);
    assert.equal(invalid.json.errors[0].location, cut);
    // An evolution's finding too: a constant both upserted and removed.
    const both = { upsertConstants: { [name]: 1 }, removeConstants: [name] };
    const refused = await call(server.url, "POST", "/models/h/spec/evolve", both);
    assert.equal(refused.status, 422);
    small(refused);
    const at = `upsertConstants.${name}`;
    assert.equal(refused.json.errors[0].location, `${at.slice(0, 200)}… (${at.length} characters)`);

    const headers = await openSession(server.url);
    const post = (body: unknown) => call(server.url, "POST", "/mcp", body, headers);
    const mutated = await post(toolCall(1, "mutate", { id: "h", mutations: wrong }));
    small(mutated);
    assert.deepEqual(toolError(mutated).violations, violation.json.violations);
    const validated = await post(toolCall(2, "validate_spec", { spec: unknown }));
    small(validated);
    const report = validated.json.result.structuredContent;
    assert.equal(report.valid, false);
    assert.deepEqual(report.errors, invalid.json.errors);
  } finally {
    await server.close();
  }
});
