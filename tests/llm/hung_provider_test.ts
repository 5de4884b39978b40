/**
 * A provider that never answers: each call ends at `svc.llm.timeout-ms`
 * (502), a client that leaves a blocking generation cancels it (no further
 * paid attempts), and shutdown aborts generations in flight rather than
 * waiting for them.
 */
import assert from "node:assert/strict";
import { serverOn } from "./helpers.ts";
import { startLlmStub } from "./stub_server.ts";

const CART = { modelId: "shop/cart", domainDescription: "a cart with quantity, price and a total" };

/** Resolves true when `promise` settles within `ms`, false otherwise. */
function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    promise.then(() => true, () => true),
    new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), ms)),
  ]).finally(() => clearTimeout(timer));
}

const generate = (url: string, signal?: AbortSignal) =>
  fetch(url + "/models/generate", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(CART),
    signal,
  });

Deno.test("a provider call that does not answer within svc.llm.timeout-ms is a 502 saying so", async () => {
  const stub = startLlmStub([{ hang: true }]);
  const server = await serverOn(stub, "openai", { "svc.llm.timeout-ms": "1000", "svc.llm.max-retries": "0" });
  // Without the timeout the call would never end: fail instead of hanging the suite.
  const guard = new AbortController();
  const timer = setTimeout(() => guard.abort(), 5000);
  try {
    const response = await generate(server.url, guard.signal);
    const body = await response.json();
    assert.equal(response.status, 502);
    assert.match(body.detail, /openai did not answer within 1000 ms \(svc\.llm\.timeout-ms\)/);
    assert.ok(await within(stub.aborted, 2000), "the provider request was cancelled");
  } finally {
    clearTimeout(timer);
    await server.close();
    await stub.close();
  }
});

Deno.test("svc.llm.timeout-ms is an integer of at least 1000, 120000 by default", async () => {
  const { llmConfig } = await import("../../llm/config.ts");
  assert.equal(llmConfig(() => undefined).timeoutMs, 120_000);
  assert.throws(
    () => llmConfig((key) => key === "svc.llm.timeout-ms" ? "10" : undefined),
    /svc\.llm\.timeout-ms \(SVC_LLM_TIMEOUT_MS\) must be an integer of at least 1000/,
  );
});

Deno.test("a client that leaves a blocking generation cancels the provider call and makes no further attempts", async () => {
  const stub = startLlmStub([{ hang: true }]);
  const server = await serverOn(stub);
  try {
    const abort = new AbortController();
    const pending = generate(server.url, abort.signal).catch(() => undefined);
    await stub.hanging;
    abort.abort();
    await pending;
    assert.ok(await within(stub.aborted, 5000), "the provider request was cancelled");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(stub.requests.length, 1, "no repair attempt after the client left");
    // Not a server failure: an info line, no stack trace.
    assert.deepEqual(server.logs.filter((l) => l.startsWith("error:")), []);
    assert.ok(
      server.logs.includes("info: POST /models/generate: the client went away before the answer"),
      server.logs.join("\n"),
    );
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("shutdown aborts a generation in flight (503) instead of waiting for the provider", async () => {
  const stub = startLlmStub([{ hang: true }]);
  const server = await serverOn(stub);
  try {
    const pending = generate(server.url);
    await stub.hanging;
    assert.ok(await within(server.close(), 5000), "the server closed");
    const response = await pending;
    assert.equal(response.status, 503);
    assert.match((await response.json()).detail, /shutting down/);
    assert.ok(await within(stub.aborted, 2000), "the provider request was cancelled");
  } finally {
    await server.close();
    await stub.close();
  }
});
