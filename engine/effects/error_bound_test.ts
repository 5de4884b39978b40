import assert from "node:assert/strict";
import type { Json } from "../json/value.ts";
import { DEFAULT_POLICY } from "../model/sections/effects.ts";
import { linkExecutor } from "../composition/link_executor.ts";
import { type DispatchHost, EffectDispatcher } from "./dispatcher.ts";
import type { EffectExecutor, ExecutorOutcome } from "./executor.ts";
import { httpExecutor, type HttpTransport } from "./http_executor.ts";
import type { EffectJob } from "./job.ts";
import { llmExecutor } from "./llm_executor.ts";
import { effectService, jobOf, ManualScheduler, OutboxStore, ScriptedExecutor } from "./test_support.ts";

const HUGE = 1_000_000;
const huge = (c = "x") => c.repeat(HUGE);
/** A method or header name no request can carry: not an HTTP token. */
const untoken = (c = "x") => `${huge(c)}:`;

/** An error text fit for a status document: cut, with the project's marker naming the length cut. */
function assertBounded(error: string, context: string): void {
  assert.ok(error.length < 2500, `${context}: ${error.length} characters`);
  assert.match(error, /… \(\d+ characters\)/, context);
}

/** Runs one job to its settlement (no retries); the outcome settled and, when `failSettle`, the job kept. */
async function runOnce(
  executor: EffectExecutor,
  job: EffectJob,
  failSettle = false,
): Promise<{ settled: ExecutorOutcome; kept?: EffectJob }> {
  const scheduler = new ManualScheduler();
  const settled: ExecutorOutcome[] = [];
  const kept: EffectJob[] = [];
  const host: DispatchHost = {
    begin: (due) =>
      Promise.resolve({
        run: { ...due, attempt: due.attempt + 1 },
        policy: { ...DEFAULT_POLICY, retries: 0 },
      }),
    settle: (_job, outcome) => {
      settled.push(outcome);
      return failSettle ? Promise.reject(new Error("store down")) : Promise.resolve();
    },
    retryLater: (retry) => {
      kept.push(retry);
      return Promise.resolve();
    },
    putOff: () => Promise.resolve(null),
  };
  const dispatcher = new EffectDispatcher(host, [executor], { clock: scheduler.clock, scheduler });
  dispatcher.enqueue([job]);
  await scheduler.advance(0);
  await dispatcher.close();
  return { settled: settled[0], kept: kept[0] };
}

const failing = (message: string): HttpTransport => ({ send: () => Promise.reject(new Error(message)) });
const request = (over: Record<string, unknown> = {}) => ({
  method: "POST",
  url: "https://a.example/x",
  headers: {},
  ...over,
});
const errorOf = (outcome: ExecutorOutcome) => outcome.ok ? "" : outcome.error;

Deno.test("a server effect's error quoting a spec-computed method, header name or URL is cut", async () => {
  const never = failing("not sent");
  const method = await runOnce(
    httpExecutor(never),
    jobOf({ type: "http", requests: [request({ method: untoken() })] }),
  );
  assertBounded(errorOf(method.settled), "method");
  assert.match(errorOf(method.settled), /^invalid request: method "x{200}… \(1000001 characters\)" is not/);
  const header = await runOnce(
    httpExecutor(never),
    jobOf({ type: "http", requests: [request({ headers: { [untoken("y")]: "1" } })] }),
  );
  assertBounded(errorOf(header.settled), "header name");
  const url = `https://a.example/${huge()}`;
  const transport = await runOnce(
    httpExecutor(failing(`error sending request for url (${url})`)),
    jobOf({ type: "http", requests: [request({ url })] }),
  );
  assertBounded(errorOf(transport.settled), "transport error");
  assert.match(errorOf(transport.settled), /^request failed: error sending request for url/);
});

Deno.test("a fan-out request's own error is cut too", async () => {
  const { settled } = await runOnce(
    httpExecutor(failing("not sent")),
    jobOf({ type: "http", fanOut: true, requests: [request({ method: untoken() }), request()] }),
  );
  assert.ok(settled.ok && settled.parts);
  const [first, second] = settled.parts;
  assertBounded(first.ok ? "" : first.error, "fan-out part");
  assert.deepEqual(second, { ok: false, error: "request failed: not sent" }, "a short error stays as it is");
});

