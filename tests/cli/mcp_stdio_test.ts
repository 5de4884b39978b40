/**
 * `svc mcp` as the real CLI process with its requests piped and stdin closed
 * at once (as `printf … | svc mcp` does): every request read is answered
 * before the process ends, and a server that cannot be loaded (a bad
 * configuration) answers with JSON-RPC errors instead of hanging.
 */
import assert from "node:assert/strict";
import { runCli } from "./helpers.ts";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
};

Deno.test("svc mcp answers every piped request though stdin closes right after them", async () => {
  const run = await runCli(["mcp"], {
    lines: [
      INITIALIZE,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "create_model", arguments: { spec: { id: "a", schema: { type: "object" } } } },
      },
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  // Requests run concurrently, as they always have: the quicker answer may come first.
  const answers = new Map(
    run.replies.filter((message) => "id" in message).map((message) => [message.id, message]),
  );
  assert.deepEqual([...answers.keys()].sort(), [1, 2, 3], run.stdout);
  assert.equal(answers.get(2).result.structuredContent.id, "a", run.stdout);
  assert.ok(answers.get(3).result.tools.length > 0);
});

Deno.test("svc mcp whose server fails to load answers the handshake, then each request with an internal error", async () => {
  const run = await runCli(["mcp"], {
    // Read when the service loads (a malformed svc.max-models stops the start instead: help_version_test.ts).
    env: { SVC_COMPOSITION_REPOSITORIES: "nonsense" },
    lines: [INITIALIZE, { jsonrpc: "2.0", id: 2, method: "tools/list" }],
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.replies[0].id, 1);
  assert.ok(run.replies[0].result.protocolVersion);
  assert.deepEqual(run.replies[1], {
    jsonrpc: "2.0",
    id: 2,
    error: {
      code: -32603,
      message: "Internal error: the MCP server did not start: " +
        "Configuration svc.composition.repositories (SVC_COMPOSITION_REPOSITORIES) must be a JSON array of " +
        `repositories: Unexpected token 'o', "nonsense" is not valid JSON`,
    },
  });
  assert.match(run.stderr, /mcp: Configuration svc\.composition\.repositories/);
});
