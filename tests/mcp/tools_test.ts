/**
 * Every tool over both transports with the SDK's own client: stdio through the
 * real `svc mcp` process (embedded mode), Streamable HTTP against the real
 * server's `/mcp` behind its API key (the server's own models).
 */
import assert from "node:assert/strict";
import { call, startTestServer } from "../server/helpers.ts";
import { connectHttp, connectStdio, orderSpec } from "./helpers.ts";
import { checkEveryTool } from "./tool_suite.ts";

Deno.test("stdio (svc mcp, embedded): every tool's happy and failure path", async (t) => {
  const connected = await connectStdio();
  try {
    await checkEveryTool(t, connected);
  } finally {
    await connected.close();
  }
  assert.equal(await connected.process.stop(), 0);
});

Deno.test("HTTP /mcp: every tool's happy and failure path; its models are the server's", async (t) => {
  const server = await startTestServer({ "svc.api.key": "mcp-key" });
  const auth = { authorization: "Bearer mcp-key" };
  const connected = await connectHttp(server.url, auth);
  try {
    await checkEveryTool(t, connected, { hosted: true });
    await t.step("a model created over MCP is served by REST and vice versa", async () => {
      await connected.client.callTool({ name: "create_model", arguments: { spec: orderSpec("shared") } });
      assert.equal((await call(server.url, "GET", "/models/shared", undefined, auth)).json.id, "shared");
      await call(server.url, "POST", "/models", orderSpec("from-rest"), auth);
      const listed = await connected.client.callTool({ name: "list_models", arguments: {} });
      assert.deepEqual(listed.structuredContent, undefined);
      assert.deepEqual(JSON.parse((listed.content as { text: string }[])[0].text), ["from-rest", "shared"]);
    });
  } finally {
    await connected.close();
    await server.close();
  }
});
