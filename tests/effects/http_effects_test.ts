/**
 * `server` effects of the real server against real loopback targets (the
 * egress guard relaxed by configuration for them): success and fold-back,
 * retry after a 500, time-out, oversized answer (not retried), redirect not followed, a key
 * superseded and a trigger turned false while in flight, fan-out, the
 * default guard refusing the loopback target, and a name that does not
 * resolve retried.
 */
import assert from "node:assert/strict";
import { jobOf } from "../../engine/effects/test_support.ts";
import { httpExecutor } from "../../server/executors/mod.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { LOOPBACK_EFFECTS, rateModel, startTarget, stateOf, until, writesTo } from "./helpers.ts";

const LOOPBACK_POLICY = { allowPrivateIps: true, allowInsecureHttp: true, allowedHosts: null };
const fetchPhase = (s: { io?: { fetch?: { phase: string } } }) => s.io?.fetch?.phase;

Deno.test("a webhook's answer folds back as one foldback commit, seen by subscribers; the attempt is timed", async () => {
  const target = startTarget(() => Response.json({ rate: 1.25 }));
  const server = await startTestServer(LOOPBACK_EFFECTS);
  const frames: { mutatedPaths: string[] }[] = [];
  let socket: WebSocket | undefined;
  try {
    await call(server.url, "POST", "/models", rateModel(target.url));
    socket = new WebSocket(`${server.wsUrl}/models/quote/subscribe?paths=${encodeURIComponent("$.rate")}`);
    socket.onmessage = (event) => frames.push(JSON.parse(event.data));
    await new Promise((resolve) => socket!.onopen = resolve);
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu west", "$.enabled": true });
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "applied",
      "applied",
    );
    await until(() => Promise.resolve(frames.length), (n) => n === 1, "the fold-back frame");
    assert.deepEqual(frames[0].mutatedPaths, ["$.rate", "$.io.fetch"]);
    assert.equal(state.rate, 1.25);
    assert.deepEqual(target.hits.map((h) => [h.method, h.path]), [["GET", "/rate?region=eu%20west"]]);
    const audit = (await call(server.url, "GET", "/models/quote/audit")).json;
    assert.deepEqual(audit.map((r: { source: string }) => r.source), ["foldback", "foldback", "client"]);
    assert.deepEqual(audit[0].mutations["$.rate"], 1.25);
    assert.equal((await call(server.url, "GET", "/models/quote/audit/verify")).json.valid, true);
    const metric = (await call(server.url, "GET", "/actuator/metrics/svc.effect.duration")).json;
    assert.deepEqual(metric.availableTags.find((t: { tag: string }) => t.tag === "kind").values, ["server"]);
  } finally {
    socket?.close();
    await server.close();
    await target.close();
  }
});

Deno.test("a 500 is retried under the policy; a 4xx and a redirect are not, their error says why", async () => {
  const target = startTarget((hit, n) => {
    if (hit.path.includes("flaky")) {
      return n === 0 ? new Response("down", { status: 500 }) : Response.json({ rate: 2 });
    }
    if (hit.path.includes("moved")) {
      return new Response(null, { status: 302, headers: { location: "/elsewhere" } });
    }
    // A payment API's refusal, its reason in a JSON body (Stripe's shape).
    return Response.json({ error: { type: "card_error", message: "card declined" } }, { status: 402 });
  });
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    const policy = { retries: 2, backoff: 10 };
    await call(server.url, "POST", "/models", rateModel(target.url, { policy }));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "flaky", "$.enabled": true });
    const retried = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "applied",
      "retry",
    );
    assert.equal(retried.rate, 2);
    assert.equal(target.hits.length, 2);

    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "moved" });
    const moved = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "failed",
      "redirect",
    );
    assert.equal(moved.io.fetch.error, "http 302: redirects are not followed (Location: /elsewhere)");
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "declined" });
    const declined = await until(
      () => stateOf(server.url, "quote"),
      (s) => s.io.fetch.key === "declined" && fetchPhase(s) === "failed",
      "402",
    );
    assert.equal(declined.io.fetch.error, "http 402: card declined");
    assert.deepEqual(target.hits.map((h) => h.path.split("=")[1]), ["flaky", "flaky", "moved", "declined"]);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("a 429 (too many requests) is retried under the policy; its Retry-After reaches the dispatcher", async () => {
  const target = startTarget((_hit, n) =>
    n === 0
      ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } })
      : Response.json({ rate: 3 })
  );
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", rateModel(target.url, { policy: { retries: 1, backoff: 10 } }));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "busy", "$.enabled": true });
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "applied",
      "applied",
    );
    assert.equal(state.rate, 3);
    assert.equal(target.hits.length, 2, "sent again after the 429");
  } finally {
    await server.close();
    await target.close();
  }
  const busy = startTarget(() => new Response("", { status: 429, headers: { "retry-after": "7" } }));
  try {
    const executor = httpExecutor({ policy: LOOPBACK_POLICY, maxResponseBytes: 1000 });
    const request = { method: "GET", url: `${busy.url}/x`, headers: {} };
    const job = jobOf({ type: "http", requests: [request] });
    const outcome = await executor.execute(job, { signal: new AbortController().signal, timeoutMs: 5000 });
    assert.deepEqual(outcome, { ok: false, error: "http 429", retryable: true, retryAfterMs: 7000 });
  } finally {
    await busy.close();
  }
});

