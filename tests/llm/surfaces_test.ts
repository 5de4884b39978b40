/**
 * Generation on the other surfaces: MCP `generate_spec` / `evolve_spec_ai`
 * (offered only with a provider, progress as `notifications/progress`), the
 * console commands (embedded, configured from `svc.llm.*`), and the remote
 * client following the event stream.
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema, type Progress } from "@modelcontextprotocol/sdk/types.js";
import assert from "node:assert/strict";
import { ServiceError } from "../../engine/errors.ts";
import { generateSpec } from "../../engine/operations/generation.ts";
import { remoteInvoker } from "../../engine/operations/remote.ts";
import { localAuthoring } from "../../engine/service/authoring.ts";
import type { ProgressEvent } from "../../engine/service/generation.ts";
import { ModelService } from "../../engine/service/service.ts";
import { LLM_DEFAULTS, llmConfig } from "../../llm/config.ts";
import { generatorOf } from "../../llm/mod.ts";
import { createMcpServer } from "../../mcp/server.ts";
import { runCli } from "../cli/helpers.ts";
import { connectStdio } from "../mcp/helpers.ts";
import { orderSpec, startTestServer } from "../server/helpers.ts";
import { invalidSpec, stubBase, validSpec } from "./helpers.ts";
import { startLlmStub } from "./stub_server.ts";

/** A service whose generator talks to `stubUrl` as an OpenAI-style provider. */
async function serviceOn(stubBaseUrl: string): Promise<ModelService> {
  const keys: Record<string, string> = {
    "svc.llm.provider": "openai",
    "svc.llm.api-key": "k",
    "svc.llm.base-url": stubBaseUrl,
  };
  return await ModelService.open({ generator: generatorOf(llmConfig((key) => keys[key])) });
}

async function mcpClient(service: ModelService) {
  const session = createMcpServer(service, {
    mode: "embedded",
    features: { generation: service.generationAvailable },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: "generation-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

Deno.test("MCP generate_spec: offered with a provider, progress notifications for a progressToken", async () => {
  const stub = startLlmStub([{ text: JSON.stringify(invalidSpec()) }, { text: JSON.stringify(validSpec()) }]);
  const service = await serviceOn(stubBase(stub, "openai"));
  const client = await mcpClient(service);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 33);
    const tool = tools.find((t) => t.name === "generate_spec")!;
    assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), [
      "domainDescription",
      "includeView",
      "modelId",
      "prompt",
    ]);
    assert.equal(tool.annotations?.readOnlyHint, true);
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: "generate_spec", arguments: { modelId: "shop/cart", domainDescription: "a cart" } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p) },
    );
    assert.equal(result.isError, false);
    const body = result.structuredContent as { valid: boolean; spec: { id: string } };
    assert.equal(body.valid, true);
    assert.equal(body.spec.id, "shop/cart");
    assert.ok(progress.length >= 6, JSON.stringify(progress));
    assert.deepEqual(progress.map((p) => p.progress), progress.map((_, i) => i + 1), "increasing");
    assert.match(progress[0].message!, /^llm_requesting attempt=0 provider=openai model=gpt-4o$/);
    assert.ok(progress.some((p) => /^validation_failed attempt=0/.test(p.message!)));
    assert.ok(progress.some((p) => p.message === "retrying attempt=1 maxAttempts=7"));

    // No token, no notifications; the call still works.
    stub.requests.length = 0;
    const quiet: Progress[] = [];
    const again = await client.callTool({
      name: "generate_spec",
      arguments: { modelId: "m", prompt: "Model ID: m" },
    });
    assert.equal(again.isError, false);
    assert.equal(quiet.length, 0);
  } finally {
    await client.close();
    await service.close();
    await stub.close();
  }
});

Deno.test("MCP evolve_spec_ai applies the draft; a provider failure is an isError result", async () => {
  const stub = startLlmStub([
    {
      text: JSON.stringify({
        newVersion: "2.0.0",
        upsertDerivations: [{ path: "$.half", expr: "total / 2" }],
      }),
    },
    { error: { status: 400, message: "model overloaded" } },
  ]);
  const service = await serviceOn(stubBase(stub, "openai"));
  const client = await mcpClient(service);
  try {
    await service.createModel(orderSpec("order"));
    const result = await client.callTool({
      name: "evolve_spec_ai",
      arguments: { id: "order", description: "add half of the total" },
    });
    assert.equal(result.isError, false, JSON.stringify(result.content));
    assert.equal((result.structuredContent as { version: string }).version, "2.0.0");
    const failed = await client.callTool({
      name: "evolve_spec_ai",
      arguments: { id: "order", description: "more" },
    });
    assert.equal(failed.isError, true);
    assert.match(
      (failed.structuredContent as { error: string }).error,
      /LLM call failed: openai answered HTTP 400/,
    );
  } finally {
    await client.close();
    await service.close();
    await stub.close();
  }
});

