/**
 * `svc mcp --url <server> --api-key <key>`: remote mode through the real CLI
 * process. Every tool behaves as in embedded mode (the pure authoring tools
 * run locally, the rest go to the server's REST API, whose errors, a 409
 * duplicate and a rollback included, come back as the same `isError`
 * results); subscriptions hear commits made by others through the server's
 * WebSocket feed, follow it through a restart and end when it is refused for
 * good; the key is never printed.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { call, startTestServer } from "../server/helpers.ts";
import { connectStdio, orderSpec, textOf } from "./helpers.ts";
import { checkEveryTool } from "./tool_suite.ts";

const KEY = "remote-secret-key-4711";

Deno.test("stdio remote mode: every tool against the server, commits by others notify, key never printed", async (t) => {
  const server = await startTestServer({ "svc.api.key": KEY });
  const auth = { authorization: `Bearer ${KEY}` };
  const connected = await connectStdio(["--url", server.url, "--api-key", KEY]);
  try {
    const ready = await connected.waitFor((n) => n.method === "notifications/message");
    assert.match(String((ready.params as { data: unknown }).data), /mode remote/);
    await checkEveryTool(t, connected);

    await t.step("commits and a deletion through REST by someone else notify a subscriber", async () => {
      await connected.client.callTool({ name: "create_model", arguments: { spec: orderSpec() } });
      await connected.client.subscribeResource({ uri: "svc://state/order" });
      assert.equal(
        (await call(server.url, "POST", "/models/order/mutations", { "$.qty": 3 }, auth)).status,
        200,
      );
      const updates = () =>
        connected.notifications.filter((n) => n.method === "notifications/resources/updated").length;
      await connected.waitFor(() => updates() === 1);
      // A deletion ends the feed; the subscriber hears it as one more update.
      assert.equal((await call(server.url, "DELETE", "/models/order", undefined, auth)).status, 204);
      await connected.waitFor(() => updates() === 2);
    });
  } finally {
    await connected.close();
    await server.close();
  }
  const code = await connected.process.stop();
  assert.equal(code, 0);
  assert.ok(!connected.process.stdout().includes(KEY), "the key is not on stdout");
  assert.ok(!connected.process.stderr().includes(KEY), "the key is not on stderr");
});

Deno.test("stdio remote mode: a subscription follows the server through a restart, and ends when the model is gone or the key refused", async () => {
  const dir = await Deno.makeTempDir();
  const keys = { "svc.api.key": KEY, "svc.storage.type": "filesystem", "svc.persistence-dir": dir };
  const auth = { authorization: `Bearer ${KEY}` };
  let server = await startTestServer(keys);
  const { url, port } = server;
  // The same address again, with the same models (or, `memory`, with none).
  const restart = async (storage: Record<string, string> = {}) => {
    await server.close();
    server = await startTestServer({ ...keys, ...storage, "svc.port": String(port) });
  };
  const connected = await connectStdio(["--url", url, "--api-key", KEY]);
  const updates = () =>
    connected.notifications.filter((n) => n.method === "notifications/resources/updated").length;
  const logged = (pattern: RegExp) => (n: ServerNotification) =>
    n.method === "notifications/message" && n.params.level === "warning" &&
    pattern.test(String(n.params.data));
  try {
    await connected.client.callTool({ name: "create_model", arguments: { spec: orderSpec() } });
    await connected.client.subscribeResource({ uri: "svc://state/order" });

    await restart();
    await connected.waitFor(logged(/'order' interrupted/));
    // Reconnected: one update for what may have committed meanwhile, then the feed's frames again.
    await connected.waitFor(() => updates() === 1, 15_000);
    assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 3 }, auth)).status, 200);
    await connected.waitFor(() => updates() === 2);

    // Back without the model: its feed is refused for good, the subscriber hears it once and is told why.
    await restart({ "svc.storage.type": "memory" });
    await connected.waitFor(logged(/'order' stopped: the model was deleted/), 15_000);
    await connected.waitFor(() => updates() === 3);
    // No reconnect follows: the model made anew under the same id is not followed.
    assert.equal((await call(url, "POST", "/models", orderSpec(), auth)).status, 201);
    assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 4 }, auth)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.equal(updates(), 3);

    // Subscribed again, then back with another key: refused for good too, without an update.
    await connected.client.subscribeResource({ uri: "svc://state/order" });
    await restart({ "svc.api.key": "another-key-0815" });
    await connected.waitFor(logged(/'order' stopped: .*API key/), 15_000);
    assert.equal(updates(), 3);
  } finally {
    await connected.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("stdio remote mode: a wrong key surfaces as isError with the server's message", async () => {
  const server = await startTestServer({ "svc.api.key": KEY });
  const connected = await connectStdio(["--url", server.url], { SVC_API_KEY: "wrong-key-0815" });
  try {
    const result = await connected.client.callTool({ name: "list_models", arguments: {} }) as CallToolResult;
    assert.equal(result.isError, true);
    assert.match((textOf(result) as { error: string }).error, /API key/);
    // The pure authoring tools never need the server.
    const local = await connected.client.callTool({ name: "eval_expression", arguments: { expr: "1 + 1" } });
    assert.deepEqual(local.structuredContent, { result: 2, type: "number" });
  } finally {
    await connected.close();
    await server.close();
  }
  assert.ok(!connected.process.stderr().includes("wrong-key-0815"));
  assert.ok(!connected.process.stdout().includes("wrong-key-0815"));
});
