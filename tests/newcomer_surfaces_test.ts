/**
 * A typo in an expression is a warning on every surface a newcomer creates
 * models through (REST, console, MCP, validate), and defaults land in new
 * array elements however the elements were written.
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

const TYPO = {
  id: "cart",
  schema: { type: "object", properties: { qty: { type: "integer" }, price: { type: "number" } } },
  derivations: [{ path: "$.total", expr: "qtty * price" }],
};
const WARNING = {
  location: "derivations[0].expr",
  message:
    "reads '$.qtty', which the schema does not declare and no derivation produces (did you mean '$.qty'?)",
};

Deno.test("REST create carries the warnings when there are any, and only then", async () => {
  const server = await startTestServer();
  try {
    const created = await call(server.url, "POST", "/models", TYPO);
    assert.equal(created.status, 201);
    assert.deepEqual(created.json, { id: "cart", status: "created", warnings: [WARNING] });
    const clean = await call(server.url, "POST", "/models", { ...TYPO, id: "clean", derivations: [] });
    assert.deepEqual(clean.json, { id: "clean", status: "created" });
  } finally {
    await server.close();
  }
});

Deno.test("console create-model and validate-spec show the warning", async () => {
  const service = await ModelService.open();
  const send = async (request: unknown) => (await handleConsoleLine(service, JSON.stringify(request))).reply;
  assert.deepEqual(await send({ cmd: "validate-spec", spec: TYPO }), {
    ok: true,
    result: { valid: true, errors: [], warnings: [WARNING] },
  });
  assert.deepEqual(await send({ cmd: "create-model", spec: TYPO }), {
    ok: true,
    result: { id: "cart", status: "created", warnings: [WARNING] },
  });
  await service.close();
});

Deno.test("MCP create_model and validate_spec show the warning", async () => {
  const service = await ModelService.open();
  const session = createMcpServer(service, { mode: "embedded" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: "newcomer-test", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const created = await client.callTool({ name: "create_model", arguments: { spec: TYPO } });
    assert.deepEqual((created.structuredContent as { warnings: unknown }).warnings, [WARNING]);
    const validated = await client.callTool({ name: "validate_spec", arguments: { spec: TYPO } });
    assert.deepEqual((validated.structuredContent as { warnings: unknown }).warnings, [WARNING]);
  } finally {
    await client.close();
    await service.close();
  }
});

Deno.test("defaults fill every new element once, whether written by index, by JSON Patch or as a whole array", async () => {
  const spec = (id: string) => ({
    id,
    schema: {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: {
              sku: { type: "string" },
              qty: { type: "integer", default: 1 },
              tags: { type: "array" },
            },
          },
        },
      },
    },
    defaultValues: [{ path: "$.items[*]", expr: "{'status': 'new', 'tags': ['fresh']}" }],
  });
  const server = await startTestServer();
  try {
    for (const id of ["byIndex", "byPatch", "whole"]) await call(server.url, "POST", "/models", spec(id));
    await call(server.url, "POST", "/models/byIndex/mutations", {
      "$.items[0].sku": "a",
      "$.items[1].sku": "b",
    });
    await call(server.url, "POST", "/models/byPatch/mutations/patch", [
      { op: "add", path: "/items", value: [] },
      { op: "add", path: "/items/-", value: { sku: "a" } },
      { op: "add", path: "/items/-", value: { sku: "b" } },
    ], { "content-type": "application/json-patch+json" });
    await call(server.url, "POST", "/models/whole/mutations", { "$.items": [{ sku: "a" }, { sku: "b" }] });
    const expected = {
      items: [
        { sku: "a", qty: 1, status: "new", tags: ["fresh"] },
        { sku: "b", qty: 1, status: "new", tags: ["fresh"] },
      ],
    };
    for (const id of ["byIndex", "byPatch", "whole"]) {
      assert.deepEqual((await call(server.url, "GET", `/models/${id}/state`)).json, expected, id);
    }
    // A whole-array write puts every element in place anew, however long the old array was: each gets the
    // defaults it lacks, and a value written is kept.
    await call(server.url, "POST", "/models/whole/mutations", {
      "$.items": [{ sku: "a2" }, { sku: "b", qty: 3 }, { sku: "c" }],
    });
    assert.deepEqual((await call(server.url, "GET", "/models/whole/state")).json.items, [
      { sku: "a2", qty: 1, status: "new", tags: ["fresh"] },
      { sku: "b", qty: 3, status: "new", tags: ["fresh"] },
      { sku: "c", qty: 1, status: "new", tags: ["fresh"] },
    ]);
  } finally {
    await server.close();
  }
});
