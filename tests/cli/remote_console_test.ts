/**
 * `svc console --url`: the real CLI process against the real server (API key
 * on). The same console script answers the same in remote and embedded mode
 * (including the 409 duplicate, the rollback, the schema violation and the
 * version conflict, each as `ok:false` with the server's message); a wrong key
 * is an error on every call; the key never appears in anything printed.
 */
import assert from "node:assert/strict";
import { orderSpec, startTestServer } from "../server/helpers.ts";
import { silentServer } from "../silent_server.ts";
import { runCli } from "./helpers.ts";

const KEY = "cli-remote-test-key-5f2c";

/** Console lines exercising every kind of answer; volatile results are checked apart. */
const SCRIPT: Record<string, unknown>[] = [
  { cmd: "create-model", spec: orderSpec() },
  { cmd: "create-model", spec: orderSpec() },
  { cmd: "mutate", id: "order", mutations: { "$.qty": 2, "$.price": 3 } },
  { cmd: "mutate", id: "order", mutations: { "$.qty": 101 } },
  { cmd: "mutate", id: "order", mutations: { "$.qty": -1 } },
  { cmd: "get-field", id: "order", path: "$.total" },
  { cmd: "get-field", id: "order", path: "$.note" },
  { cmd: "get-state", id: "order" },
  { cmd: "get-info", id: "order" },
  { cmd: "get-spec", id: "order" },
  { cmd: "patch-mutate", id: "order", patch: [{ op: "add", path: "/items", value: [{ sku: "a" }] }] },
  { cmd: "get-field", id: "order", path: "$.items[0].sku" },
  { cmd: "get-schema", id: "order", path: "$.qty" },
  { cmd: "evolve-spec", id: "order", evolution: { newVersion: "2.0.0", expectedVersion: "9.9.9" } },
  { cmd: "evolve-spec", id: "order", evolution: { upsertDerivations: [{ path: "$.x", expr: "(" }] } },
  { cmd: "upload-blob", data: btoa("hello"), mediaType: "text/plain" },
  { cmd: "get-blob", blobId: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" },
  { cmd: "get-graph", id: "order" },
  { cmd: "get-verification", id: "order" },
  { cmd: "get-view", id: "order" },
  { cmd: "restore", id: "order", snapshot: { modelId: "other", baseDoc: {} } },
  { cmd: "get-field", id: "nope", path: "$.x" },
  { cmd: "no-such-command" },
  // A path member no URL segment carries: refused alike, not another route's answer over HTTP.
  { cmd: "get-info", id: "" },
  { cmd: "get-field", id: "order", path: "" },
  { cmd: "get-info", id: ".." },
  { cmd: "delete-model", id: "order" },
  { cmd: "get-info", id: "order" },
];

Deno.test("remote console answers like the embedded one, errors carry the server's message", async () => {
  const server = await startTestServer({ "svc.api.key": KEY });
  try {
    const remote = await runCli(["console", "--url", server.url, "--api-key", KEY], { lines: SCRIPT });
    const embedded = await runCli(["console"], { lines: SCRIPT });
    assert.equal(remote.code, 0, remote.stderr);
    assert.equal(remote.replies.length, SCRIPT.length, remote.stdout);
    assert.deepEqual(remote.replies, embedded.replies);

    const [created, duplicate, , rollback, schema] = remote.replies;
    assert.deepEqual(created, { ok: true, result: { id: "order", status: "created" } });
    assert.deepEqual(duplicate, {
      ok: false,
      error: "Model 'order' already exists: delete it first, or evolve its spec",
    });
    assert.deepEqual(rollback, { ok: false, error: "Constraint violated: qty must not exceed 100" });
    assert.equal(schema.ok, false);
    assert.match(schema.error, /^Schema violation: \$\.qty \(minimum\)/);
    assert.deepEqual(remote.replies[13], {
      ok: false,
      error: "Version conflict: expected 9.9.9, actual 1.0.0",
    });
    assert.deepEqual(remote.replies.slice(-5, -2), [
      { ok: false, error: "Invalid field 'id': must not be empty" },
      { ok: false, error: "Invalid field 'path': must not be empty" },
      { ok: false, error: "Invalid field 'id': '..' names no resource" },
    ]);
    assert.deepEqual(remote.replies.at(-1), { ok: false, error: "Model 'order' not found" });
    for (const text of [remote.stdout, remote.stderr, ...server.logs]) assert.ok(!text.includes(KEY));
  } finally {
    await server.close();
  }
});

Deno.test("remote console: the server's data is shared; SVC_URL and SVC_API_KEY select remote mode", async () => {
  const server = await startTestServer({ "svc.api.key": KEY });
  try {
    const env = { SVC_URL: server.url, SVC_API_KEY: KEY };
    const first = await runCli([], { env, lines: [{ cmd: "create-model", spec: orderSpec("shared") }] });
    assert.deepEqual(first.replies, [{ ok: true, result: { id: "shared", status: "created" } }]);
    const second = await runCli(["console"], {
      env,
      lines: [
        { cmd: "list-models" },
        { cmd: "mutate", id: "shared", mutations: { "$.qty": 1, "$.price": 2 } },
        { cmd: "get-history", id: "shared" },
        { cmd: "verify-audit", id: "shared" },
        { cmd: "get-audit", id: "shared", pathPrefix: "$.qty", limit: 1 },
        { cmd: "explain", id: "shared", path: "$.total", limit: 1 },
        { cmd: "snapshot", id: "shared" },
      ],
    });
    const [list, , history, verify, audit, explain, snapshot] = second.replies.map((r) => r.result);
    assert.deepEqual(list, ["shared"]);
    assert.equal(history.length, 1);
    assert.equal(verify.valid, true);
    assert.equal(audit.length, 1);
    assert.deepEqual(audit[0].mutations, { "$.qty": 1, "$.price": 2 });
    assert.equal(explain[0].targetPath, "$.total");
    assert.deepEqual(snapshot.baseDoc, { qty: 1, price: 2 });
    // The restore of what snapshot returned goes through the server too.
    const restored = await runCli([], { env, lines: [{ cmd: "restore", id: "shared", snapshot }] });
    assert.deepEqual(restored.replies, [{ ok: true, result: { restored: true } }]);
    for (const run of [first, second, restored]) {
      assert.ok(!run.stdout.includes(KEY) && !run.stderr.includes(KEY));
    }
  } finally {
    await server.close();
  }
});

Deno.test("remote console: a wrong or missing key is an error on every call, and is never printed", async () => {
  const server = await startTestServer({ "svc.api.key": KEY });
  try {
    const wrongKey = "wrong-key-9d1e";
    const lines = [{ cmd: "list-models" }, { cmd: "create-model", spec: orderSpec() }];
    const wrong = await runCli(["console", "--api-key", wrongKey], { env: { SVC_URL: server.url }, lines });
    const missing = await runCli(["console", `--url=${server.url}`], { lines });
    for (const run of [wrong, missing]) {
      assert.equal(run.code, 0);
      assert.deepEqual(run.replies, [
        { ok: false, error: "Missing or invalid API key" },
        { ok: false, error: "Missing or invalid API key" },
      ]);
    }
    for (const text of [wrong.stdout, wrong.stderr, ...server.logs]) assert.ok(!text.includes(wrongKey));
  } finally {
    await server.close();
  }
});

Deno.test("remote console: an unreachable server and a malformed URL are reported without the key", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close(); // a port nobody listens on
  const down = await runCli(["console", "--url", `http://127.0.0.1:${port}`, "--api-key", KEY], {
    lines: [{ cmd: "list-models" }],
  });
  assert.equal(down.replies[0].ok, false);
  assert.match(
    down.replies[0].error,
    new RegExp(`^Cannot reach the server at http://127\\.0\\.0\\.1:${port}: `),
  );
  const malformed = await runCli(["console", "--url", "ftp://x"], { env: { SVC_API_KEY: KEY } });
  assert.equal(malformed.code, 2);
  assert.match(malformed.stderr, /Invalid server URL 'ftp:\/\/x': only http and https are supported/);
  for (const run of [down, malformed]) assert.ok(!run.stdout.includes(KEY) && !run.stderr.includes(KEY));
});

