/**
 * The generation routes against scripted stubs (OpenAI chat format and
 * Anthropic messages): truncation retries, a tool call then the answer, a
 * provider error (502), the repair budget, the server-sent event sequences of
 * generation and AI evolution, the 400 and 503 rules, the interaction log
 * with and without content capture, cancellation when the client leaves, and
 * the status read (`GET /llm/status`) with and without a provider.
 */
import assert from "node:assert/strict";
import { quoted } from "../../engine/quoted.ts";
import { MAX_RAW_RESPONSE_CHARS } from "../../llm/loop.ts";
import { call, orderSpec, startTestServer } from "../server/helpers.ts";
import { type Frame, invalidSpec, postStream, serverOn, validSpec } from "./helpers.ts";
import { startLlmStub } from "./stub_server.ts";

const CART = { modelId: "shop/cart", domainDescription: "a cart with quantity, price and a total" };
const types = (frames: Frame[]) => frames.map((f) => (f.event === "progress" ? f.data.type : f.event));

/** A SpecEvolution of orderSpec(): a discounted total. */
const EVOLUTION = {
  newVersion: "1.1.0",
  upsertDerivations: [{ path: "$.discounted", expr: "total * 0.9" }],
};

Deno.test("a truncated answer is resent with more tokens, then replaced by a much shorter prompt", async () => {
  const half = JSON.stringify(validSpec()).slice(0, 60);
  const stub = startLlmStub([
    { text: half, finish: "length" },
    { text: half, finish: "length" },
    { text: JSON.stringify(validSpec()) },
  ]);
  const server = await serverOn(stub, "openai", {
    "svc.llm.max-tokens": "1000",
    "svc.llm.max-tokens-hard": "1500",
  });
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 200, reply.text);
    const [first, second, third] = stub.requests.map((r) => r.body);
    assert.equal(first.max_tokens, 1000);
    assert.equal(second.max_tokens, 1500, "min(2 x max-tokens, max-tokens-hard)");
    assert.deepEqual(second.messages, first.messages, "the same prompt, resent");
    assert.match(JSON.stringify(third.messages), /MUCH SHORTER spec/);
    assert.equal(third.messages.filter((m: { role: string }) => m.role === "assistant").length, 0);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("a tool call then the final answer, streamed: tool progress frames, then done", async () => {
  for (const kind of ["openai", "anthropic"] as const) {
    const stub = startLlmStub([
      { tool: { name: "eval_jsonata", input: { expr: "qty * price", input: { qty: 2, price: 3 } } } },
      { tool: { name: "get_domain_guidance", input: { topics: ["percentages"] } } },
      { text: JSON.stringify(validSpec()) },
    ]);
    const server = await serverOn(stub, kind);
    try {
      const { status, contentType, frames } = await postStream(server.url, "/models/generate/stream", CART);
      assert.equal(status, 200);
      assert.match(contentType, /^text\/event-stream/);
      assert.deepEqual(types(frames), [
        "llm_requesting",
        "tool_calling",
        "tool_completed",
        "tool_calling",
        "tool_completed",
        "validating",
        "test_running",
        "done",
      ], kind);
      assert.deepEqual(frames[0].data, {
        type: "llm_requesting",
        attempt: 0,
        provider: kind,
        model: frames[0].data.model,
      });
      assert.equal(frames[1].data.tool, "eval_jsonata");
      assert.match(frames[2].data.resultSummary, /"result":6/);
      assert.equal(frames[3].data.tool, "get_domain_guidance");
      const done = frames.at(-1)!.data;
      assert.equal(done.valid, true);
      assert.equal(done.spec.id, "shop/cart");
      assert.equal(done.verification.passedCount, 1);
      // The tool's answer went back to the model in the same call.
      assert.match(JSON.stringify(stub.requests[1].body), /\\"result\\":6/);
      assert.equal(stub.requests.length, 3);
    } finally {
      await server.close();
      await stub.close();
    }
  }
});

Deno.test("an invalid spec, repaired: the event sequence of a repair", async () => {
  const stub = startLlmStub([{ text: JSON.stringify(invalidSpec()) }, { text: JSON.stringify(validSpec()) }]);
  const server = await serverOn(stub, "anthropic");
  try {
    const { frames } = await postStream(server.url, "/models/generate/stream", CART);
    assert.deepEqual(types(frames), [
      "llm_requesting",
      "validating",
      "validation_failed",
      "retrying",
      "llm_requesting",
      "validating",
      "test_running",
      "done",
    ]);
    const failed = frames[2].data;
    assert.equal(failed.attempt, 0);
    assert.ok(failed.errors.length >= 2 && failed.errors.length <= 5);
    assert.ok(failed.errors.every((e: unknown) => typeof e === "string" && e.includes(": ")));
    assert.deepEqual(frames[3].data, { type: "retrying", attempt: 1, maxAttempts: 7 });
    assert.equal(frames.at(-1)!.data.valid, true);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("no valid spec within the budget: 422 {valid:false, errors, rawResponse}, and done with it when streamed", async () => {
  const stub = startLlmStub([{ text: JSON.stringify(invalidSpec()) }]);
  const server = await serverOn(stub, "openai", {
    "svc.llm.max-retries": "1",
    "svc.llm.max-retries-hard": "1",
  });
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 422);
    assert.equal(reply.json.valid, false);
    assert.ok(
      reply.json.errors.some((e: { location: string; severity: string }) =>
        e.location === "derivatons" && e.severity === "error"
      ),
    );
    assert.equal(reply.json.rawResponse, JSON.stringify(invalidSpec()));
    assert.equal(stub.requests.length, 2, "1 + max-retries attempts: the count did not drop");

    const { status, frames } = await postStream(server.url, "/models/generate/stream", CART);
    assert.equal(status, 200);
    const done = frames.at(-1)!;
    assert.equal(done.event, "done");
    assert.equal(done.data.valid, false);
    assert.deepEqual(done.data.errors, reply.json.errors);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("an answer nested too deep or too large is a finding to repair, not an abort", async () => {
  const deep = JSON.stringify({
    ...validSpec(),
    description: "x",
    extra: JSON.parse("[".repeat(200) + "]".repeat(200)),
  });
  const huge = JSON.stringify({ ...validSpec(), description: "a".repeat(1024 * 1024) });
  for (
    const [name, answer, finding] of [["deep", deep, /nested deeper/], [
      "huge",
      huge,
      /max-spec-bytes/,
    ]] as const
  ) {
    // Repaired on the next attempt.
    const stub = startLlmStub([{ text: answer }, { text: JSON.stringify(validSpec()) }]);
    const server = await serverOn(stub);
    try {
      const reply = await call(server.url, "POST", "/models/generate", CART);
      assert.equal(reply.status, 200, `${name}: ${reply.text.slice(0, 300)}`);
      assert.equal(reply.json.valid, true);
      const repair = JSON.stringify(stub.requests[1].body.messages.at(-1));
      assert.match(repair, finding, `${name}: the finding went back to the model`);
    } finally {
      await server.close();
      await stub.close();
    }
    // Never repaired: the documented 422, and done when streamed.
    const never = startLlmStub([{ text: answer }]);
    const strict = await serverOn(never, "openai", {
      "svc.llm.max-retries": "0",
      "svc.llm.max-retries-hard": "0",
    });
    try {
      const reply = await call(strict.url, "POST", "/models/generate", CART);
      assert.equal(reply.status, 422, name);
      assert.equal(reply.json.valid, false);
      assert.match(reply.json.errors[0].message, finding);
      assert.equal(typeof reply.json.rawResponse, "string");
      if (name === "huge") {
        // A megabyte answer is not echoed whole: cut, with its length.
        assert.equal(reply.json.rawResponse, quoted(huge, MAX_RAW_RESPONSE_CHARS));
        assert.match(reply.json.rawResponse, new RegExp(`… \\(${huge.length} characters\\)$`));
      }
      const { frames } = await postStream(strict.url, "/models/generate/stream", CART);
      assert.equal(frames.at(-1)!.event, "done", name);
      assert.equal(frames.at(-1)!.data.valid, false);
    } finally {
      await strict.close();
      await never.close();
    }
  }
});

Deno.test("past max-retries, attempts go on only while the error count drops", async () => {
  const broken = (n: number) => ({
    ...validSpec(),
    derivations: Array.from({ length: n }, (_, i) => ({ path: `$.d${i}`, expr: "qty * (" })),
  });
  const stub = startLlmStub([
    { text: JSON.stringify(broken(4)) },
    { text: JSON.stringify(broken(3)) },
    { text: JSON.stringify(broken(2)) },
    { text: JSON.stringify(broken(2)) },
    { text: JSON.stringify(validSpec()) },
  ]);
  const server = await serverOn(stub, "openai", {
    "svc.llm.max-retries": "1",
    "svc.llm.max-retries-hard": "5",
  });
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    // Attempts 0 (4 errors), 1 (3), 2 (2: dropped, granted), 3 (2: no drop) and then the budget is spent.
    assert.equal(reply.status, 422, reply.text);
    assert.equal(stub.requests.length, 4);
    const temperatures = stub.requests.map((r) => r.body.temperature);
    assert.deepEqual(temperatures, [0, 0.2, 0.35, 0.5]);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("a provider error is a 502 naming the provider; streamed, an error frame; logged with its message", async () => {
  const stub = startLlmStub([{ error: { status: 401, message: "invalid x-api-key" } }]);
  const server = await serverOn(stub, "anthropic", { "svc.llm.log.capture-content": "true" });
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 502);
    assert.match(reply.json.detail, /anthropic answered HTTP 401/);
    assert.doesNotMatch(reply.text, /test-key-123/);

    const { status, frames } = await postStream(server.url, "/models/generate/stream", CART);
    assert.equal(status, 200);
    assert.deepEqual(types(frames), ["llm_requesting", "error"]);
    assert.equal(frames[1].data.status, 502);
    assert.match(frames[1].data.message, /invalid x-api-key/);

    const log = await call(server.url, "GET", "/llm/interactions");
    assert.equal(log.json.length, 2);
    assert.match(log.json[0].errorMessage, /HTTP 401/);
    assert.equal(log.json[0].response, null);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("a 429 the library retries is a 502 naming the provider's last HTTP status, as any other status", async () => {
  const stub = startLlmStub([{ error: { status: 429, message: "rate limited" } }]);
  const server = await serverOn(stub, "openai");
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 502);
    assert.equal(stub.requests.length, 3, "the library's own two retries");
    assert.match(
      reply.json.detail,
      /^LLM call failed: openai answered HTTP 429: rate limited.* \(after 3 tries\)$/,
    );
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("AI evolution is applied through the evolve path: {version, spec}; streamed, done; refused drafts end in 502", async () => {
  const stub = startLlmStub([{ text: JSON.stringify(EVOLUTION) }]);
  const server = await serverOn(stub, "openai");
  try {
    assert.equal((await call(server.url, "POST", "/models", orderSpec("order"))).status, 201);
    const reply = await call(server.url, "POST", "/models/order/spec/evolve/ai", {
      description: "add a 10% discounted total",
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.version, "1.1.0");
    assert.ok(reply.json.spec.derivations.some((d: { path: string }) => d.path === "$.discounted"));
    assert.match(JSON.stringify(stub.requests[0].body.messages), /Apply the following changes/);
    const state = await call(server.url, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 5 });
    assert.equal(state.json.derivedUpdated.includes("$.discounted"), true);

    // The same draft again: the live spec is 1.1.0 now, and the draft still applies.
    const { frames } = await postStream(server.url, "/models/order/spec/evolve/ai/stream", {
      description: "again",
    });
    assert.deepEqual(types(frames).slice(0, 2), ["llm_requesting", "validating"]);
    assert.equal(frames.at(-1)!.event, "done");
    assert.equal(frames.at(-1)!.data.version, "1.1.0");
  } finally {
    await server.close();
    await stub.close();
  }

  const broken = startLlmStub([{
    text: JSON.stringify({ upsertDerivations: [{ path: "$.x", expr: "(" }] }),
  }]);
  const strict = await serverOn(broken, "openai", {
    "svc.llm.max-retries": "0",
    "svc.llm.max-retries-hard": "0",
  });
  try {
    await call(strict.url, "POST", "/models", orderSpec("order"));
    const reply = await call(strict.url, "POST", "/models/order/spec/evolve/ai", { description: "add x" });
    assert.equal(reply.status, 502);
    assert.match(reply.json.detail, /no applicable evolution/);
    const { frames } = await postStream(strict.url, "/models/order/spec/evolve/ai/stream", {
      description: "add x",
    });
    assert.equal(frames.at(-1)!.event, "error");
    assert.equal(frames.at(-1)!.data.status, 502);
    assert.equal((await call(strict.url, "GET", "/models/order")).json.version, "1.0.0");
  } finally {
    await strict.close();
    await broken.close();
  }
});

Deno.test("an AI evolution draft that changes nothing ({}) is repaired, never applied as a 200 that did nothing", async () => {
  const stub = startLlmStub([{ text: "{}" }, { text: JSON.stringify({ upsertDerivations: [] }) }, {
    text: JSON.stringify(EVOLUTION),
  }]);
  const server = await serverOn(stub, "openai");
  try {
    await call(server.url, "POST", "/models", orderSpec("order"));
    const reply = await call(server.url, "POST", "/models/order/spec/evolve/ai", {
      description: "add a discount",
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.version, "1.1.0");
    assert.equal(stub.requests.length, 3, "{} and an empty list each went back to the model");
    assert.match(JSON.stringify(stub.requests[1].body.messages.at(-1)), /the model proposed no change/);
  } finally {
    await server.close();
    await stub.close();
  }
  const empty = startLlmStub([{ text: "{}" }]);
  const strict = await serverOn(empty, "openai", {
    "svc.llm.max-retries": "0",
    "svc.llm.max-retries-hard": "0",
  });
  try {
    await call(strict.url, "POST", "/models", orderSpec("order"));
    const reply = await call(strict.url, "POST", "/models/order/spec/evolve/ai", {
      description: "add a discount",
    });
    assert.equal(reply.status, 502, reply.text);
    assert.match(
      reply.json.detail,
      /no applicable evolution within its attempts: \$: the model proposed no change/,
    );
    const draft = await call(strict.url, "POST", "/models/generate/evolution", {
      modelId: "order",
      prompt: "x",
    });
    assert.equal(draft.status, 422, draft.text);
    assert.equal(draft.json.valid, false);
    assert.match(draft.json.error, /^\$: the model proposed no change/);
  } finally {
    await strict.close();
    await empty.close();
  }
});

Deno.test("AI evolution keeps the evolve guard: a draft that would strand state is repaired; never repaired, a 502, the model unchanged", async () => {
  const stranding = JSON.stringify({ upsertSchemaNodes: [{ path: "$.note", schema: { type: "integer" } }] });
  const stub = startLlmStub([{ text: stranding }, { text: JSON.stringify(EVOLUTION) }]);
  const server = await serverOn(stub, "openai");
  try {
    await call(server.url, "POST", "/models", orderSpec("order"));
    await call(server.url, "POST", "/models/order/mutations", { "$.note": "hello" });
    const reply = await call(server.url, "POST", "/models/order/spec/evolve/ai", {
      description: "note becomes a number",
    });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(reply.json.version, "1.1.0");
    assert.equal(stub.requests.length, 2);
    assert.match(JSON.stringify(stub.requests[1].body.messages.at(-1)), /strand state at \$\.note/);
    assert.equal((await call(server.url, "GET", "/models/order/state")).json.note, "hello");
  } finally {
    await server.close();
    await stub.close();
  }

  const never = startLlmStub([{ text: stranding }]);
  const strict = await serverOn(never, "openai", {
    "svc.llm.max-retries": "0",
    "svc.llm.max-retries-hard": "0",
  });
  try {
    await call(strict.url, "POST", "/models", orderSpec("order"));
    await call(strict.url, "POST", "/models/order/mutations", { "$.note": "hello" });
    const reply = await call(strict.url, "POST", "/models/order/spec/evolve/ai", {
      description: "note becomes a number",
    });
    assert.equal(reply.status, 502, reply.text);
    assert.match(reply.json.detail, /no applicable evolution.*strand state at \$\.note/);
    assert.equal((await call(strict.url, "GET", "/models/order")).json.version, "1.0.0");
    assert.equal((await call(strict.url, "GET", "/models/order/state")).json.note, "hello");
  } finally {
    await strict.close();
    await never.close();
  }
});

Deno.test("evolution drafts: preview names the model, the draft is checked against the live spec", async () => {
  const stub = startLlmStub([{ text: JSON.stringify({ upsertDerivations: [{ path: "$.x", expr: "(" }] }) }, {
    text: JSON.stringify(EVOLUTION),
  }]);
  const server = await serverOn(stub, "openai");
  try {
    await call(server.url, "POST", "/models", orderSpec("order"));
    const preview = await call(server.url, "POST", "/models/generate/evolution/preview", {
      modelId: "order",
      currentSpec: orderSpec("order"),
      evolutionRequest: "add a discounted total",
    });
    assert.equal(preview.status, 200);
    assert.match(preview.json.prompt, /^Model ID: order$/m);
    assert.match(preview.json.prompt, /Apply the following changes/);
    const reply = await call(server.url, "POST", "/models/generate/evolution", {
      modelId: "order",
      prompt: preview.json.prompt,
    });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { valid: true, evolution: EVOLUTION });
    assert.match(JSON.stringify(stub.requests[1].body.messages), /JSONata compile error/);
    assert.equal((await call(server.url, "GET", "/models/order")).json.version, "1.0.0", "not applied");
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("an evolution draft with no spec to apply to is refused before any call: 404 without a model, 400 for an invalid currentSpec (its preview too)", async () => {
  const stub = startLlmStub([{ text: JSON.stringify(EVOLUTION) }]);
  const server = await serverOn(stub, "openai");
  try {
    const reply = await call(server.url, "POST", "/models/generate/evolution", {
      modelId: "nope",
      prompt: "x",
    });
    assert.equal(reply.status, 404, reply.text);
    assert.match(reply.json.detail, /Model 'nope' not found/);
    assert.equal(stub.requests.length, 0, "nothing to check a draft against: no paid call");
    const given = await call(server.url, "POST", "/models/generate/evolution", {
      modelId: "nope",
      prompt: "x",
      currentSpec: orderSpec("nope"),
    });
    assert.equal(given.status, 200, "a currentSpec given is what the draft is checked against");
    const calls = stub.requests.length;
    const invalid = await call(server.url, "POST", "/models/generate/evolution", {
      modelId: "nope",
      prompt: "x",
      currentSpec: { id: "nope" },
    });
    assert.equal(invalid.status, 400, invalid.text);
    assert.match(invalid.json.detail, /^currentSpec does not validate: schema: /);
    assert.equal(stub.requests.length, calls, "no draft applies to it: no paid call");
    // The preview refuses it alike: a prompt built from {bogus:1} would draft against nothing.
    for (const currentSpec of [{ bogus: 1 }, { id: "nope" }]) {
      const preview = await call(server.url, "POST", "/models/generate/evolution/preview", {
        modelId: "nope",
        currentSpec,
        evolutionRequest: "add a total",
      });
      assert.equal(preview.status, 400, preview.text);
      assert.match(preview.json.detail, /^currentSpec does not validate: /);
    }
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("previews return {prompt} naming the model id; an edited prompt is what the LLM gets", async () => {
  const stub = startLlmStub([{ text: JSON.stringify(validSpec("edited")) }]);
  const server = await serverOn(stub, "openai");
  try {
    const preview = await call(server.url, "POST", "/models/generate/preview", {
      ...CART,
      includeView: true,
    });
    assert.equal(preview.status, 200);
    assert.deepEqual(Object.keys(preview.json), ["prompt"]);
    assert.deepEqual((await call(server.url, "GET", "/llm/status")).json, { available: true });
    assert.match(preview.json.prompt, /^Model ID: shop\/cart$/m);
    assert.match(preview.json.prompt, /a cart with quantity/);
    assert.match(preview.json.prompt, /viewDefinition/);
    const edited = preview.json.prompt.replace("shop/cart", "edited") + "\nUse euros.";
    const reply = await call(server.url, "POST", "/models/generate", { modelId: "edited", prompt: edited });
    assert.equal(reply.status, 200, reply.text);
    assert.match(JSON.stringify(stub.requests[0].body.messages), /Use euros\./);
    // The request's modelId is the spec's id, whatever the prompt's Model ID line says.
    const other = await call(server.url, "POST", "/models/generate", { modelId: "mine", prompt: edited });
    assert.equal(other.status, 200, other.text);
    assert.equal(other.json.spec.id, "mine");
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("400: prompt over 100000 characters, descriptions over 5000, evolve description missing or blank, an invalid modelId", async () => {
  const stub = startLlmStub([{ text: "{}" }]);
  const server = await serverOn(stub, "openai");
  try {
    await call(server.url, "POST", "/models", orderSpec("order"));
    const long = "x".repeat(5001);
    const cases: [string, unknown][] = [
      ["/models/generate", { modelId: "m", prompt: "p".repeat(100_001) }],
      ["/models/generate", { modelId: "m", domainDescription: long }],
      ["/models/generate", { modelId: "m" }],
      ["/models/generate/preview", { modelId: "m", domainDescription: long }],
      ["/models/generate/stream", { modelId: "m", domainDescription: long }],
      ["/models/generate/evolution", { modelId: "m", prompt: "p".repeat(100_001) }],
      ["/models/generate/evolution/preview", {
        modelId: "order",
        currentSpec: orderSpec(),
        evolutionRequest: long,
      }],
      ["/models/order/spec/evolve/ai", { description: long }],
      ["/models/order/spec/evolve/ai", { description: "   " }],
      ["/models/order/spec/evolve/ai", {}],
      ["/models/order/spec/evolve/ai/stream", { description: "" }],
      // A model id no spec can have is refused before any paid call.
      ["/models/generate", { modelId: "Bad Id", domainDescription: "a shop" }],
      ["/models/generate/stream", { modelId: "a/b/c", domainDescription: "a shop" }],
      ["/models/generate/preview", { modelId: "1st", domainDescription: "a shop" }],
      ["/models/generate", { modelId: "m".repeat(1025), domainDescription: "a shop" }],
      ["/models/generate/evolution", { modelId: "no good", prompt: "add a field" }],
    ];
    for (const [path, body] of cases) {
      const reply = await call(server.url, "POST", path, body);
      assert.equal(reply.status, 400, `${path} ${JSON.stringify(body).slice(0, 60)}: ${reply.text}`);
      assert.match(reply.headers.get("content-type") ?? "", /problem\+json/);
      if (
        path.startsWith("/models/generate") &&
        !/^(m|order)$/.test(String((body as { modelId?: string }).modelId))
      ) {
        assert.match(reply.json.detail, /^modelId: ('.*' is not a valid id|an id is at most 1024)/);
      }
    }
    assert.equal(stub.requests.length, 0, "nothing reached the LLM");
    const exact = await call(server.url, "POST", "/models/generate/preview", {
      modelId: "m",
      domainDescription: "x".repeat(5000),
    });
    assert.equal(exact.status, 200);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("503 on every generation route without a provider, naming the keys; streams too, before they start", async () => {
  const server = await startTestServer({ "svc.llm.provider": "openai" });
  try {
    await call(server.url, "POST", "/models", orderSpec("order"));
    const routes: [string, unknown][] = [
      ["/models/generate/preview", CART],
      ["/models/generate", CART],
      ["/models/generate/stream", CART],
      ["/models/generate/evolution/preview", {
        modelId: "order",
        currentSpec: orderSpec(),
        evolutionRequest: "x",
      }],
      ["/models/generate/evolution", { modelId: "order", prompt: "x" }],
      ["/models/order/spec/evolve/ai", { description: "x" }],
      ["/models/order/spec/evolve/ai/stream", { description: "x" }],
    ];
    for (const [path, body] of routes) {
      const reply = await call(server.url, "POST", path, body);
      assert.equal(reply.status, 503, path);
      assert.match(reply.json.detail, /svc\.llm\.provider.*svc\.llm\.api-key/, path);
    }
    assert.deepEqual((await call(server.url, "GET", "/llm/interactions")).json, []);
    const status = await call(server.url, "GET", "/llm/status");
    assert.equal(status.status, 200, "the status read tells without a 503");
    assert.equal(status.json.available, false);
    assert.match(status.json.message, /svc\.llm\.provider.*svc\.llm\.api-key/);
    assert.ok(!server.logs.some((l) => l.includes("llm:")), "no provider line");
  } finally {
    await server.close();
  }
});

Deno.test("the interaction log: newest first, content redacted unless svc.llm.log.capture-content", async () => {
  for (const capture of [false, true]) {
    const stub = startLlmStub([{ text: JSON.stringify(invalidSpec()) }, {
      text: JSON.stringify(validSpec()),
    }]);
    const server = await serverOn(stub, "openai", { "svc.llm.log.capture-content": String(capture) });
    try {
      assert.equal((await call(server.url, "POST", "/models/generate", CART)).status, 200);
      const log = await call(server.url, "GET", "/llm/interactions");
      assert.equal(log.status, 200);
      assert.equal(log.json.length, 2);
      const [newest, oldest] = log.json;
      assert.ok(newest.timestamp >= oldest.timestamp);
      for (const record of log.json) {
        assert.deepEqual(Object.keys(record).sort(), [
          "durationMs",
          "errorMessage",
          "model",
          "prompt",
          "provider",
          "response",
          "system",
          "timestamp",
          "user",
          "webFetchCalls",
        ]);
        assert.equal(record.provider, "openai");
        assert.equal(record.model, "gpt-4o");
        assert.equal(record.errorMessage, null);
      }
      if (capture) {
        assert.equal(newest.response, JSON.stringify(validSpec()));
        assert.match(newest.user, /FIX:/);
        assert.match(oldest.prompt, /Model ID: shop\/cart/);
        assert.match(newest.system, /ModelSpec/);
      } else {
        for (const record of log.json) {
          assert.equal(record.prompt, "[redacted]");
          assert.equal(record.system, "[redacted]");
          assert.equal(record.user, "[redacted]");
          assert.equal(record.response, "[redacted]");
          assert.deepEqual(record.webFetchCalls, []);
        }
      }
    } finally {
      await server.close();
      await stub.close();
    }
  }
});

Deno.test("a client that disconnects from the event stream cancels the provider call", async () => {
  for (const kind of ["openai", "anthropic"] as const) {
    const stub = startLlmStub([{ hang: true }]);
    const server = await serverOn(stub, kind);
    try {
      const abort = new AbortController();
      const response = await fetch(server.url + "/models/generate/stream", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(CART),
        signal: abort.signal,
      });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /llm_requesting/);
      await stub.hanging;
      abort.abort();
      await reader.cancel().catch(() => {});
      const gone = await Promise.race([
        stub.aborted.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000)),
      ]);
      assert.ok(gone, `${kind}: the provider request was cancelled`);
    } finally {
      await server.close();
      await stub.close();
    }
  }
});

Deno.test("web_fetch goes through the server's SSRF guard: loopback and names resolving to private ranges are refused", async () => {
  const { llmEgress } = await import("../../server/llm_egress.ts");
  const { fetchPage } = await import("../../llm/web.ts");
  const site = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("secret"),
  );
  const egress = llmEgress({
    resolve: (host) => Promise.resolve(host === "evil.test" ? ["10.0.0.7"] : ["93.184.215.14"]),
  });
  try {
    const loopback = await fetchPage(`http://127.0.0.1:${site.addr.port}/`, egress, 1000);
    assert.match(loopback.text, /^\[web_fetch refused: egress blocked: 127\.0\.0\.1 is loopback/);
    assert.equal(loopback.record.responseCode, null);
    const rebinding = await fetchPage("http://evil.test/admin", egress, 1000);
    assert.match(
      rebinding.text,
      /refused: egress blocked: 'evil\.test' resolves to 10\.0\.0\.7, which is private/,
    );
    for (
      const url of [
        "http://[::ffff:127.0.0.1]/",
        "http://169.254.169.254/latest/meta-data",
        "file:///etc/passwd",
      ]
    ) {
      assert.match((await fetchPage(url, egress, 1000)).text, /^\[web_fetch refused: /, url);
    }
  } finally {
    await site.shutdown();
  }
});
