/**
 * Every provider kind through its real `ai` client against the loopback stub
 * speaking its wire format (selected by `svc.llm.base-url`): an invalid spec
 * first, then the repaired valid one. Checks the endpoint, the credential
 * header, the structured-output request, the temperatures of the first
 * attempt and the repair, and the fix hints fed back.
 */
import assert from "node:assert/strict";
import { PROVIDER_KINDS, type ProviderKind } from "../../llm/config.ts";
import { call } from "../server/helpers.ts";
import { invalidSpec, serverOn, validSpec } from "./helpers.ts";
import { startLlmStub, type StubRequest } from "./stub_server.ts";

const ENDPOINT: Record<ProviderKind, RegExp> = {
  anthropic: /^\/v1\/messages$/,
  openai: /^\/v1\/chat\/completions$/,
  ollama: /^\/v1\/chat\/completions$/,
  openrouter: /^\/v1\/chat\/completions$/,
  groq: /^\/v1\/chat\/completions$/,
  mistral: /^\/v1\/chat\/completions$/,
  gemini: /^\/v1beta\/models\/gemini-2\.0-flash:streamGenerateContent$/,
  cerebras: /^\/v1\/chat\/completions$/,
};

function credential(kind: ProviderKind, request: StubRequest): string | null {
  if (kind === "anthropic") return request.headers.get("x-api-key");
  if (kind === "gemini") return request.headers.get("x-goog-api-key");
  return request.headers.get("authorization");
}

// deno-lint-ignore no-explicit-any
function temperature(kind: ProviderKind, body: any): number | undefined {
  return kind === "gemini" ? body.generationConfig?.temperature : body.temperature;
}

// deno-lint-ignore no-explicit-any
function asksForJson(kind: ProviderKind, body: any): boolean {
  switch (kind) {
    case "anthropic":
      return body.output_config?.format !== undefined ||
        (body.tools ?? []).some((t: { name: string }) => t.name === "json");
    case "gemini":
      return body.generationConfig?.responseMimeType === "application/json";
    default:
      return body.response_format?.type === "json_schema" || body.response_format?.type === "json_object";
  }
}

/** The text of everything the client sent as the conversation (any format). */
// deno-lint-ignore no-explicit-any
const conversation = (body: any) => JSON.stringify(body.messages ?? body.contents ?? []);

for (const kind of PROVIDER_KINDS) {
  Deno.test(`${kind}: the real client reaches its stub; an invalid spec is repaired with the validator's findings`, async () => {
    const stub = startLlmStub([{ text: JSON.stringify(invalidSpec()) }, {
      text: JSON.stringify(validSpec()),
    }]);
    const server = await serverOn(stub, kind, kind === "ollama" ? { "svc.llm.api-key": "" } : {});
    try {
      const reply = await call(server.url, "POST", "/models/generate", {
        modelId: "shop/cart",
        domainDescription: "a shopping cart with quantity, price and total",
      });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(reply.json.valid, true);
      assert.equal(reply.json.spec.id, "shop/cart");
      assert.equal(reply.json.verification.state, "green");
      assert.equal(stub.requests.length, 2);
      const [first, repair] = stub.requests;
      for (const request of stub.requests) {
        assert.match(request.path, ENDPOINT[kind]);
        const key = credential(kind, request);
        if (kind === "ollama") assert.ok(!key || !key.includes("test-key"), "ollama is keyless");
        else assert.ok(key?.includes("test-key-123"), `${kind} sends the key`);
      }
      assert.equal(temperature(kind, first.body), 0);
      assert.equal(temperature(kind, repair.body), 0.2);
      // Groq refuses a response format next to tools: it gets none while tools are offered.
      assert.equal(asksForJson(kind, first.body), kind !== "groq", JSON.stringify(first.body).slice(0, 300));
      assert.match(conversation(first.body), /Model ID: shop\/cart/);
      assert.match(conversation(repair.body), /unknown field 'derivatons'/);
      assert.match(conversation(repair.body), /FIX:/);
      assert.match(conversation(repair.body), /JSONata compile error/);
    } finally {
      await server.close();
      await stub.close();
    }
  });
}

Deno.test("anthropic: the system prompt is marked for prompt caching, and not when prompt-cache is off", async () => {
  for (const enabled of [true, false]) {
    const stub = startLlmStub([{ text: JSON.stringify(validSpec()) }]);
    const server = await serverOn(stub, "anthropic", { "svc.llm.prompt-cache.enabled": String(enabled) });
    try {
      const reply = await call(server.url, "POST", "/models/generate", {
        modelId: "shop/cart",
        domainDescription: "a cart",
      });
      assert.equal(reply.status, 200, reply.text);
      const system = JSON.stringify(stub.requests[0].body.system);
      assert.match(system, /ModelSpec/);
      assert.equal(system.includes("ephemeral"), enabled, system.slice(0, 200));
    } finally {
      await server.close();
      await stub.close();
    }
  }
});

Deno.test("structured output: schema, json or none on an OpenAI-style kind; groq drops it when tools are offered", async () => {
  const cases: [ProviderKind, Record<string, string>, string | undefined][] = [
    ["openai", {}, "json_schema"],
    ["openai", { "svc.llm.structured-output.mode": "json" }, "json_object"],
    ["openai", { "svc.llm.structured-output.mode": "none" }, undefined],
    ["openai", { "svc.llm.structured-output.enabled": "false" }, undefined],
    ["groq", {}, undefined],
    ["groq", {
      "svc.llm.web-fetch.enabled": "false",
      "svc.llm.web-search.enabled": "false",
      "svc.llm.eval-tool.enabled": "false",
      "svc.llm.domain-guidance.enabled": "false",
    }, "json_schema"],
  ];
  for (const [kind, keys, expected] of cases) {
    const stub = startLlmStub([{ text: JSON.stringify(validSpec()) }]);
    const server = await serverOn(stub, kind, keys);
    try {
      const reply = await call(server.url, "POST", "/models/generate", {
        modelId: "shop/cart",
        domainDescription: "a cart",
      });
      assert.equal(reply.status, 200, reply.text);
      assert.equal(stub.requests[0].body.response_format?.type, expected, `${kind} ${JSON.stringify(keys)}`);
    } finally {
      await server.close();
      await stub.close();
    }
  }
});