Deno.test("while a job waits for its retry, its status and the subscribers' feed say the attempt failed and when the next is due", async () => {
  const target = startTarget(() =>
    Response.json({ message: "payments down for maintenance" }, {
      status: 503,
      headers: { "retry-after": "3600" },
    })
  );
  const server = await startTestServer(LOOPBACK_EFFECTS);
  const frames: { mutatedPaths: string[] }[] = [];
  let socket: WebSocket | undefined;
  try {
    // A backoff of a minute, the Retry-After's hour cut to it: the job waits well past this test.
    const policy = { retries: 3, backoff: { initialMs: 60_000, maxMs: 60_000 } };
    await call(server.url, "POST", "/models", rateModel(target.url, { policy }));
    socket = new WebSocket(`${server.wsUrl}/models/quote/subscribe?paths=${encodeURIComponent("$.io")}`);
    socket.onmessage = (event) => frames.push(JSON.parse(event.data));
    await new Promise((resolve) => socket!.onopen = resolve);
    const sent = Date.now();
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => s.io?.fetch?.error !== null,
      "retry",
    );
    const { phase, key, error } = state.io.fetch;
    assert.deepEqual([phase, key, target.hits.length], ["in_flight", "eu", 1]);
    const [, reason, due] = /^(.*) \(retry 1 of 3 at (\S+)\)$/.exec(error) ?? [];
    assert.equal(reason, "http 503: payments down for maintenance", error);
    assert.ok(Date.parse(due) >= sent + 60_000, `due ${due}`);
    // Pending, in flight, then the retry's status: a frame each.
    await until(() => Promise.resolve(frames.length), (n) => n === 3, "the retry's frame");
    assert.deepEqual(frames.map((f) => f.mutatedPaths), [["$.region", "$.enabled", "$.io.fetch"], [
      "$.io.fetch",
    ], [
      "$.io.fetch",
    ]]);
  } finally {
    socket?.close();
    await server.close();
    await target.close();
  }
});

