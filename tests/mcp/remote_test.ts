/**
 * `svc mcp --url <server> --api-key <key>`: remote mode through the real CLI
 * process. Every tool behaves as in embedded mode (the pure authoring tools
 * run locally, the rest go to the server's REST API, whose errors, a 409
 * duplicate and a rollback included, come back as the same `isError`
 * results); subscriptions hear commits made by others through the server's
 * WebSocket feed; the key is never printed.
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
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
