import assert from "node:assert/strict";
import type { Json } from "../json/value.ts";
import { testConfig } from "../_test_utils.ts";
import { effectService, ok, OutboxStore, ScriptedExecutor, settled } from "./test_support.ts";
import { type ExecutorOutcome, TIMER_EXECUTOR } from "./executor.ts";
import { httpExecutor } from "./http_executor.ts";

const rateSpec = (extra: Record<string, unknown> = {}) => ({
  id: "quote",
  schema: {
    type: "object",
    properties: {
      region: { type: "string" },
      enabled: { type: "boolean" },
      note: { type: "string" },
      rate: { type: "number" },
      io: { type: "object" },
    },
  },
  effects: [{
    id: "fetch",
    executor: "server",
    trigger: "enabled and region != null",
    dedupeKey: "region",
    request: {
      method: "post",
      url: "https://rates.example/{ region }?n={ $length(region) }",
      headers: { "x-region": "{ region }" },
      body: "{'region': region}",
    },
    response: { set: { "$.rate": "$response.rate * 2", "$.note": "'http ' & $string($status)" } },
    statusPath: "$.io.fetch",
    policy: { retries: 2, backoff: 100 },
    ...extra,
  }],
});

type State = { rate?: number; note?: string; io: { fetch: Record<string, Json> } };

Deno.test("a fired effect is pending in the commit that fires it, then folded back once", async () => {
  const http = new ScriptedExecutor().answer(ok({ rate: 1.5 }));
  const { service, scheduler } = await effectService([http]);
  await service.createModel(rateSpec());
  const fired = await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  assert.deepEqual(fired.mutatedPaths, ["$.region", "$.enabled", "$.io.fetch"]);
  const pending = (await service.getState("quote")) as State;
  assert.deepEqual(pending.io.fetch, {
    phase: "pending",
    key: "eu",
    at: new Date(scheduler.clock.now()).toISOString(),
    error: null,
  });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 1);
  assert.deepEqual(http.jobs[0].work, {
    type: "http",
    requests: [{
      method: "POST",
      url: "https://rates.example/eu?n=2",
      headers: { "x-region": "eu" },
      body: { region: "eu" },
    }],
  });
  const state = (await service.getState("quote")) as State;
  assert.equal(state.rate, 3);
  assert.equal(state.note, "http 200");
  assert.equal(state.io.fetch.phase, "applied");
  assert.equal(state.io.fetch.key, "eu");
  const audit = await service.getAudit("quote", {});
  assert.deepEqual(
    audit.map((a) => a.source),
    ["foldback", "foldback", "client"],
    "in_flight, then the result",
  );
  assert.deepEqual((await service.verifyAudit("quote")).valid, true);
  // Same key: not sent again, whatever else changes.
  await service.mutate("quote", { "$.note": "x" });
  await service.mutate("quote", { "$.enabled": true });
  await scheduler.advance(1000);
  assert.equal(http.jobs.length, 1);
  await service.close();
});

Deno.test("retryable failures are retried with a doubling backoff; a final failure is recorded", async () => {
  const http = new ScriptedExecutor().answer(
    { ok: false, error: "http 503", retryable: true },
    { ok: false, error: "http 502", retryable: true },
    ok({ rate: 1 }),
    { ok: false, error: "http 404", retryable: false },
  );
  const { service, scheduler } = await effectService([http]);
  await service.createModel(rateSpec());
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 1);
  await scheduler.advance(99);
  assert.equal(http.jobs.length, 1, "the first retry waits 100 ms");
  await scheduler.advance(1);
  assert.equal(http.jobs.length, 2);
  assert.equal(((await service.getState("quote")) as State).io.fetch.phase, "in_flight");
  await scheduler.advance(200);
  assert.equal(http.jobs.length, 3, "the second waits 200 ms");
  assert.deepEqual(http.jobs.map((j) => j.attempt), [1, 2, 3]);
  assert.equal(((await service.getState("quote")) as State).rate, 2);

  await service.mutate("quote", { "$.region": "us" });
  await scheduler.advance(0);
  const failed = ((await service.getState("quote")) as State).io.fetch;
  assert.deepEqual([failed.phase, failed.key, failed.error], ["failed", "us", "http 404"]);
  await scheduler.advance(10_000);
  assert.equal(http.jobs.length, 4, "a 4xx is not retried");
  await service.close();
});

