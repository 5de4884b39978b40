/**
 * A provider that repeats the credentials it was sent (a gateway echoing the
 * `Authorization` header in its 401 body): no surface may hand them on, not
 * the REST answer, the event stream, the interaction log, nor an `llm`
 * effect's status document and so the model's state and audit trail.
 */
import assert from "node:assert/strict";
import { call } from "../server/helpers.ts";
import { postStream, serverOn } from "./helpers.ts";
import { startLlmStub } from "./stub_server.ts";

const CART = { modelId: "shop/cart", domainDescription: "a cart with quantity, price and a total" };
const KEY = "test-key-123";

/** A 401 whose body repeats the request's Authorization header, as some gateways do. */
const echoing = () =>
  startLlmStub((request) => ({
    error: { status: 401, message: `Incorrect API key provided: ${request.headers.get("authorization")}` },
  }));

Deno.test("a provider echoing the key in its error: REST, the stream and the interaction log never show it", async () => {
  const stub = echoing();
  const server = await serverOn(stub, "openai", { "svc.llm.log.capture-content": "true" });
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 502);
    assert.match(
      reply.json.detail,
      /openai answered HTTP 401: Incorrect API key provided: Bearer \[redacted\]/,
    );
    assert.doesNotMatch(reply.text, new RegExp(KEY));

    const stream = await postStream(server.url, "/models/generate/stream", CART);
    assert.equal(stream.frames.at(-1)!.event, "error");
    assert.doesNotMatch(stream.text, new RegExp(KEY));

    const log = await call(server.url, "GET", "/llm/interactions");
    assert.match(log.json[0].errorMessage, /HTTP 401/);
    assert.doesNotMatch(log.text, new RegExp(KEY));
    assert.ok(
      stub.requests.every((r) => r.headers.get("authorization") === `Bearer ${KEY}`),
      "the key was sent",
    );
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("an llm effect whose provider echoes the key: neither its status document nor the audit trail holds it", async () => {
  const stub = echoing();
  const server = await serverOn(stub);
  try {
    const created = await call(server.url, "POST", "/models", {
      id: "ticket",
      schema: {
        type: "object",
        properties: { text: { type: "string" }, category: { type: "string" }, io: { type: "object" } },
      },
      effects: [{
        id: "classify",
        executor: "llm",
        trigger: "text != null",
        dedupeKey: "text",
        prompt: "'Classify: ' & text",
        response: { set: { "$.category": "$response.category" } },
        statusPath: "$.io.classify",
        policy: { retries: 0 },
      }],
    });
    assert.equal(created.status, 201, created.text);
    await call(server.url, "POST", "/models/ticket/mutations", { "$.text": "charged twice" });
    let status: { error?: string } | undefined;
    for (let i = 0; i < 100 && !status?.error; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await call(server.url, "GET", "/models/ticket/state")).json.io?.classify;
    }
    assert.match(status?.error ?? "", /HTTP 401: Incorrect API key provided: Bearer \[redacted\]/);
    const state = await call(server.url, "GET", "/models/ticket/state");
    assert.doesNotMatch(state.text, new RegExp(KEY));
    const audit = await call(server.url, "GET", "/models/ticket/audit");
    assert.equal(audit.status, 200);
    assert.match(audit.text, /\[redacted\]/, "the failure was audited");
    assert.doesNotMatch(audit.text, new RegExp(KEY));
  } finally {
    await server.close();
    await stub.close();
  }
});