Deno.test("a cancelled MCP tool call is not reported as an error", async () => {
  // The mock generator, telling when a generation starts and when it has ended: the call is cancelled
  // while it runs, and errors are read once its end has come back through the MCP server.
  const mock = generatorOf(llmConfig((key) => key === "svc.llm.mock" ? "true" : undefined))!;
  let started = Promise.withResolvers<void>();
  const ended: Promise<unknown>[] = [];
  const generator = new Proxy(mock, {
    get(target, name) {
      if (name === "generate") {
        return (...args: Parameters<typeof mock.generate>) => {
          const run = target.generate(...args);
          ended.push(run.catch(() => {}));
          started.resolve();
          return run;
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const service = await ModelService.open({ generator });
  const errors: unknown[] = [];
  const session = createMcpServer(service, {
    mode: "embedded",
    features: { generation: true },
    onError: (err) => errors.push(err),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await session.connect(serverSide);
  const client = new Client({ name: "cancel-test", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    for (const reason of ["bored", undefined]) {
      started = Promise.withResolvers<void>();
      const abort = new AbortController();
      const call = client.callTool(
        { name: "generate_spec", arguments: { modelId: "calc", domainDescription: "mock:delay=60000" } },
        CallToolResultSchema,
        { signal: abort.signal },
      );
      await started.promise;
      abort.abort(reason);
      await assert.rejects(call);
    }
    // The generations ended (cancelled), and the server's side of it has run by the time a later call
    // is answered.
    await Promise.all(ended);
    await client.callTool({ name: "list_models", arguments: {} });
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
    await service.close();
  }
});

Deno.test("svc mcp with svc.llm.mock offers 33 tools and generates; without a provider 31", async () => {
  const { client, waitFor, close } = await connectStdio([], { SVC_LLM_MOCK: "true" });
  try {
    const ready = await waitFor((n) => n.method === "notifications/message");
    assert.match(String((ready.params as { data: string }).data), /ready: mode embedded, 33 tools/);
    const result = await client.callTool({
      name: "generate_spec",
      arguments: { modelId: "calc", domainDescription: "x" },
    });
    const body = result.structuredContent as { valid: boolean; spec: { id: string; derivations: unknown[] } };
    assert.equal(body.valid, true);
    assert.equal(body.spec.id, "calc");
    assert.deepEqual(body.spec.derivations, [{ path: "$.doubled", expr: "value * 2" }]);
  } finally {
    await close();
  }
  const plain = await connectStdio([], {});
  try {
    const { tools } = await plain.client.listTools();
    assert.equal(tools.length, 31);
    assert.ok(!tools.some((t) => t.name === "generate_spec" || t.name === "evolve_spec_ai"));
  } finally {
    await plain.close();
  }
});

Deno.test("svc mcp --url asks the server: its generation tools appear when the server has a provider", async () => {
  for (const [keys, count] of [[{ "svc.llm.mock": "true" }, 33], [{}, 31]] as const) {
    const server = await startTestServer(keys);
    const remote = await connectStdio(["--url", server.url]);
    try {
      const ready = await remote.waitFor((n) => n.method === "notifications/message");
      assert.match(
        String((ready.params as { data: string }).data),
        new RegExp(`mode remote, ${count} tools`),
      );
      if (count === 33) {
        const result = await remote.client.callTool({
          name: "generate_spec",
          arguments: { modelId: "calc", domainDescription: "x" },
        });
        assert.equal((result.structuredContent as { valid: boolean }).valid, true, "generated by the server");
      }
    } finally {
      await remote.close();
      await server.close();
    }
  }
});

Deno.test("svc mcp --url lists its tools without generation when the server does not say in time", async () => {
  // A server that never answers: the local tools must not wait for it.
  const release = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    await release.promise;
    return new Response("late");
  });
  const remote = await connectStdio(["--url", `http://127.0.0.1:${server.addr.port}`]);
  try {
    // Listed while the server still holds its answer (released only at the end): the CLI stopped waiting for it.
    const { tools } = await remote.client.listTools();
    assert.equal(tools.length, 31);
    const result = await remote.client.callTool({
      name: "eval_expression",
      arguments: { expr: "1 + 2" },
    });
    assert.equal((result.structuredContent as { result: number }).result, 3, "local tools work");
  } finally {
    await remote.close();
    release.resolve();
    await server.shutdown();
  }
});

Deno.test("console: generation commands with svc.llm.mock; 503 message without a provider; malformed keys stop it", async () => {
  const run = await runCli(["console"], {
    env: { SVC_LLM_MOCK: "true", SVC_LLM_LOG_CAPTURE_CONTENT: "true" },
    lines: [
      { cmd: "preview-generation", modelId: "calc", domainDescription: "double a number" },
      { cmd: "generate-spec", modelId: "calc", domainDescription: "double a number" },
      { cmd: "create-model", spec: orderSpec("order") },
      { cmd: "evolve-spec-ai", id: "order", description: "nothing really" },
      { cmd: "get-llm-interactions" },
      { cmd: "generation-status" },
    ],
  });
  assert.equal(run.code, 0, run.stderr);
  const [preview, generated, , evolved, log, status] = run.replies;
  assert.deepEqual(status, { ok: true, result: { available: true } });
  assert.match(preview.result.prompt, /^Model ID: calc$/m);
  assert.equal(generated.ok, true);
  assert.equal(generated.result.valid, true);
  assert.equal(generated.result.spec.id, "calc");
  // The mock drafts `{}` for it: no change proposed is a refusal, not a 200 that did nothing.
  assert.equal(evolved.ok, false);
  assert.match(evolved.error, /drafted no applicable evolution .*the model proposed no change/);
  assert.equal(
    log.result.length,
    1 + 1 + LLM_DEFAULTS.maxRetries,
    "the generation, then every evolution attempt",
  );
  assert.equal(log.result[0].provider, "mock");
  assert.equal(log.result[0].response, "{}");

  const none = await runCli(["console"], {
    lines: [{ cmd: "generate-spec", modelId: "m", domainDescription: "x" }, { cmd: "generation-status" }],
  });
  assert.equal(none.replies[0].ok, false);
  assert.match(none.replies[0].error, /No LLM provider configured: set svc\.llm\.provider/);
  assert.equal(none.replies[1].result.available, false);
  assert.equal(none.replies[1].result.message, none.replies[0].error);

  const bad = await runCli(["console"], { env: { SVC_LLM_PROVIDER: "chatgpt" }, lines: [] });
  assert.notEqual(bad.code, 0);
  assert.match(
    bad.stderr,
    /svc\.llm\.provider \(SVC_LLM_PROVIDER\) must be one of anthropic, openai, ollama/,
  );
});

Deno.test("remote client: progress follows the event stream; the blocking route otherwise; invalid is a 422 error", async () => {
  const stub = startLlmStub((_, i) => ({ text: JSON.stringify(i % 2 === 0 ? invalidSpec() : validSpec()) }));
  const server = await startTestServer({
    "svc.llm.provider": "openrouter",
    "svc.llm.api-key": "k",
    "svc.llm.base-url": stubBase(stub, "openrouter"),
  });
  const invoker = remoteInvoker({
    baseUrl: server.url,
    fetch: (request) => fetch(request),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  try {
    const events: ProgressEvent[] = [];
    const result = await invoker.invoke(generateSpec, { modelId: "shop/cart", domainDescription: "a cart" }, {
      progress: (e) => events.push(e),
    });
    assert.equal(result.valid, true);
    assert.deepEqual(events.map((e) => e.type), [
      "llm_requesting",
      "validating",
      "validation_failed",
      "retrying",
      "llm_requesting",
      "validating",
      "test_running",
    ]);
    const blocking = await invoker.invoke(generateSpec, {
      modelId: "shop/cart",
      domainDescription: "a cart",
    });
    assert.equal(blocking.spec.id, "shop/cart");
  } finally {
    await server.close();
    await stub.close();
  }

  const broken = startLlmStub([{ text: JSON.stringify(invalidSpec()) }]);
  const strict = await startTestServer({
    "svc.llm.provider": "cerebras",
    "svc.llm.api-key": "k",
    "svc.llm.base-url": stubBase(broken, "cerebras"),
    "svc.llm.max-retries": "0",
    "svc.llm.max-retries-hard": "0",
  });
  const remote = remoteInvoker({
    baseUrl: strict.url,
    fetch: (request) => fetch(request),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  try {
    for (const options of [undefined, { progress: () => {} }]) {
      await assert.rejects(
        () => remote.invoke(generateSpec, { modelId: "x", domainDescription: "x" }, options),
        (err) => {
          assert.ok(err instanceof ServiceError);
          assert.equal(err.kind, "validation_failed");
          assert.equal((err.body as { valid: boolean }).valid, false);
          return true;
        },
      );
    }
  } finally {
    await strict.close();
    await broken.close();
  }
});