Deno.test("a job waiting for its retry shows the failed attempt and when the next is due, kept in the same commit", async () => {
  const http = new ScriptedExecutor().answer(
    { ok: false, error: "http 503: busy", retryable: true },
    ok({ rate: 1 }),
  );
  const store = new OutboxStore();
  const { service, scheduler } = await effectService([http], { store });
  await service.createModel(rateSpec());
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(0);
  const failedAt = scheduler.clock.now();
  const due = new Date(failedAt + 100).toISOString();
  const waiting = ((await service.getState("quote")) as State).io.fetch;
  assert.deepEqual(waiting, {
    phase: "in_flight",
    key: "eu",
    at: new Date(failedAt).toISOString(),
    error: `http 503: busy (retry 1 of 2 at ${due})`,
  });
  const [kept] = store.outbox.values();
  assert.deepEqual(
    [kept.statusAt, kept.dueAt, kept.attempt],
    [failedAt, failedAt + 100, 1],
    "the job kept with it",
  );
  assert.deepEqual((await service.getAudit("quote", {})).map((a) => a.source), [
    "foldback",
    "foldback",
    "client",
  ], "in_flight, then the retry's status in one commit");
  await scheduler.advance(100);
  const state = (await service.getState("quote")) as State;
  assert.deepEqual([state.io.fetch.phase, state.io.fetch.error, state.rate], ["applied", null, 2]);
  await service.close();
});

Deno.test("a key changed while a job waits for its retry re-fires it at once; its old status is not written back", async () => {
  const http = new ScriptedExecutor().answer(
    { ok: false, error: "http 503", retryable: true },
    ok({ rate: 5 }),
  );
  const { service, scheduler } = await effectService([http]);
  await service.createModel(rateSpec({ policy: { retries: 2, backoff: 60_000 } }));
  http.hold();
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(0);
  await service.mutate("quote", { "$.region": "us" });
  http.release();
  await scheduler.advance(0);
  await scheduler.advance(0);
  assert.deepEqual(http.jobs.map((j) => j.key), ["eu", "us"], "not after the minute's backoff");
  const state = (await service.getState("quote")) as State;
  assert.deepEqual([state.io.fetch.phase, state.io.fetch.key, state.rate], ["applied", "us", 10]);
  await service.close();
});

Deno.test("a 2xx answer that is not JSON is applied with a warning naming the fields response.set left alone", async () => {
  const page = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>";
  const http = new ScriptedExecutor().answer(
    { ok: true, response: page, status: 200 },
    ok({ rate: 2 }),
  );
  const { service, scheduler } = await effectService([http]);
  await service.createModel(rateSpec());
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(0);
  let state = (await service.getState("quote")) as State;
  assert.deepEqual([state.io.fetch.phase, state.rate, state.note], ["applied", undefined, "http 200"]);
  assert.equal(
    state.io.fetch.error,
    'warning: the answer is not JSON (it begins "<!DOCTYPE html>\\n<html><head><title>Sign "): ' +
      "response.set left $.rate as it was",
  );
  // A JSON answer that folds back in full says nothing.
  await service.mutate("quote", { "$.region": "us" });
  await scheduler.advance(0);
  state = (await service.getState("quote")) as State;
  assert.deepEqual([state.io.fetch.phase, state.io.fetch.error, state.rate], ["applied", null, 4]);
  await service.close();
});

Deno.test("superseded while in flight: the result is dropped and the effect re-fires for the new key", async () => {
  const http = new ScriptedExecutor().answer(ok({ rate: 10 }), ok({ rate: 20 }));
  const { service, scheduler } = await effectService([http]);
  await service.createModel(rateSpec());
  http.hold();
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(0);
  await service.mutate("quote", { "$.region": "us" });
  assert.equal(((await service.getState("quote")) as State).io.fetch.key, "eu", "held back while in flight");
  http.release();
  await scheduler.advance(0);
  await scheduler.advance(0);
  assert.deepEqual(http.jobs.map((j) => j.key), ["eu", "us"]);
  const state = (await service.getState("quote")) as State;
  assert.equal(state.rate, 40, "only the current key's answer is applied");
  assert.deepEqual([state.io.fetch.phase, state.io.fetch.key], ["applied", "us"]);
  await service.close();
});

Deno.test("a trigger turned false while in flight cancels: key reset, nothing applied", async () => {
  const http = new ScriptedExecutor().answer(ok({ rate: 10 }));
  const { service, scheduler } = await effectService([http]);
  await service.createModel(rateSpec());
  http.hold();
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(0);
  await service.mutate("quote", { "$.enabled": false });
  http.release();
  await scheduler.advance(0);
  const state = (await service.getState("quote")) as State;
  assert.equal(state.rate, undefined);
  assert.deepEqual([state.io.fetch.phase, state.io.fetch.key], ["cancelled", null]);
  // Cancelled resets the key: the same value fires again once the trigger holds.
  await service.mutate("quote", { "$.enabled": true });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 2);
  await service.close();
});

Deno.test("a time limit ends an attempt; resetting the status document re-arms the effect", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler } = await effectService([http]);
  await service.createModel(rateSpec({ policy: { timeoutMs: 50 } }));
  http.hold();
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(50);
  const failed = ((await service.getState("quote")) as State).io.fetch;
  assert.deepEqual([failed.phase, failed.error], ["failed", "no answer within 50 ms"]);
  http.release();
  await service.mutate("quote", { "$.io.fetch": null });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 2, "a retry button writes null to the status document");
  await service.close();
});