Deno.test("remote console: --timeout or SVC_REMOTE_TIMEOUT_MS bounds the wait for a server that never answers", async () => {
  await using silent = silentServer();
  const runs = [
    ["--timeout", "300", {}, ["console", "--url", silent.url, "--timeout", "300"]],
    ["SVC_REMOTE_TIMEOUT_MS", "300", { SVC_REMOTE_TIMEOUT_MS: "300" }, ["console", "--url", silent.url]],
    ["--browser", "300", {}, ["console", "--url", silent.url, "--browser", "--timeout=300"]],
  ] as const;
  for (const [what, ms, env, args] of runs) {
    const command = what === "--browser" ? "pair-browser" : "list-models";
    const run = await runCli([...args], { env: { ...env }, lines: [{ cmd: command }] });
    assert.equal(run.code, 0, `${what}: ${run.stderr}`);
    // The configured bound ended the wait: the reply names it.
    assert.deepEqual(run.replies, [{
      ok: false,
      error: `The server at ${silent.url} did not answer within ${ms} ms`,
    }], what);
  }
  const refused = await runCli(["console", "--url", silent.url, "--timeout", "0"], {
    lines: [{ cmd: "list-models" }],
  });
  assert.equal(refused.code, 2);
  assert.match(
    refused.stderr,
    /Option --timeout must be a whole number of milliseconds from 1 to 2147483647, got '0'/,
  );
  assert.equal(refused.stdout, "", "nothing ran");
});

