/**
 * Every candidate goes through the checks `POST /models` makes (its initial
 * state built under the service's limits) before it is an answer; a test run
 * that throws or takes too long is a finding to repair, not an escape; AI
 * evolution prompts are held to the prompt limit.
 */
import assert from "node:assert/strict";
import { call, orderSpec } from "../server/helpers.ts";
import { postStream, serverOn, validSpec } from "./helpers.ts";
import { startLlmStub } from "./stub_server.ts";

const CART = { modelId: "shop/cart", domainDescription: "a cart with quantity, price and a total" };
const NO_RETRY = { "svc.llm.max-retries": "0", "svc.llm.max-retries-hard": "0" };

/** `validSpec()` with one more derivation. */
const withDerivation = (expr: string, evaluation?: "lazy") => ({
  ...validSpec(),
  derivations: [
    { path: "$.total", expr: "qty * price" },
    { path: "$.r", expr, ...(evaluation ? { evaluation } : {}) },
  ],
});

const RECURSIVE = withDerivation("($f := function($x){$f($x)+1}; $f(qty))");
const HUGE = withDerivation('$pad("", 300000, "x")');

Deno.test("a candidate whose initial state POST /models refuses (no end, over max-state-bytes) is repaired", async () => {
  const limits = { "svc.limits.max-state-bytes": "200000" };
  for (
    const [name, bad, finding] of [["recursive", RECURSIVE, /initial state/], [
      "huge",
      HUGE,
      /max-state-bytes/,
    ]] as const
  ) {
    const stub = startLlmStub([{ text: JSON.stringify(bad) }, { text: JSON.stringify(validSpec()) }]);
    const server = await serverOn(stub, "openai", limits);
    try {
      // What creation says of it.
      const created = await call(server.url, "POST", "/models", { ...bad, id: "probe/x" });
      assert.ok(created.status === 413 || created.status === 422, `${name}: ${created.status}`);
      const reply = await call(server.url, "POST", "/models/generate", CART);
      assert.equal(reply.status, 200, `${name}: ${reply.text.slice(0, 300)}`);
      assert.equal(stub.requests.length, 2, `${name}: repaired`);
      assert.match(JSON.stringify(stub.requests[1].body.messages.at(-1)), finding, name);
    } finally {
      await server.close();
      await stub.close();
    }
    const never = startLlmStub([{ text: JSON.stringify(bad) }]);
    const strict = await serverOn(never, "openai", { ...limits, ...NO_RETRY });
    try {
      const reply = await call(strict.url, "POST", "/models/generate", CART);
      assert.equal(reply.status, 422, name);
      assert.equal(reply.json.valid, false);
      assert.match(reply.json.errors[0].message, finding);
    } finally {
      await strict.close();
      await never.close();
    }
  }
});

Deno.test("a test run that throws is a finding: repaired, else {valid:false, errors, rawResponse}, done when streamed", async () => {
  // Fine for the defaults, endless once a test sets qty above 1 (read lazily, so only the test run meets it).
  const bad = {
    ...withDerivation("qty > 1 ? ($f := function($x){$f($x)+1}; $f(qty)) : 0", "lazy"),
    tests: [{ description: "r", given: { "$.qty": 2 }, expect: { "$.r": 0 } }],
  };
  const stub = startLlmStub([{ text: JSON.stringify(bad) }, { text: JSON.stringify(validSpec()) }]);
  const server = await serverOn(stub);
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    assert.match(JSON.stringify(stub.requests[1].body.messages.at(-1)), /running the tests/);
  } finally {
    await server.close();
    await stub.close();
  }
  const never = startLlmStub([{ text: JSON.stringify(bad) }]);
  const strict = await serverOn(never, "openai", NO_RETRY);
  try {
    const reply = await call(strict.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 422, reply.text.slice(0, 300));
    assert.equal(reply.json.valid, false);
    assert.equal(typeof reply.json.rawResponse, "string");
    assert.deepEqual(Object.keys(reply.json.errors[0]).sort(), ["location", "message", "severity"]);
    assert.match(reply.json.errors[0].message, /running the tests/);
    const { frames } = await postStream(strict.url, "/models/generate/stream", CART);
    assert.equal(frames.at(-1)!.event, "done");
    assert.equal(frames.at(-1)!.data.valid, false);
  } finally {
    await strict.close();
    await never.close();
  }
});

Deno.test("checking a candidate's tests stops at svc.llm.timeout-ms: a finding, not minutes of work", async () => {
  // Each case runs into the 1 s expression deadline; eight of them would take many seconds.
  const slow = {
    ...withDerivation("qty > 5 ? $count([1..200000].($string($))) : 0"),
    tests: Array.from({ length: 8 }, (_, i) => ({
      description: `t${i}`,
      given: { "$.qty": 10 + i },
      expect: { "$.r": 1 },
    })),
  };
  const stub = startLlmStub([{ text: JSON.stringify(slow) }]);
  const server = await serverOn(stub, "openai", { ...NO_RETRY, "svc.llm.timeout-ms": "1000" });
  try {
    const reply = await call(server.url, "POST", "/models/generate", CART);
    assert.equal(reply.status, 422, reply.text.slice(0, 300));
    // The check's own timeout ended it (the finding says so), not the eight cases' deadlines one after another.
    assert.match(reply.json.errors[0].message, /checking the tests took longer than 1000 ms/);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("an AI evolution draft whose evolved spec cannot be created is repaired", async () => {
  const stub = startLlmStub([
    {
      text: JSON.stringify({
        upsertDerivations: [{ path: "$.r", expr: "($f := function($x){$f($x)+1}; $f(1))" }],
      }),
    },
    { text: JSON.stringify({ newVersion: "1.1.0", upsertDerivations: [{ path: "$.r", expr: "qty + 1" }] }) },
  ]);
  const server = await serverOn(stub);
  try {
    await call(server.url, "POST", "/models", orderSpec("order"));
    const reply = await call(server.url, "POST", "/models/order/spec/evolve/ai", { description: "add r" });
    assert.equal(reply.status, 200, reply.text.slice(0, 300));
    assert.equal(reply.json.version, "1.1.0");
    assert.equal(stub.requests.length, 2);
    assert.match(JSON.stringify(stub.requests[1].body.messages.at(-1)), /initial state/);
  } finally {
    await server.close();
    await stub.close();
  }
});

Deno.test("AI evolution refuses a prompt over 100000 characters with generation's 400, before any call", async () => {
  const stub = startLlmStub([{ text: "{}" }]);
  const server = await serverOn(stub);
  try {
    const properties = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [`f${i}`, { type: "number", description: "d".repeat(300) }]),
    );
    const spec = { id: "big/one", schema: { type: "object", properties } };
    assert.equal((await call(server.url, "POST", "/models", spec)).status, 201);
    const reply = await call(server.url, "POST", "/models/big%2Fone/spec/evolve/ai", {
      description: "add a field",
    });
    assert.equal(reply.status, 400, reply.text.slice(0, 300));
    assert.match(reply.json.detail, /^prompt has \d+ characters; at most 100000 are allowed$/);
    const streamed = await postStream(server.url, "/models/big%2Fone/spec/evolve/ai/stream", {
      description: "add a field",
    });
    assert.equal(streamed.status, 400);
    assert.equal(stub.requests.length, 0);
  } finally {
    await server.close();
    await stub.close();
  }
});