Deno.test("timers fire at their instant; response.set sees the state and the clock then", async () => {
  const { service, scheduler } = await effectService([TIMER_EXECUTOR]);
  await service.createModel({
    id: "t",
    schema: { type: "object", properties: { status: { type: "string" }, expiredAt: { type: "string" } } },
    effects: [{
      id: "expire",
      executor: "timer",
      trigger: "status = 'open'",
      dedupeKey: "status",
      afterMs: "60000",
      response: { set: { "$.status": "'expired'", "$.expiredAt": "$now()" } },
      statusPath: "$.io",
    }],
  });
  const opened = scheduler.clock.now();
  await service.mutate("t", { "$.status": "open" });
  await scheduler.advance(59_999);
  assert.equal(((await service.getState("t")) as { status: string }).status, "open");
  await scheduler.advance(1);
  const state = (await service.getState("t")) as { status: string; expiredAt: string; io: { phase: string } };
  assert.deepEqual([state.status, state.expiredAt, state.io.phase], [
    "expired",
    new Date(opened + 60_000).toISOString(),
    "applied",
  ]);
  await service.close();
});

Deno.test("a timer's `at` is epoch milliseconds or a real ISO-8601 instant; anything else fails, saying why", async () => {
  const { service, scheduler } = await effectService([TIMER_EXECUTOR]);
  const timer = (id: string, at: string) => ({
    id,
    executor: "timer",
    trigger: "go",
    at,
    statusPath: `$.io.${id}`,
  });
  await service.createModel({
    id: "at",
    schema: { type: "object", properties: { go: { type: "boolean" }, io: { type: "object" } } },
    effects: [
      timer("iso", "'2099-01-31T00:00:00Z'"),
      timer("rolled", "'2099-02-30T00:00:00Z'"),
      timer("midnight", "'2099-01-01T24:00:00Z'"),
      timer("text", "'soon'"),
      timer("local", "'2099-01-31T00:00:00'"),
      timer("none", "undefinedField"),
    ],
  });
  await service.mutate("at", { "$.go": true });
  await scheduler.advance(0);
  const io = ((await service.getState("at")) as { io: Record<string, { phase: string; error: string }> }).io;
  assert.deepEqual(Object.fromEntries(Object.entries(io).map(([k, v]) => [k, [v.phase, v.error]])), {
    iso: ["pending", null],
    rolled: [
      "failed",
      "the timer's `at` is neither epoch milliseconds nor an ISO-8601 timestamp of a real " +
      'instant (a time of day with its UTC offset): "2099-02-30T00:00:00Z"',
    ],
    midnight: [
      "failed",
      "the timer's `at` is neither epoch milliseconds nor an ISO-8601 timestamp of a real " +
      'instant (a time of day with its UTC offset): "2099-01-01T24:00:00Z"',
    ],
    text: [
      "failed",
      "the timer's `at` is neither epoch milliseconds nor an ISO-8601 timestamp of a real " +
      'instant (a time of day with its UTC offset): "soon"',
    ],
    local: [
      "failed",
      "the timer's `at` is neither epoch milliseconds nor an ISO-8601 timestamp of a real " +
      'instant (a time of day with its UTC offset): "2099-01-31T00:00:00"',
    ],
    none: ["failed", "the timer's `at` has no value"],
  });
  await service.close();
});

Deno.test("kinds without an executor fail with the rule's words; invalid requests fail at once", async () => {
  const { service, scheduler } = await effectService([]);
  await service.createModel({
    id: "k",
    schema: { type: "object", properties: { go: { type: "boolean" }, io: { type: "object" } } },
    effects: [
      { id: "ask", executor: "llm", trigger: "go", prompt: "'hi'", statusPath: "$.io.ask" },
      { id: "pager", executor: "pagerduty", trigger: "go", statusPath: "$.io.pager" },
      { id: "nothing", executor: "server", trigger: "go", statusPath: "$.io.nothing" },
    ],
  });
  await service.mutate("k", { "$.go": true });
  await scheduler.advance(0);
  const io = ((await service.getState("k")) as { io: Record<string, { phase: string; error: string }> }).io;
  assert.deepEqual(Object.fromEntries(Object.entries(io).map(([k, v]) => [k, [v.phase, v.error]])), {
    ask: ["failed", "llm not configured"],
    pager: ["failed", "no_executor_for_kind:pagerduty"],
    nothing: ["failed", "a server effect needs `request`, `requests` or `target`"],
  });
  await service.close();
});