Deno.test("remote console: commands answered locally never reach the server", async () => {
  let requests = 0;
  const counter = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    requests++;
    return new Response("{}", { status: 500 });
  });
  try {
    const run = await runCli(["console", "--url", `http://127.0.0.1:${counter.addr.port}`], {
      lines: [{ cmd: "help" }, "not json", { cmd: "no-such-command" }, { cmd: "mutate" }, { cmd: "exit" }],
    });
    assert.equal(run.replies.length, 5);
    assert.equal(run.replies[0].ok, true);
    assert.deepEqual(run.replies.slice(1, 4).map((r) => r.ok), [false, false, false]);
    assert.deepEqual(run.replies[4], { ok: true, result: "bye" });
    assert.equal(requests, 0);
  } finally {
    await counter.shutdown();
  }
});

/** A loopback server that answers each request with a status line and half a body, then holds (or, with `cut`, closes) the connection. */
function halfAnswerServer(cut: boolean) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n[";
  const serving = (async () => {
    for await (const conn of listener) {
      held.push(conn);
      await conn.read(new Uint8Array(64 * 1024));
      await conn.write(new TextEncoder().encode(head));
      if (cut) conn.close();
    }
  })();
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    async [Symbol.asyncDispose]() {
      listener.close();
      await serving;
      for (const conn of held) {
        try {
          conn.close();
        } catch { /* closed already */ }
      }
    },
  };
}

Deno.test("remote console: a server that stalls after its status line is bounded; one that breaks off its answer says so", async () => {
  await using stalled = halfAnswerServer(false);
  const waited = await runCli(["console", "--url", stalled.url, "--timeout", "300"], {
    lines: [{ cmd: "list-models" }],
  });
  assert.deepEqual(waited.replies, [{
    ok: false,
    error: `The server at ${stalled.url} did not answer within 300 ms`,
  }]);
  await using broken = halfAnswerServer(true);
  const cut = await runCli(["console", "--url", broken.url], { lines: [{ cmd: "list-models" }] });
  assert.equal(cut.replies.length, 1, cut.stdout);
  assert.match(cut.replies[0].error, new RegExp(`^The server at ${broken.url} broke off its answer: `));
  // An answer of no one, not an internal error of the console: no stack trace.
  assert.equal(cut.stderr, "");
});

Deno.test("remote console: a server that redirects (http to https) is named, its redirect not followed", async () => {
  const server = await startTestServer({ "svc.api.key": KEY });
  // Followed, the 301 would turn the create into a list (and the other origin would not get the key).
  const redirecting = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const { pathname } = new URL(request.url);
    return new Response(null, { status: 301, headers: { location: server.url + pathname } });
  });
  try {
    const url = `http://127.0.0.1:${redirecting.addr.port}`;
    const run = await runCli(["console", "--url", url, "--api-key", KEY], {
      lines: [{ cmd: "create-model", spec: orderSpec() }],
    });
    assert.deepEqual(run.replies, [{
      ok: false,
      error: `The server at ${url} redirects POST to ${server.url}/models (HTTP 301); not followed: ` +
        "use that address",
    }]);
    assert.ok(!run.stdout.includes(KEY) && !run.stderr.includes(KEY));
  } finally {
    await redirecting.shutdown();
    await server.close();
  }
});
