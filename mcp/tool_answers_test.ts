/**
 * What MCP tools tell an agent: every description reads as a sentence of its
 * own (what to pass, what comes back), `explain` names the targets it takes
 * and refuses one the model does not have as every surface does, and
 * `evolve_spec` answers with the evolved spec's warnings.
 */
import assert from "node:assert/strict";
import { ModelService } from "../engine/service/service.ts";
import { createMcpHttpMount } from "./http.ts";
import { TOOLS } from "./tools.ts";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** An MCP session over `/mcp` in process: `call` answers a tools/call with its result. */
async function session(service: ModelService) {
  const mount = createMcpHttpMount(service, { allowedOrigins: [] });
  const send = (message: unknown, headers: Record<string, string> = {}) =>
    mount.handle(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { ...HEADERS, ...headers },
        body: JSON.stringify(message),
      }),
    );
  const opened = await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  await opened.body?.cancel();
  const inSession = {
    "mcp-session-id": opened.headers.get("mcp-session-id")!,
    "mcp-protocol-version": "2025-11-25",
  };
  let id = 1;
  return {
    call: async (name: string, args: Record<string, unknown>) =>
      (await (await send({
        jsonrpc: "2.0",
        id: ++id,
        method: "tools/call",
        params: { name, arguments: args },
      }, inSession))
        .json()).result,
    close: () => mount.close?.(),
  };
}

const SPEC = {
  id: "m",
  version: "1.0.0",
  schema: { type: "object", properties: { a: { type: "number" } } },
  derivations: [{ path: "$.b", expr: "a * 2" }],
};

Deno.test("every tool's description is a sentence of its own, not an operation's lowercase summary", () => {
  for (const tool of TOOLS) {
    assert.match(tool.description, /^[A-Z].*\.$/s, tool.name);
  }
});

Deno.test("explain's description names meta addresses and what an unknown target answers", () => {
  const explain = TOOLS.find((tool) => tool.name === "explain")!;
  assert.match(explain.description, /<address>#<property>/);
  assert.match(explain.description, /\$\.qty#required/);
  assert.match(explain.description, /an error naming it/);
});

Deno.test("MCP explain of a target the model does not have is the service's error naming it, as REST's and the console's", async () => {
  const service = await ModelService.open();
  const mcp = await session(service);
  try {
    await service.createModel(SPEC);
    assert.deepEqual((await mcp.call("explain", { id: "m", path: "$.b" })).isError, false);
    for (const path of ["$.nope", "$.nope#required", "$constraint:nope", "$effect:nope"]) {
      const message = await service.explain("m", path).then(() => "answered", (err: Error) => err.message);
      assert.match(
        message,
        /^Nothing to explain at .*nope.*: model 'm' has no such field, constraint or effect$/,
      );
      const result = await mcp.call("explain", { id: "m", path });
      assert.equal(result.isError, true, path);
      assert.deepEqual(result.structuredContent, { error: message }, path);
    }
  } finally {
    await mcp.close();
    await service.close();
  }
});

Deno.test("MCP evolve_spec answers with the evolved spec's warnings", async () => {
  const service = await ModelService.open();
  const mcp = await session(service);
  try {
    await service.createModel(SPEC);
    const result = await mcp.call("evolve_spec", {
      id: "m",
      evolution: { upsertDerivations: [{ path: "$.c", expr: "a", evalution: "lazy" }] },
    });
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.deepEqual(result.structuredContent, {
      id: "m",
      version: "1.0.0",
      warnings: [{
        location: "derivations[1].evalution",
        message: "unknown member 'evalution' is ignored (did you mean 'evaluation'?)",
      }],
    });
  } finally {
    await mcp.close();
    await service.close();
  }
});