Deno.test("deleting a model cancels its effects; an evolution re-checks the outstanding ones", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler } = await effectService([http, TIMER_EXECUTOR]);
  const timed = {
    id: "d",
    schema: { type: "object", properties: { on: { type: "boolean" }, io: { type: "object" } } },
    effects: [{
      id: "later",
      executor: "timer",
      trigger: "on",
      afterMs: "1000",
      response: { set: { "$.on": "false" } },
      statusPath: "$.io",
    }],
  };
  await service.createModel(timed);
  await service.mutate("d", { "$.on": true });
  await service.deleteModel("d");
  await scheduler.advance(5000);
  assert.equal(scheduler.pending, 0, "the timer is gone with the model");

  await service.createModel(timed);
  await service.mutate("d", { "$.on": true });
  await service.evolveSpec("d", { removeEffects: ["later"] });
  const io = ((await service.getState("d")) as { io: { phase: string } }).io;
  assert.equal(io.phase, "cancelled", "an outstanding job of a removed effect is cancelled");
  await scheduler.advance(5000);
  assert.equal(((await service.getState("d")) as { on: boolean }).on, true, "and never fires");
  await service.close();
});

Deno.test("a fan-out sends each request; each folds back into its own status and fields", async () => {
  const http = new ScriptedExecutor().answer({
    ok: true,
    response: [{ v: 1 }, null],
    status: null,
    parts: [{ ok: true, response: { v: 1 }, status: 200 }, { ok: false, error: "http 500" }],
  });
  const { service, scheduler } = await effectService([http]);
  await service.createModel({
    id: "f",
    schema: { type: "object", properties: { ids: { type: "array" }, out: { type: "object" } } },
    effects: [{
      id: "each",
      executor: "server",
      trigger: "$count(ids) > 0",
      requests: "ids.{'url': 'https://api.example/' & $, 'set': {'$.out.' & $: '$response.v'}, " +
        "'statusPath': '$.out.s' & $, 'dedupeKey': $}",
    }],
  });
  await service.mutate("f", { "$.ids": ["a", "b"] });
  await scheduler.advance(0);
  assert.deepEqual(http.jobs[0].work.type === "http" && http.jobs[0].work.requests.map((r) => r.url), [
    "https://api.example/a",
    "https://api.example/b",
  ]);
  const out = ((await service.getState("f")) as { out: Record<string, Json> }).out;
  assert.equal(out.a, 1);
  assert.equal(out.b, undefined);
  assert.deepEqual([(out.sa as { phase: string }).phase, (out.sb as { phase: string }).phase], [
    "applied",
    "failed",
  ]);
  await settled();
  await service.close();
});

Deno.test("a fan-out descriptor's own statusPath is checked when the effect fires: a bad one fails it, nothing sent", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler } = await effectService([http]);
  await service.createModel({
    id: "f",
    schema: {
      type: "object",
      properties: {
        paths: { type: "array" },
        n: { type: "integer" },
        out: { type: "object" },
        lim: { type: "object", maxProperties: 1 },
      },
    },
    effects: [{
      id: "each",
      trigger: "$count(paths) > 0",
      dedupeKey: "paths",
      requests: "paths.{'url': 'https://api.example/x', 'statusPath': $, 'dedupeKey': $}",
      statusPath: "$.st",
    }],
  });
  await service.mutate("f", { "$.lim": { x: 1 } });
  const failure = async (paths: Json[]) => {
    await service.mutate("f", { "$.paths": paths });
    await scheduler.advance(0);
    const st = ((await service.getState("f")) as { st: { phase: string; error: string } }).st;
    assert.equal(st.phase, "failed", JSON.stringify(paths));
    return st.error;
  };
  assert.match(
    await failure(["$.out.a", "out b"]),
    /^requests\[1\]\.statusPath: 'out b' is not a valid address/,
  );
  assert.match(await failure(["$"]), /^requests\[0\]\.statusPath: .*cannot be the whole document/);
  assert.match(await failure([5]), /^requests\[0\]\.statusPath: an address must be a non-empty string/);
  assert.match(
    await failure(["$.st.mine"]),
    /^requests\[0\]\.statusPath: \$\.st\.mine is at, inside or above the statusPath of effect 'each'/,
  );
  assert.match(
    await failure(["$.n"]),
    /^requests\[0\]\.statusPath: the model refuses the status document there: Schema violation: \$\.n \(type\): must be integer/,
  );
  assert.match(await failure(["$.lim.s"]), /Schema violation: \$\.lim \(maxProperties\)/);
  assert.equal(http.jobs.length, 0, "no request of a fan-out with a bad statusPath went out");

  http.answer({
    ok: true,
    response: [null],
    status: null,
    parts: [{ ok: true, response: null, status: 200 }],
  });
  await service.mutate("f", { "$.paths": ["$.out.a"] });
  await scheduler.advance(0);
  const state = (await service.getState("f")) as { st: { phase: string }; out: { a: { phase: string } } };
  assert.deepEqual([state.st.phase, state.out.a.phase], ["applied", "applied"]);
  assert.equal(http.jobs.length, 1);
  await service.close();
});

