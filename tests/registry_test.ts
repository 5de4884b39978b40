/**
 * Every operation of the registry (engine/operations/) reaches every surface
 * it declares: the console's help, MCP's tools/list, the OpenAPI document and
 * the remote client against a real server. An operation missing from a
 * surface, or a surface entry without its operation, fails here.
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import assert from "node:assert/strict";
import type { z } from "zod";
import { consoleHelp } from "../cli/console.ts";
import { ServiceError } from "../engine/errors.ts";
import { operations } from "../engine/mod.ts";
import { inputMembers, isOptionalMember } from "../engine/operations/input.ts";
import { OPERATIONS } from "../engine/operations/mod.ts";
import type { AnyOperation } from "../engine/operations/operation.ts";
import { remoteInvoker } from "../engine/operations/remote.ts";
import { localAuthoring } from "../engine/service/authoring.ts";
import { ModelService } from "../engine/service/service.ts";
import { createMcpServer } from "../mcp/server.ts";
import { inProcessServer, startTestServer } from "./server/helpers.ts";

Deno.test("the engine's operations namespace is every operation by its name, and nothing else", () => {
  // The browser bundle re-exports the namespace whole: a helper in it would ship to every page.
  const { OPERATIONS: listed, ...byName } = operations;
  assert.equal(listed, OPERATIONS);
  assert.deepEqual(
    Object.entries(byName).map(([name, op]) => [name, op]),
    [...OPERATIONS].sort((a, b) => a.name < b.name ? -1 : 1).map((op) => [op.name, op]),
  );
});

Deno.test("every operation is served by at least one surface, under a unique name per surface", () => {
  const names = (pick: (op: AnyOperation) => string | undefined) =>
    OPERATIONS.map(pick).filter((n): n is string => n !== undefined);
  for (
    const list of [
      names((op) => op.name),
      names((op) => op.console?.command),
      names((op) => op.mcp?.tool),
    ]
  ) {
    assert.equal(new Set(list).size, list.length, `duplicates in ${list.join(", ")}`);
  }
  for (const op of OPERATIONS) {
    const surfaces = [op.console, op.mcp, op.kind === "api" ? op.rest : undefined].filter(Boolean);
    assert.ok(surfaces.length > 0, `${op.name} is on no surface`);
    for (const args of [op.console?.args, op.mcp?.args]) {
      for (const arg of args ?? []) {
        assert.ok(inputMembers(op).includes(arg), `${op.name}: unknown arg ${arg}`);
      }
    }
  }
});

Deno.test("console help lists exactly the console bindings, with their required and optional arguments", () => {
  const help = consoleHelp().commands.filter((c) => c.cmd !== "help" && c.cmd !== "exit");
  const declared = OPERATIONS.filter((op) => op.console);
  assert.deepEqual(help.map((c) => c.cmd), declared.map((op) => op.console!.command));
  for (const op of declared) {
    const entry = help.find((c) => c.cmd === op.console!.command)!;
    const args = op.console!.args ?? inputMembers(op);
    assert.deepEqual([...entry.required, ...entry.optional].sort(), [...args].sort(), op.name);
    for (const arg of entry.required) assert.ok(!isOptionalMember(op, arg), `${op.name}.${arg} is required`);
  }
  const required = (cmd: string) => help.find((c) => c.cmd === cmd)!.required;
  // Members taking any JSON (a spec, an evolution) are required all the same.
  assert.deepEqual(required("create-model"), ["spec"]);
  assert.deepEqual(required("evolve-spec"), ["id", "evolution"]);
  for (const cmd of ["validate-spec", "test-spec", "dry-run", "flatten-spec"]) {
    assert.deepEqual(required(cmd), ["spec"], cmd);
  }
  for (const command of ["validate-spec", "eval-expression", "test-spec", "dry-run", "get-domain-guidance"]) {
    assert.ok(help.some((c) => c.cmd === command), `authoring command ${command}`);
  }
});

const HOSTS = [
  ["without optional features", { generation: false, pairing: false }],
  ["with an LLM provider", { generation: true, pairing: false }],
  ["in remote-with-browser mode", { generation: false, pairing: true }],
] as const;

for (const [host, features] of HOSTS) {
  Deno.test(`MCP tools/list holds exactly the MCP bindings available ${host}`, async () => {
    const { generation, pairing } = features;
    const service = await ModelService.open();
    const session = createMcpServer(service, { mode: "embedded", features });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    const client = new Client({ name: "registry-test", version: "1.0.0" });
    await client.connect(clientSide);
    try {
      const { tools } = await client.listTools();
      const declared = OPERATIONS.filter((op) => op.mcp && (op.mcp.available?.(features) ?? true));
      assert.equal(
        tools.some((t) => t.name === "generate_spec") && tools.some((t) => t.name === "evolve_spec_ai"),
        generation,
      );
      assert.equal(tools.some((t) => t.name === "pair_browser"), pairing);
      assert.deepEqual(tools.map((t) => t.name), declared.map((op) => op.mcp!.tool));
      for (const op of declared) {
        const tool = tools.find((t) => t.name === op.mcp!.tool)!;
        const args = op.mcp!.args ?? inputMembers(op);
        assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), [...args].sort(), op.name);
        // The console's help and the OpenAPI bodies decide what is required as the tools do.
        assert.deepEqual(
          [...tool.inputSchema.required ?? []].sort(),
          args.filter((a) => !isOptionalMember(op, a)).sort(),
          `${op.name}: required`,
        );
        assert.equal(tool.title, op.mcp!.title);
      }
    } finally {
      await client.close();
      await service.close();
    }
  });
}

Deno.test("the OpenAPI document has one operation per REST binding, and nothing else of theirs", async () => {
  const server = await inProcessServer();
  try {
    // deno-lint-ignore no-explicit-any
    const doc: any = await (await server.app.request("/v3/api-docs")).json();
    const documented = new Map<string, string>();
    for (
      const [path, methods] of Object.entries(
        doc.paths as Record<string, Record<string, { operationId: string }>>,
      )
    ) {
      for (const [method, operation] of Object.entries(methods)) {
        documented.set(operation.operationId, `${method} ${path}`);
      }
    }
    for (const op of OPERATIONS) {
      if (op.kind !== "api") continue;
      for (const binding of op.rest) {
        const id: string = binding.operationId ?? op.name;
        assert.equal(documented.get(id), `${binding.method} ${binding.path}`, `${op.name} as ${id}`);
      }
    }
  } finally {
    await server.close();
  }
});

/**
 * The OpenAPI document and the MCP tool listing of a fresh process, after
 * building every operation's schemas in reverse order first when `reversed`.
 */
