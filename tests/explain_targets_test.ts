/**
 * What `explain` knows on every surface: a child of a scalar is no field (a 404
 * as an undeclared name is), and a field only a meta derivation targets is one
 * (its value's traces, none here; the meta's under `#<property>`).
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import assert from "node:assert/strict";
import { handleConsoleLine } from "../cli/console.ts";
import { ModelService } from "../engine/service/service.ts";
import { createMcpServer } from "../mcp/server.ts";
import { call, startTestServer } from "./server/helpers.ts";

const SPEC = {
  id: "shop",
  schema: {
    type: "object",
    properties: { qty: { type: "number" }, name: { type: "string" }, limit: { type: "number" } },
  },
  metaDerivations: [
    { path: "$.limit", property: "maximum", expr: "qty" },
    { path: "$.cap", property: "minimum", expr: "qty" },
  ],
};
const UNKNOWN = ["$.qty.foo", "$.qty[0]", "$.name.first"];
/** Each target the model has, with the results of its traces after the write of `$.qty`. */
const KNOWN: [string, unknown[]][] = [
  ["$.limit", []],
  ["$.limit#maximum", [2]],
  ["$.cap", []],
  ["$.cap#minimum", [2]],
];
type Trace = { result: unknown };
const refusal = (target: string) =>
  `Nothing to explain at ${target}: model 'shop' has no such field, constraint or effect`;

Deno.test("REST explain: a scalar's child is a 404, a field only a meta derivation targets is known", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", SPEC);
    await call(server.url, "POST", "/models/shop/mutations", { "$.qty": 2 });
    const explain = (target: string) =>
      call(server.url, "GET", `/models/shop/explain/${encodeURIComponent(target)}`);
    for (const target of UNKNOWN) {
      const answer = await explain(target);
      assert.equal(answer.status, 404, target);
      assert.equal(answer.json.detail, refusal(target));
    }
    for (const [target, results] of KNOWN) {
      const answer = await explain(target);
      assert.equal(answer.status, 200, target);
      assert.deepEqual((answer.json as Trace[]).map((t) => t.result), results, target);
    }
  } finally {
    await server.close();
  }
});

Deno.test("console and MCP explain answer as REST does", async () => {
  const service = await ModelService.open();
  const session = createMcpServer(service, { mode: "embedded" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: "explain-test", version: "1.0.0" });
  await client.connect(clientSide);
  const send = async (request: unknown) => (await handleConsoleLine(service, JSON.stringify(request))).reply;
  try {
    await service.createModel(SPEC);
    assert.equal((await send({ cmd: "mutate", id: "shop", mutations: { "$.qty": 2 } })).ok, true);
    for (const path of UNKNOWN) {
      assert.deepEqual(await send({ cmd: "explain", id: "shop", path }), { ok: false, error: refusal(path) });
      const mcp = await client.callTool({ name: "explain", arguments: { id: "shop", path } });
      assert.equal(mcp.isError, true, path);
      assert.deepEqual(mcp.structuredContent, { error: refusal(path) }, path);
    }
    for (const [path, results] of KNOWN) {
      const reply = await send({ cmd: "explain", id: "shop", path }) as { ok: boolean; result: Trace[] };
      assert.deepEqual([reply.ok, reply.result.map((t) => t.result)], [true, results], path);
      const mcp = await client.callTool({ name: "explain", arguments: { id: "shop", path } });
      assert.equal(mcp.isError, false, path);
      const [text] = mcp.content as { text: string }[];
      assert.deepEqual((JSON.parse(text.text) as Trace[]).map((t) => t.result), results, path);
    }
  } finally {
    await client.close();
    await service.close();
  }
});