/** A model counting fold-backs in `n`, its effect `fx` (server, unless `extra` says otherwise) fired by `go`. */
const counterSpec = (extra: Record<string, unknown> = {}) => ({
  id: "c",
  schema: {
    type: "object",
    properties: {
      go: { type: "boolean" },
      n: { type: "integer" },
      v: { type: "number" },
      io: { type: "object" },
    },
  },
  effects: [{
    id: "fx",
    executor: "server",
    trigger: "go = true",
    request: { url: "https://api.example/x" },
    response: { set: { "$.n": "($exists(n) ? n : 0) + 1", "$.v": "$response.v" } },
    statusPath: "$.io.fx",
    ...extra,
  }],
});

type Counted = { n?: number; v?: number; io: Record<string, Record<string, Json> | null> };

/** The values `address` was written with, oldest first. */
async function writesTo(
  service: { getAudit(id: string, q: object): Promise<{ mutations: Json }[]> },
  address: string,
) {
  const audit = await service.getAudit("c", {});
  return audit.reverse().flatMap((a) => {
    const mutations = a.mutations as Record<string, Json>;
    return address in mutations ? [mutations[address]] : [];
  });
}

Deno.test("a refused fold-back leaves the outbox: its failure recorded, else the job removed with a log line", async () => {
  const warnings: string[] = [];
  const http = new ScriptedExecutor().answer(
    ok({ v: "not a number" }),
    ok({ v: "not a number" }),
    { ok: false, error: "http 404", retryable: false },
    { ok: false, error: "http 404", retryable: false },
  );
  const store = new OutboxStore();
  const { service, scheduler } = await effectService([http], {
    store,
    observer: { warn: (message) => warnings.push(message) },
  });

  // Recorded: the answer breaks the schema, the failure says so.
  await service.createModel(counterSpec());
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(0);
  let state = (await service.getState("c")) as Counted;
  assert.equal(state.v, undefined);
  assert.deepEqual([state.io.fx?.phase, state.io.fx?.error], [
    "failed",
    "fold-back refused: Schema violation: $.v (type): must be number",
  ]);
  assert.equal(store.outbox.size, 0);
  assert.deepEqual(warnings, []);
  await service.deleteModel("c");

  // No status document to record it in: the job is removed alone.
  await service.createModel(counterSpec({ statusPath: undefined }));
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(0);
  assert.equal(((await service.getState("c")) as Counted).v, undefined);
  assert.equal(store.outbox.size, 0, "a job whose outcome is known is not sent again at the next start");
  assert.match(
    warnings.shift()!,
    /fold-back refused: .*; failure not recorded \(no status document\), job removed/,
  );
  await service.deleteModel("c");

  // The model refuses the failure record too (a rollback on the failed phase): removed alone, and so is the
  // job the retry button fires.
  await service.createModel({
    ...counterSpec(),
    constraints: [{
      id: "nofail",
      expr: "$not(io.fx.phase = 'failed')",
      policy: "rollback",
      message: "no failures",
    }],
  });
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(0);
  assert.equal(store.outbox.size, 0);
  assert.match(warnings.shift()!, /failure not recorded \(Constraint violated: no failures\), job removed/);
  await service.mutate("c", { "$.io.fx": null });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 4);
  assert.equal(store.outbox.size, 0);
  assert.equal(warnings.length, 1);
  state = (await service.getState("c")) as Counted;
  assert.equal(state.io.fx?.phase, "in_flight", "the last phase the model took");
  await service.close();
});

Deno.test("a job whose in_flight phase the model refuses is not sent: it fails, its key held back", async () => {
  const http = new ScriptedExecutor();
  const store = new OutboxStore();
  const warnings: string[] = [];
  const { service, scheduler } = await effectService([http], {
    store,
    observer: { warn: (m) => warnings.push(m) },
  });
  // A live meta takes every phase but in_flight.
  await service.createModel({
    ...rateSpec(),
    metaDerivations: [{
      path: "$.io.fetch.phase",
      property: "enum",
      expr: "['pending', 'applied', 'failed', 'cancelled']",
    }],
  });
  await service.mutate("quote", { "$.region": "eu", "$.enabled": true });
  await scheduler.advance(0);
  const fetch = ((await service.getState("quote")) as State).io.fetch;
  assert.deepEqual([fetch.phase, fetch.key], ["failed", "eu"]);
  assert.match(String(fetch.error), /^in_flight refused: .*\$\.io\.fetch\.phase \(enum\)/);
  assert.equal(http.jobs.length, 0, "nothing sent");
  assert.equal(store.outbox.size, 0, "the job is settled");
  // The failure holds its key back like any other: toggling the trigger fires nothing.
  await service.mutate("quote", { "$.enabled": false });
  await service.mutate("quote", { "$.enabled": true });
  await scheduler.advance(1000);
  assert.deepEqual([http.jobs.length, ((await service.getState("quote")) as State).io.fetch.phase], [
    0,
    "failed",
  ]);
  assert.deepEqual(warnings, []);
  await service.close();
});