Deno.test("llm, link and plugin errors, an executor that throws and an invalid request are cut", async () => {
  const llm = llmExecutor({ kind: "mock", model: "m", complete: () => Promise.reject(new Error(huge())) });
  const link = linkExecutor({
    write: () => Promise.reject(new Error(huge())),
    read: () => Promise.resolve(null),
  });
  // An operator's plugin: its own text, spaces and all.
  const plugin = new ScriptedExecutor("plugin").answer({
    ok: false,
    error: "word ".repeat(HUGE / 5),
    retryable: false,
  });
  const throwing: EffectExecutor = { kind: "server", execute: () => Promise.reject(new Error(huge())) };
  const runs: Record<string, [EffectExecutor, EffectJob]> = {
    llm: [llm, jobOf({ type: "llm", prompt: "p", responseSchema: null }, "llm")],
    link: [link, jobOf({ type: "link", ref: "ledger", path: "$.x", read: null, watch: false, body: 1 })],
    plugin: [plugin, jobOf({ type: "plugin", definition: {}, document: null }, "plugin")],
    thrown: [throwing, jobOf({ type: "http", requests: [] })],
    invalid: [throwing, jobOf({ type: "invalid", error: `cannot resolve the request: ${huge()}` })],
  };
  // Every kind run, then the uncut ones named together.
  const uncut: string[] = [];
  for (const [kind, [executor, job]] of Object.entries(runs)) {
    const error = errorOf((await runOnce(executor, job)).settled);
    if (error.length > 2500 || !/… \(\d+ characters\)/.test(error)) uncut.push(`${kind} (${error.length})`);
  }
  assert.deepEqual(uncut, []);
});

Deno.test("the job kept with its outcome when settling failed holds the cut error", async () => {
  const { kept } = await runOnce(
    httpExecutor(failing("not sent")),
    jobOf({ type: "http", requests: [request({ method: untoken() })] }),
    true,
  );
  assert.ok(kept?.outcome);
  assertBounded(errorOf(kept.outcome), "kept outcome");
});

Deno.test("the status document in state holds the cut error, not the URL the transport quoted whole", async () => {
  const transport: HttpTransport = {
    send: (req) => Promise.reject(new Error(`error sending request for url (${req.url})`)),
  };
  const { service, scheduler } = await effectService([httpExecutor(transport)]);
  await service.createModel({
    id: "big",
    schema: { type: "object", properties: { path: { type: "string" }, io: { type: "object" } } },
    effects: [{
      id: "send",
      executor: "server",
      trigger: "path != null",
      request: { method: "GET", url: "https://a.example/{ path }" },
      statusPath: "$.io.send",
      policy: { retries: 0 },
    }],
  });
  await service.mutate("big", { "$.path": "p".repeat(100_000) });
  await scheduler.advance(0);
  const state = (await service.getState("big")) as { io: { send: Record<string, Json> } };
  assert.equal(state.io.send.phase, "failed");
  assertBounded(String(state.io.send.error), "status document");
  await service.close();
});

Deno.test("the outbox job of a request that cannot be resolved holds its error cut", async () => {
  const store = new OutboxStore();
  const { service } = await effectService([httpExecutor(failing("not sent"))], { store });
  await service.createModel({
    id: "m",
    schema: { type: "object", properties: { s: { type: "string" } } },
    // jsonata-js quotes `s` whole (T2009); with spaces, its message is under 2000 characters, so not cut yet.
    effects: [{ id: "e", executor: "server", trigger: "s", request: { url: "https://a.example/{s < 1}" } }],
  });
  await service.mutate("m", { "$.s": "a ".repeat(950) });
  const [job] = [...store.outbox.values()];
  assert.equal(job.work.type, "invalid");
  const error = (job.work as { error: string }).error;
  assert.match(error, /^cannot resolve the request: T2009: /);
  assertBounded(error, "outbox job");
  await service.close();
});