Deno.test("a POST carries an Idempotency-Key, the same when it is retried; a GET and a spec's own key are left alone", async () => {
  const target = startTarget((hit, n) =>
    n === 0 ? new Response("down", { status: 500 }) : Response.json({ rate: hit.method === "GET" ? 1 : 2 })
  );
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    const post = { method: "POST", url: `${target.url}/charge`, body: "{'region': region}" };
    const model = rateModel(target.url, { request: post, policy: { retries: 1, backoff: 10 } });
    await call(server.url, "POST", "/models", model);
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    await until(() => stateOf(server.url, "quote"), (s) => fetchPhase(s) === "applied", "applied");
    const keys = target.hits.map((hit) => hit.headers.get("idempotency-key"));
    assert.equal(keys.length, 2);
    assert.match(keys[0] ?? "", /^fetch%40\d+%23\w+$/, "the job's id: one per firing");
    assert.equal(keys[1], keys[0], "the retry is recognisably the same request");

    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "us" });
    await until(() => Promise.resolve(target.hits.length), (n) => n === 3, "the new key's request");
    assert.notEqual(target.hits[2].headers.get("idempotency-key"), keys[0], "a new firing, a new key");

    const own = { ...post, headers: { "Idempotency-Key": "order-{ region }" } };
    const effect = (model.effects as object[])[0];
    await call(server.url, "POST", "/models/quote/spec/evolve", {
      upsertEffects: [{ ...effect, request: own }],
    });
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "apac" });
    await until(() => Promise.resolve(target.hits.length), (n) => n === 4, "the spec's own key");
    assert.deepEqual(target.hits[3].headers.get("idempotency-key"), "order-apac");

    await call(server.url, "POST", "/models/quote/spec/evolve", {
      upsertEffects: [{ ...effect, request: { url: `${target.url}/rate?region={ region }` } }],
    });
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "latam" });
    await until(() => Promise.resolve(target.hits.length), (n) => n === 5, "the GET");
    assert.equal(target.hits[4].method, "GET");
    assert.equal(target.hits[4].headers.get("idempotency-key"), null, "a GET is idempotent as it is");
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("a slow target times out; an oversized answer fails; neither is applied", async () => {
  const target = startTarget(async (hit) => {
    if (hit.path.includes("slow")) await new Promise((resolve) => setTimeout(resolve, 600));
    return Response.json({ rate: 9, padding: "x".repeat(hit.path.includes("big") ? 5000 : 0) });
  });
  const server = await startTestServer({ ...LOOPBACK_EFFECTS, "svc.effects.max-response-bytes": "1000" });
  try {
    await call(server.url, "POST", "/models", rateModel(target.url, { policy: { timeoutMs: 100 } }));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "slow", "$.enabled": true });
    const slow = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "failed",
      "time-out",
    );
    assert.match(slow.io.fetch.error, /^no answer within 100 ms$/);
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "big" });
    const big = await until(
      () => stateOf(server.url, "quote"),
      (s) => s.io.fetch.key === "big" && fetchPhase(s) === "failed",
      "oversize",
    );
    assert.match(big.io.fetch.error, /exceeds svc\.effects\.max-response-bytes \(1000\)/);
    assert.equal(big.rate, undefined);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("an oversized answer fails at once, however many retries the policy allows", async () => {
  const target = startTarget(() => Response.json({ rate: 9, padding: "x".repeat(5000) }));
  const server = await startTestServer({ ...LOOPBACK_EFFECTS, "svc.effects.max-response-bytes": "1000" });
  try {
    await call(server.url, "POST", "/models", rateModel(target.url, { policy: { retries: 2, backoff: 10 } }));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "big", "$.enabled": true });
    const big = await until(() => stateOf(server.url, "quote"), (s) => fetchPhase(s) === "failed", "failed");
    assert.equal(big.io.fetch.error, "response exceeds svc.effects.max-response-bytes (1000)");
    assert.equal(target.hits.length, 1, "sent once");
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("while in flight: a new key supersedes (re-fired), a false trigger cancels", async () => {
  const gates: PromiseWithResolvers<void>[] = [];
  const target = startTarget(async (hit) => {
    const gate = Promise.withResolvers<void>();
    gates.push(gate);
    await gate.promise;
    return Response.json({ rate: hit.path.endsWith("=us") ? 2 : 1 });
  });
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", rateModel(target.url));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    await until(() => Promise.resolve(gates.length), (n) => n === 1, "the first request");
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "us" });
    gates[0].resolve();
    await until(() => Promise.resolve(gates.length), (n) => n === 2, "the re-fired request");
    gates[1].resolve();
    const superseded = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "applied",
      "us",
    );
    assert.deepEqual([superseded.rate, superseded.io.fetch.key], [2, "us"], "eu's answer was never applied");

    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu" });
    await until(() => Promise.resolve(gates.length), (n) => n === 3, "the third request");
    await call(server.url, "POST", "/models/quote/mutations", { "$.enabled": false });
    gates[2].resolve();
    const cancelled = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "cancelled",
      "cancel",
    );
    assert.deepEqual([cancelled.rate, cancelled.io.fetch.key], [2, null]);
  } finally {
    gates.forEach((g) => g.resolve());
    await server.close();
    await target.close();
  }
});

Deno.test("an evolution that changes an effect's request supersedes its outstanding job: the new request is sent", async () => {
  const oldAnswer = Promise.withResolvers<void>();
  const target = startTarget(async (hit) => {
    if (hit.path.startsWith("/old")) {
      await oldAnswer.promise;
      return Response.json({ rate: 1 });
    }
    return Response.json({ rate: 2 });
  });
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    const model = rateModel(target.url, { request: { url: `${target.url}/old?region={ region }` } });
    const effect = (model.effects as Record<string, unknown>[])[0];
    await call(server.url, "POST", "/models", model);
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    await until(() => Promise.resolve(target.hits.length), (n) => n === 1, "the old request");
    // A cosmetic change (what is folded back, the policy) keeps the job: its request is the same.
    const cosmetic = {
      ...effect,
      response: { set: { "$.rate": "$response.rate * 10" } },
      policy: { retries: 1 },
    };
    assert.equal(
      (await call(server.url, "POST", "/models/quote/spec/evolve", { upsertEffects: [cosmetic] })).status,
      200,
    );
    // The author fixes the URL while the old request waits for its answer.
    const fixed = { ...cosmetic, request: { url: `${target.url}/new?region={ region }` } };
    assert.equal(
      (await call(server.url, "POST", "/models/quote/spec/evolve", { upsertEffects: [fixed] })).status,
      200,
    );
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "applied",
      "applied",
    );
    assert.equal(state.rate, 20, "the new request's answer, folded back as the spec now says");
    oldAnswer.resolve();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(target.hits.map((h) => h.path), ["/old?region=eu", "/new?region=eu"]);
    assert.deepEqual(await writesTo(server.url, "quote", "$.rate"), [20], "the old answer is dropped");
  } finally {
    oldAnswer.resolve();
    await server.close();
    await target.close();
  }
});