Deno.test("a status document the live model refuses is not written: recorded as failed where it may be, nothing sent", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler } = await effectService([http]);
  const withIo = (io: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    ...counterSpec(),
    schema: { type: "object", properties: { go: { type: "boolean" }, n: { type: "integer" }, io } },
    ...extra,
  });
  const fire = async () => {
    const result = await service.mutate("c", { "$.go": true });
    await scheduler.advance(0);
    const refusal = result.traces.find((t) => t.targetPath === "$effect:fx" && t.errorMessage)?.errorMessage;
    return { result, refusal, state: (await service.getState("c")) as Counted };
  };

  // The parent's whole-container keywords: a second member past `maxProperties`, a name `propertyNames` refuses.
  // The failed record breaks them as well: nothing is written, the trace at the effect says why.
  for (
    const io of [{ type: "object", maxProperties: 1 }, { type: "object", propertyNames: { maxLength: 1 } }]
  ) {
    await service.createModel(withIo(io));
    await service.mutate("c", { "$.io": { x: 1 } });
    const { result, refusal, state } = await fire();
    assert.deepEqual(result.mutatedPaths, ["$.go"], JSON.stringify(io));
    assert.deepEqual(state.io, { x: 1 });
    assert.match(
      refusal ?? "",
      /^status document refused: Schema violation: \$\.io \(.*(maxProperties|propertyNames)\)/,
    );
    await service.deleteModel("c");
  }

  // A live meta (the error must be there): the pending document breaks it, the failed record is kept.
  await service.createModel(withIo({ type: "object" }, {
    metaDerivations: [{ path: "$.io.fx.error", property: "required", expr: "go" }],
  }));
  let { state } = await fire();
  assert.deepEqual([state.io.fx?.phase, state.io.fx?.error], [
    "failed",
    "status document refused: Schema violation: $.io.fx.error (required): is required and cannot be cleared",
  ]);
  await service.mutate("c", { "$.n": 1 });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 0, "not sent, nor fired again for the same key");
  await service.deleteModel("c");

  // Read-only does not stop the effect's own writes: the field is the effect's.
  await service.createModel(withIo({ type: "object" }, {
    metaDerivations: [{ path: "$.io.fx", property: "readOnly", expr: "true" }],
  }));
  ({ state } = await fire());
  assert.equal(state.io.fx?.phase, "applied");
  assert.equal(http.jobs.length, 1);
  await service.close();
});

/** The state after `answer` folds back once into the counter model, its `response.set` `$.n: 1` and `set`. */
async function foldedOnce(
  answer: ExecutorOutcome,
  set: Record<string, string>,
  extra: Record<string, unknown> = {},
) {
  const store = new OutboxStore();
  const { service, scheduler } = await effectService([new ScriptedExecutor().answer(answer)], {
    store,
    config: testConfig({ maxDepth: 6 }),
  });
  await service.createModel(counterSpec({ response: { set: { "$.n": "1", ...set } }, ...extra }));
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(0);
  const state = (await service.getState("c")) as Counted & { o?: Json };
  assert.equal(store.outbox.size, 0, "the job has left the outbox");
  await service.close();
  return state;
}

Deno.test("a fold-back expression that fails is refused and recorded naming it; an undefined value skips its target", async () => {
  // Nothing of the fold-back is written.
  let state = await foldedOnce(ok({ v: 1 }), { "$.v": "$response.v = 1 ? $error('boom') : 0" });
  assert.deepEqual([state.n, state.v, state.io.fx?.phase], [undefined, undefined, "failed"]);
  assert.match(
    String(state.io.fx?.error),
    /^fold-back refused: Evaluation of response\.set \$\.v of effect 'fx' failed: D3137: boom/,
  );
  state = await foldedOnce(ok({}), { "$.v": "$response.v" });
  assert.deepEqual([state.n, state.v, state.io.fx?.phase], [1, undefined, "applied"]);
  // A fan-out request's own `set` likewise.
  const fanOut = { ...ok([{ v: 1 }]), status: null, parts: [ok({ v: 1 })] };
  state = await foldedOnce(fanOut as ExecutorOutcome, {}, {
    request: undefined,
    requests: `[{'url': 'https://api.example/a', 'set': {'$.v': '$error("no")'}}]`,
  });
  assert.deepEqual([state.n, state.v, state.io.fx?.phase], [undefined, undefined, "failed"]);
  assert.match(String(state.io.fx?.error), /set \$\.v of request 0 of effect 'fx' failed: D3137: no/);
});