async function generatedSurfaces(reversed: boolean): Promise<string> {
  const root = new URL("..", import.meta.url).href;
  const script = `
    const { OPERATIONS } = await import("${root}engine/operations/mod.ts");
    if (${reversed}) for (const op of [...OPERATIONS].reverse()) [op.output, op.input];
    const { ROUTES } = await import("${root}server/routes/mod.ts");
    const { openApiDocument } = await import("${root}server/openapi/document.ts");
    const { toolsFor } = await import("${root}mcp/tools.ts");
    const tools = toolsFor({ generation: true, pairing: true })
      .map(({ name, inputSchema, outputSchema }) => ({ name, inputSchema, outputSchema }));
    console.log(JSON.stringify({ document: openApiDocument(ROUTES), tools }));`;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    cwd: new URL("..", import.meta.url),
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout);
}

Deno.test("the generated surfaces are the same, byte for byte, whichever operation's schemas are built first", async () => {
  // Schemas are built on first use (engine/operations/json_schema.ts); the component order must not follow it.
  const [declared, reversed] = await Promise.all([generatedSurfaces(false), generatedSurfaces(true)]);
  assert.ok(declared.includes('"components"'));
  assert.equal(reversed, declared);
});

/** A value of the JSON type a member declares, enough to reach the route. */
function sampleOf(op: AnyOperation, member: string): unknown {
  const schema = (op.input as z.ZodObject).shape[member] as z.ZodType;
  for (const candidate of ["nope", {}, [], new Uint8Array([1]), 1, true]) {
    if (schema.safeParse(candidate).success) return candidate;
  }
  throw new Error(`no sample for ${op.name}.${member}`);
}

Deno.test("the remote client reaches a route of the real server for every API operation", async () => {
  const server = await startTestServer({ "svc.api.key": "registry-key" });
  const invoker = remoteInvoker({
    baseUrl: server.url,
    apiKey: "registry-key",
    fetch: (request) => fetch(request),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  try {
    for (const op of OPERATIONS) {
      if (op.kind !== "api") continue;
      for (const binding of op.rest) {
        const input: Record<string, unknown> = {};
        for (const member of inputMembers(op)) {
          const onRoute = binding.path.includes(`{${member}}`);
          if (onRoute || !isOptionalMember(op, member)) input[member] = sampleOf(op, member);
        }
        try {
          await invoker.invoke(op, input);
        } catch (err) {
          // Reaching the route is what counts: a domain refusal (404 unknown model, 400) is fine.
          assert.ok(err instanceof ServiceError, `${op.name}: ${err}`);
          assert.doesNotMatch(
            err.message,
            /No route|is not supported on|API key/,
            `${op.name} ${binding.path}`,
          );
        }
      }
    }
  } finally {
    await server.close();
  }
});