Deno.test("a fan-out sends every request; each folds into its own field and status", async () => {
  const target = startTarget((hit) =>
    hit.path === "/items/b"
      ? new Response("boom", { status: 503 })
      : Response.json({ price: hit.path.length })
  );
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", {
      id: "fan",
      schema: { type: "object", properties: { skus: { type: "array" }, prices: { type: "object" } } },
      effects: [{
        id: "prices",
        trigger: "$count(skus) > 0",
        requests: `skus.{'url': '${target.url}/items/' & $, 'set': {'$.prices.' & $: '$response.price'}, ` +
          "'statusPath': '$.prices.io_' & $, 'dedupeKey': $}",
      }],
    });
    await call(server.url, "POST", "/models/fan/mutations", { "$.skus": ["a", "b", "cc"] });
    const state = await until(
      () => stateOf(server.url, "fan"),
      (s) => s.prices?.io_cc !== undefined,
      "fan-out",
    );
    assert.deepEqual([state.prices.a, state.prices.b, state.prices.cc], [8, undefined, 9]);
    assert.deepEqual([state.prices.io_a.phase, state.prices.io_b.phase], ["applied", "failed"]);
    assert.equal(state.prices.io_b.error, "http 503: boom");
    assert.deepEqual(target.hits.map((h) => h.path).sort(), ["/items/a", "/items/b", "/items/cc"]);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("with the default guard a loopback target is refused before any connection", async () => {
  const target = startTarget(() => Response.json({ rate: 1 }));
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", rateModel(target.url.replace("http:", "https:")));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "failed",
      "refusal",
    );
    assert.equal(
      state.io.fetch.error,
      "egress blocked: 127.0.0.1 is loopback (svc.effects.allow-private-ips)",
    );
    assert.equal(target.hits.length, 0);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("a host name that does not resolve is retried under the policy, then fails saying so", async () => {
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    const policy = { retries: 2, backoff: 10 };
    await call(server.url, "POST", "/models", rateModel("http://nonexistent.invalid", { policy }));
    await call(server.url, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "failed",
      "the failure",
    );
    assert.match(state.io.fetch.error, /^dns: cannot resolve host 'nonexistent\.invalid': /);
    const phases = (await writesTo(server.url, "quote", "$.io.fetch")).map((s) =>
      (s as { phase: string }).phase
    );
    // Three attempts, each in flight, the two waits between them in flight too (their error saying why).
    assert.deepEqual(phases, ["failed", ...Array(5).fill("in_flight")], "three attempts");
  } finally {
    await server.close();
  }
});

Deno.test("credentials in an effect's URL: a literal one refused at create and evolve, a computed one fails the job", async () => {
  const target = startTarget(() => Response.json({ rate: 1 }));
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    const withUser = target.url.replace("http://", "http://user:s3cr3t@");
    const created = await call(server.url, "POST", "/models", rateModel(withUser));
    assert.equal(created.status, 422);
    const finding = created.json.errors.find((e: { location: string }) =>
      e.location === "effects[0].request.url"
    );
    assert.match(
      finding.message,
      /carries credentials \(user:password@\), which are never sent: put them in a request header/,
    );
    assert.doesNotMatch(JSON.stringify(created.json), /s3cr3t/);

    // Computed: the host comes from the document, so only the request that would be sent can tell.
    const computed = rateModel("", { request: { url: "{ region }/rate" } });
    assert.equal((await call(server.url, "POST", "/models", computed)).status, 201);
    const evolved = await call(server.url, "POST", "/models/quote/spec/evolve", {
      upsertEffects: [{ ...(computed.effects as object[])[0], request: { url: `${withUser}/rate` } }],
    });
    assert.equal(evolved.status, 422);
    assert.match(JSON.stringify(evolved.json.errors), /effects\[0\]\.request\.url/);

    await call(server.url, "POST", "/models/quote/mutations", { "$.region": withUser, "$.enabled": true });
    const state = await until(
      () => stateOf(server.url, "quote"),
      (s) => fetchPhase(s) === "failed",
      "failure",
    );
    assert.match(state.io.fetch.error, /^invalid request: the URL carries credentials \(user:password@\)/);
    assert.equal(target.hits.length, 0, "no request went out without them");
  } finally {
    await server.close();
    await target.close();
  }
});