Deno.test("a fold-back value nested past svc.limits.max-depth is refused and recorded, as a caller's write is", async () => {
  // Five segments and two levels of value make seven.
  const state = await foldedOnce(ok({ deep: { e: { f: 1 } } }), { "$.o.a.b.c.d": "$response.deep" });
  assert.deepEqual([state.n, state.o, state.io.fx?.phase], [undefined, undefined, "failed"]);
  assert.match(
    String(state.io.fx?.error),
    /^fold-back refused: The value written at \$\.o\.a\.b\.c\.d is nested deeper than svc\.limits\.max-depth \(6 levels\)$/,
  );
});

Deno.test("the retry button while a job is outstanding supersedes it: its result is dropped, the new one applied once", async () => {
  const http = new ScriptedExecutor().answer(ok({ v: 1 }), ok({ v: 2 }));
  const { service, scheduler } = await effectService([http]);
  await service.createModel(counterSpec({ dedupeKey: "'k'" }));
  http.hold();
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(10);
  await service.mutate("c", { "$.io.fx": null });
  await scheduler.advance(10);
  assert.equal(http.jobs.length, 2, "the retry button sends it again at once");
  http.release();
  await scheduler.advance(0);
  await scheduler.advance(1000);
  assert.equal(http.jobs.length, 2, "and only once more");
  const state = (await service.getState("c")) as Counted;
  assert.deepEqual([state.n, state.v, state.io.fx?.phase], [1, 2, "applied"], "the newer answer, once");
  await service.close();

  // Pressed while the first job waits for a retry: it is superseded before its next attempt, not sent.
  const failing = new ScriptedExecutor().answer(
    { ok: false, error: "http 503", retryable: true },
    ok({ v: 2 }),
  );
  const retried = await effectService([failing]);
  await retried.service.createModel(counterSpec({ policy: { retries: 3, backoff: 100 } }));
  await retried.service.mutate("c", { "$.go": true });
  await retried.scheduler.advance(10);
  await retried.service.mutate("c", { "$.io.fx": null });
  await retried.scheduler.advance(1000);
  assert.deepEqual(failing.jobs.map((j) => j.attempt), [1, 1]);
  const after = (await retried.service.getState("c")) as Counted;
  assert.deepEqual([after.n, after.v, after.io.fx?.phase], [1, 2, "applied"]);
  await retried.service.close();
});

Deno.test("the retry button while a timer waits: the timer re-fired is the one that applies, once", async () => {
  const { service, scheduler } = await effectService([TIMER_EXECUTOR]);
  await service.createModel(counterSpec({ executor: "timer", request: undefined, afterMs: "300" }));
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(100);
  await service.mutate("c", { "$.io.fx": null });
  const refired = scheduler.clock.now();
  await scheduler.advance(250);
  let state = (await service.getState("c")) as Counted;
  assert.deepEqual([state.n, state.io.fx?.phase], [undefined, "pending"], "the first timer's instant passed");
  await scheduler.advance(5000);
  state = (await service.getState("c")) as Counted;
  assert.deepEqual([state.n, state.io.fx?.at], [1, new Date(refired + 300).toISOString()]);
  await service.close();
});

Deno.test("jobs fired in the same instant as the retry button: one of them applies, once", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler } = await effectService([http]);
  await service.createModel(counterSpec());
  http.hold();
  await service.mutate("c", { "$.go": true });
  await service.mutate("c", { "$.io.fx": null });
  await scheduler.advance(0);
  http.release();
  await scheduler.advance(0);
  await scheduler.advance(1000);
  assert.equal(http.jobs.length, 2);
  assert.deepEqual(await writesTo(service, "$.n"), [1]);
  await service.close();
});

Deno.test("an evolution that moves the status document supersedes the job in flight: only the new one applies", async () => {
  const http = new ScriptedExecutor().answer(ok({ v: 1 }), ok({ v: 2 }));
  const store = new OutboxStore();
  const { service, scheduler } = await effectService([http], { store });
  const spec = counterSpec({ dedupeKey: "'k'" });
  await service.createModel(spec);
  http.hold();
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(10);
  await service.evolveSpec("c", { upsertEffects: [{ ...spec.effects[0], statusPath: "$.io.moved" }] });
  let state = (await service.getState("c")) as Counted;
  assert.equal(state.io.fx, null, "the old status document is cleared");
  assert.deepEqual([...store.outbox.values()].map((j) => j.statusPath), ["$.io.moved"]);
  await scheduler.advance(10);
  http.release();
  await scheduler.advance(0);
  await scheduler.advance(1000);
  assert.equal(http.jobs.length, 2);
  state = (await service.getState("c")) as Counted;
  assert.deepEqual([state.n, state.v, state.io.fx, state.io.moved?.phase], [1, 2, null, "applied"]);
  assert.deepEqual(await writesTo(service, "$.v"), [2], "the old answer is dropped");
  await service.close();
});

