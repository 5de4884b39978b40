/**
 * The `/mcp` mount point: a surface built from the open service is served at
 * `/mcp` behind the same key gate and headers, and closed at shutdown.
 */
import assert from "node:assert/strict";
import type { McpMount } from "../../server/app.ts";
import { call, startTestServer } from "./helpers.ts";

Deno.test("a mounted /mcp surface gets GET, POST and DELETE behind the key (others 405), and is closed at shutdown", async () => {
  const seen: string[] = [];
  let closed = false;
  let models: () => Promise<string[]> = () => Promise.resolve([]);
  const server = await startTestServer({ "svc.api.key": "mcp-key" }, {
    mcp: (service, config): McpMount => {
      models = () => service.listModels();
      assert.deepEqual(config.mcpAllowedOrigins, []);
      return {
        handle: async (request) => {
          seen.push(`${request.method} ${await request.text()}`);
          return Response.json({ models: await models() });
        },
        close: () => {
          closed = true;
          return Promise.resolve();
        },
      };
    },
  });
  try {
    const auth = { authorization: "Bearer mcp-key" };
    assert.equal((await call(server.url, "POST", "/mcp", { jsonrpc: "2.0" })).status, 401);
    const posted = await call(server.url, "POST", "/mcp", { jsonrpc: "2.0" }, auth);
    assert.deepEqual(posted.json, { models: [] });
    assert.equal(posted.headers.get("x-frame-options"), "DENY");
    assert.equal((await call(server.url, "GET", "/mcp", undefined, auth)).status, 200);
    assert.equal((await call(server.url, "DELETE", "/mcp", undefined, auth)).status, 200);
    // Methods MCP does not serve are 405 with the ones it does, as on every route (a JSON-RPC error on /mcp).
    for (const method of ["PUT", "PATCH"]) {
      const refused = await call(server.url, method, "/mcp", { jsonrpc: "2.0" }, auth);
      assert.equal(refused.status, 405, method);
      assert.equal(refused.headers.get("allow"), "GET, POST, DELETE");
      assert.deepEqual(refused.json.error, {
        code: -32000,
        message: `Method Not Allowed: ${method} is not supported on /mcp`,
      });
    }
    assert.deepEqual(seen, ['POST {"jsonrpc":"2.0"}', "GET ", "DELETE "]);
  } finally {
    await server.close();
  }
  assert.equal(closed, true);
});

Deno.test("svc.mcp.max-sessions caps the server's own /mcp sessions", async () => {
  const server = await startTestServer({ "svc.mcp.max-sessions": "1" });
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  const headers = { accept: "application/json, text/event-stream" };
  try {
    const first = await call(server.url, "POST", "/mcp", initialize, headers);
    assert.equal(first.status, 200, first.text);
    const second = await call(server.url, "POST", "/mcp", initialize, headers);
    assert.equal(second.status, 503);
    assert.match(second.json.error.message, /svc\.mcp\.max-sessions/);
  } finally {
    await server.close();
  }
});