Deno.test("a fan-out is one however many requests it yields: one attempt each, `$response` a list", async () => {
  const sent: string[] = [];
  const http = httpExecutor({
    send(request) {
      sent.push(request.url);
      const status = request.url.endsWith("/bad") ? 500 : 200;
      return Promise.resolve({ status, body: new TextEncoder().encode(`{"v":"${request.url.slice(-3)}"}`) });
    },
  });
  const { service, scheduler } = await effectService([http]);
  for (
    const [id, requests] of [
      ["path", "ids.{'url': 'https://api.example/' & $}"], // one id: JSONata yields the object alone
      ["list", "[{'url': 'https://api.example/' & ids[0]}]"],
      ["object", "{'url': 'https://api.example/' & ids[0]}"],
    ]
  ) {
    await service.createModel({
      id,
      schema: { type: "object", properties: { ids: { type: "array" }, out: {}, io: { type: "object" } } },
      effects: [{
        id: "each",
        executor: "server",
        trigger: "$count(ids) > 0",
        dedupeKey: "ids",
        requests,
        response: { set: { "$.out": "$response" } },
        statusPath: "$.io",
        policy: { retries: 2, backoff: 10 },
      }],
    });
    await service.mutate(id, { "$.ids": ["bad"] });
    await scheduler.advance(100);
    const state = (await service.getState(id)) as { out: Json; io: { phase: string } };
    assert.deepEqual(
      [state.io.phase, state.out],
      ["applied", [null]],
      `${id}: a failed request has one attempt`,
    );
    await service.mutate(id, { "$.ids": ["one"] });
    await scheduler.advance(100);
    const answered = (await service.getState(id)) as { out: Json };
    assert.deepEqual(answered.out, [{ v: "one" }], `${id}: $response is the list of one answer`);
  }
  assert.equal(sent.length, 6, "one request per element and commit, no retry");
  await settled();
  await service.close();
});

Deno.test("a fan-out superseded while in flight is dropped and fires again with the new key's requests", async () => {
  const fan = { ok: true as const, response: [], status: null, parts: [] };
  const http = new ScriptedExecutor().answer(fan, fan);
  const { service, scheduler } = await effectService([http]);
  await service.createModel({
    id: "f",
    schema: { type: "object", properties: { k: { type: "string" }, io: { type: "object" } } },
    effects: [{
      id: "fan",
      trigger: "k != null",
      dedupeKey: "k",
      statusPath: "$.io",
      requests: "[{'url': 'https://a.example/?k=' & k}, {'url': 'https://b.example/?k=' & k}]",
    }],
  });
  http.hold();
  await service.mutate("f", { "$.k": "one" });
  await scheduler.advance(0);
  await service.mutate("f", { "$.k": "two" });
  http.release();
  await scheduler.advance(0);
  await scheduler.advance(0);
  const urls = http.jobs.map((job) => job.work.type === "http" && job.work.requests.map((r) => r.url));
  assert.deepEqual(urls, [
    ["https://a.example/?k=one", "https://b.example/?k=one"],
    ["https://a.example/?k=two", "https://b.example/?k=two"],
  ]);
  const io = ((await service.getState("f")) as { io: { phase: string; key: string } }).io;
  assert.deepEqual([io.phase, io.key], ["applied", "two"]);
  await service.close();
});

Deno.test("a restore bringing back a pending status document whose job is gone re-fires the effect", async () => {
  const { service, scheduler } = await effectService([TIMER_EXECUTOR]);
  await service.createModel({
    id: "r",
    schema: { type: "object", properties: { go: { type: "integer" }, n: { type: "integer" } } },
    effects: [{
      id: "t",
      executor: "timer",
      trigger: "go > 0",
      dedupeKey: "go",
      afterMs: "300",
      response: { set: { "$.n": "($exists(n) ? n : 0) + 1" } },
      statusPath: "$.io.t",
    }],
  });
  type Timed = { n?: number; io: { t: { phase: string; key: number } } };
  await service.mutate("r", { "$.go": 1 });
  const snapshot = await service.snapshot("r");
  await scheduler.advance(300);
  assert.equal(((await service.getState("r")) as Timed).n, 1);
  await service.restore("r", snapshot);
  assert.equal(scheduler.pending, 1, "its timer armed again");
  await scheduler.advance(300);
  let state = (await service.getState("r")) as Timed;
  assert.deepEqual([state.n, state.io.t.phase], [1, "applied"], "the restored pending effect ran");
  await service.mutate("r", { "$.go": 2 });
  await scheduler.advance(300);
  state = (await service.getState("r")) as Timed;
  assert.deepEqual([state.n, state.io.t.phase, state.io.t.key], [2, "applied", 2], "and fires for a new key");

  // Restored while its own job is still outstanding, the document is that job's: nothing fires twice.
  await service.mutate("r", { "$.go": 3 });
  await service.restore("r", await service.snapshot("r"));
  await scheduler.advance(1000);
  state = (await service.getState("r")) as Timed;
  assert.deepEqual([state.n, state.io.t.key, scheduler.pending], [3, 3, 0]);
  await service.close();
});
