import assert from "node:assert/strict";
import type { AuditRecord } from "../audit/chain.ts";
import { conflict, unavailable } from "../errors.ts";
import type { Json } from "../json/value.ts";
import type { CommitStates, LogEntry } from "../service/ports.ts";
import { SETTLE_RETRIES } from "./dispatcher.ts";
import { TIMER_EXECUTOR } from "./executor.ts";
import type { JobChanges } from "./job.ts";
import { effectService, keptForRetry, ok, ReloadableStore, ScriptedExecutor } from "./test_support.ts";

/**
 * A store (reloadable, as after a restart) whose next `failures` commits matching `failWhen` throw (a 503
 * settling a job, else an I/O error), and whose next `failUpdates` outbox updates on their own throw too.
 */
class FlakyStore extends ReloadableStore {
  failWhen: ((jobs: JobChanges) => boolean) | null = null;
  failures = 1;
  failUpdates = 0;
  /** What the failing outbox updates throw. */
  updateError: Error = new Error("disk full");

  override commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    if (this.failWhen?.(jobs ?? {}) && this.failures > 0) {
      this.failures--;
      return Promise.reject(jobs?.remove?.length ? unavailable("store unavailable") : new Error("disk full"));
    }
    return super.commit(modelId, entry, states, audit, jobs);
  }

  override updateJobs(modelId: string, jobs: JobChanges): Promise<void> {
    if (this.failUpdates > 0) {
      this.failUpdates--;
      return Promise.reject(this.updateError);
    }
    return super.updateJobs(modelId, jobs);
  }
}

const spec = {
  id: "c",
  schema: {
    type: "object",
    properties: { go: { type: "boolean" }, v: { type: "number" }, io: { type: "object" } },
  },
  effects: [{
    id: "fx",
    executor: "server",
    trigger: "go = true",
    request: { url: "https://api.example/x" },
    response: { set: { "$.v": "$response.v" } },
    statusPath: "$.io.fx",
    policy: { retries: 1 },
  }],
};

type State = { v?: number; io: { fx?: Record<string, unknown> } };

/** Settlements (commits removing the job) fail. */
const settling = (jobs: JobChanges) => (jobs.remove?.length ?? 0) > 0;

/** The effect fired by `writes` (made in turn) on `model`, its job begun with the store failing as told. */
async function run(
  failWhen: (jobs: JobChanges) => boolean,
  answers: ReturnType<typeof ok>[],
  store = new FlakyStore(),
  failures = 1,
  { model = spec, writes = [{ "$.go": true }] }: { model?: object; writes?: Record<string, Json>[] } = {},
) {
  const warnings: string[] = [];
  const http = new ScriptedExecutor().answer(...answers);
  const { service, scheduler } = await effectService([http, TIMER_EXECUTOR], {
    store,
    observer: { warn: (message) => warnings.push(message) },
  });
  await service.createModel(model);
  store.failWhen = failWhen;
  store.failures = failures;
  for (const write of writes) await service.mutate("c", write);
  await scheduler.advance(0);
  return { service, scheduler, store, http, warnings };
}

Deno.test("a fold-back the store fails to commit twice is settled again with its outcome, not sent again", async () => {
  const { service, scheduler, store, http, warnings } = await run(
    settling,
    [ok({ v: 1 }), ok({ v: 2 })],
    undefined,
    2,
  );
  let state = (await service.getState("c")) as State;
  assert.notEqual(state.io.fx?.phase, "failed", "the store failing is no refusal");
  assert.equal(state.v, undefined);
  assert.equal(store.outbox.size, 1, "the job is kept for a later attempt");
  assert.deepEqual([...store.outbox.values()][0].outcome, ok({ v: 1 }), "with its outcome");
  assert.match(warnings.join("\n"), /job 'fx@.*'\): settlement failed \(store unavailable\), retried/);
  await scheduler.advance(60_000);
  state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [1, "applied"], "the first answer folded back");
  assert.equal(http.jobs.length, 1, "the request was sent once");
  assert.equal(warnings.length, 2);
  assert.equal(store.outbox.size, 0);
  await service.close();
});

Deno.test("a fold-back the store failed to commit is settled after a restart with its outcome, not sent again", async () => {
  const store = new FlakyStore();
  const before = await run(settling, [ok({ v: 1 })], store);
  await before.service.close();
  const http = new ScriptedExecutor().answer(ok({ v: 2 }));
  const { service, scheduler } = await effectService([http], { store });
  await scheduler.advance(60_000);
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [1, "applied"]);
  assert.deepEqual([before.http.jobs.length, http.jobs.length], [1, 0], "the request was sent once");
  assert.equal(store.outbox.size, 0);
  await service.close();
});

Deno.test("settling is given up after the retries: the job is recorded failed", async () => {
  const { service, scheduler, store, http, warnings } = await run(
    settling,
    [ok({ v: 1 })],
    undefined,
    SETTLE_RETRIES + 1,
  );
  await scheduler.advance(3_600_000);
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase, state.io.fx?.error], [
    undefined,
    "failed",
    `settlement failed ${SETTLE_RETRIES + 1} times (store unavailable)`,
  ]);
  assert.equal(http.jobs.length, 1);
  assert.equal(store.outbox.size, 0);
  assert.equal(warnings.length, SETTLE_RETRIES + 1);
  assert.match(
    warnings.at(-1)!,
    /job 'fx@.*'\): settlement failed 6 times \(store unavailable\), recorded failed$/,
  );
  await service.close();
});

Deno.test("settling is given up after the retries: a failure the store refuses too is tried again while the service runs", async () => {
  const store = new FlakyStore();
  const { service, scheduler, http, warnings } = await run(settling, [ok({ v: 1 })], store, Infinity);
  await scheduler.advance(3_600_000);
  // Settled again once per policy.maxBackoffMs (60 s by default) rather than never again, logged at the 1st,
  // 2nd, 4th, 8th… give-up with the count (no line a minute).
  const gaveUp = warnings.slice(SETTLE_RETRIES).map((w) => {
    assert.match(
      w,
      /settlement failed \d+ times \(store unavailable\), kept in the outbox, settled again later$/,
    );
    return Number(/failed (\d+) times/.exec(w)![1]);
  });
  assert.deepEqual(gaveUp, [1, 2, 4, 8, 16, 32].map((n) => SETTLE_RETRIES + n));
  assert.equal(scheduler.pending, 1, "its next settlement is scheduled");
  assert.deepEqual([http.jobs.length, store.outbox.size], [1, 1]);

  store.failures = 0;
  await scheduler.advance(60_000);
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [1, "applied"], "its outcome, kept");
  assert.deepEqual([http.jobs.length, store.outbox.size, scheduler.pending], [1, 0, 0], "not sent again");
  await service.close();
});

Deno.test("settling given up before a restart: the restarted service logs its first give-up, then at doublings", async () => {
  const store = new FlakyStore();
  const before = await run(settling, [ok({ v: 1 })], store, Infinity);
  await before.scheduler.advance(3_600_000);
  await before.service.close();
  const [kept] = store.outbox.values();
  const failures = kept.settleFailures!;
  assert.ok(failures - SETTLE_RETRIES > 32, "given up many times before the restart");
  const warnings: string[] = [];
  const http = new ScriptedExecutor();
  const { service, scheduler } = await effectService([http], {
    store,
    observer: { warn: (message) => warnings.push(message) },
  });
  // Its next settlement (when the outbox says), the first give-up since the restart: logged, though its
  // count is no power of two.
  await scheduler.advance(Math.max(0, kept.dueAt - scheduler.clock.now()));
  assert.equal(warnings.length, 1, `the first give-up after the restart is logged: ${warnings}`);
  assert.match(
    warnings[0],
    new RegExp(`settlement failed ${failures + 1} times \\(store unavailable\\), kept in the outbox`),
  );
  // Then again only at the next doubling of the outage (the 64th give-up).
  await scheduler.advance(60_000 * (SETTLE_RETRIES + 64 - failures - 2));
  assert.equal(warnings.length, 1, "not at every wait");
  await scheduler.advance(60_000);
  assert.equal(warnings.length, 2);
  assert.match(warnings[1], new RegExp(`settlement failed ${SETTLE_RETRIES + 64} times`));
  assert.equal(http.jobs.length, 0, "not sent again");
  await service.close();
});

Deno.test("settling is given up after the retries: a store refusing to keep it even so is named in the one line", async () => {
  const store = new FlakyStore();
  store.failUpdates = SETTLE_RETRIES + 1;
  const { service, scheduler, http, warnings } = await run(settling, [ok({ v: 1 })], store, Infinity);
  // Settled again after 1, 2, 4, 8 and 16 s: the sixth failure gives up.
  await scheduler.advance(31_000);
  assert.equal(warnings.length, SETTLE_RETRIES + 1);
  assert.match(
    warnings.at(-1)!,
    /job 'fx@.*'\): settlement failed 6 times \(store unavailable\), retry not kept \(disk full\): kept in memory$/,
  );
  assert.equal(scheduler.pending, 1, "its next settlement is scheduled all the same");
  store.failures = 0;
  await scheduler.advance(60_000);
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [1, "applied"], "its outcome, kept in memory");
  assert.deepEqual([http.jobs.length, store.outbox.size], [1, 0], "not sent again");
  await service.close();
});

Deno.test("a store outage refusing a settlement and its retry alike: settled again while the service runs, sent once", async () => {
  const store = new FlakyStore();
  store.failUpdates = 3;
  const { service, scheduler, http, warnings } = await run(settling, [ok({ v: 1 }), ok({ v: 2 })], store, 3);
  assert.match(
    warnings[0],
    /settlement failed \(store unavailable\), retry not kept \(disk full\): kept in memory$/,
  );
  assert.equal([...store.outbox.values()][0].outcome, undefined, "the store kept no outcome");
  // Until the store recovers, the job always has its next settlement scheduled.
  for (let waited = 0; store.outbox.size && waited < 3_600; waited++) {
    assert.equal(scheduler.pending, 1, `a settlement scheduled after ${waited} s`);
    await scheduler.advance(1000);
  }
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [1, "applied"], "the answer kept in memory");
  assert.deepEqual([http.jobs.length, store.outbox.size, scheduler.pending], [1, 0, 0], "not sent again");
  assert.equal(warnings.length, 3);
  await service.close();
});

Deno.test("a retry of a failed attempt the store refuses to keep is still made while the service runs", async () => {
  const store = new FlakyStore();
  store.failUpdates = 1;
  const down = { ok: false as const, error: "http 503", retryable: true };
  const keepingRetry = (jobs: JobChanges) => jobs.update?.some(keptForRetry) ?? false;
  const { service, scheduler, http, warnings } = await run(keepingRetry, [down, ok({ v: 4 })], store);
  assert.match(warnings.join("\n"), /job 'fx@.*'\): retry not kept \(disk full\): kept in memory$/);
  assert.equal(scheduler.pending, 1, "its retry is scheduled");
  await scheduler.advance(60_000);
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [4, "applied"]);
  assert.deepEqual([http.jobs.length, store.outbox.size], [2, 0]);
  await service.close();
});

Deno.test("a retry the store failed to keep runs from the store's copy after a restart: its request sent again", async () => {
  const store = new FlakyStore();
  store.failUpdates = 1;
  const before = await run(settling, [ok({ v: 1 })], store);
  assert.match(before.warnings.join("\n"), /retry not kept \(disk full\)/);
  await before.service.close();
  const http = new ScriptedExecutor().answer(ok({ v: 2 }));
  const { service, scheduler } = await effectService([http], { store });
  await scheduler.advance(60_000);
  const state = (await service.getState("c")) as State;
  assert.deepEqual(
    [state.v, state.io.fx?.phase],
    [2, "applied"],
    "at least once: its answer was never stored",
  );
  assert.deepEqual([before.http.jobs.length, http.jobs.length, store.outbox.size], [1, 1, 0]);
  await service.close();
});

Deno.test("an in_flight phase the store fails to commit is no refusal: the job is sent after its backoff", async () => {
  const { service, scheduler, store, http } = await run(
    (jobs) => (jobs.update?.length ?? 0) > 0,
    [ok({ v: 3 })],
  );
  let state = (await service.getState("c")) as State;
  assert.equal(state.io.fx?.phase, "pending");
  assert.equal(http.jobs.length, 0, "not sent while its in_flight phase is unrecorded");
  assert.equal(store.outbox.size, 1);
  await scheduler.advance(60_000);
  state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [3, "applied"]);
  assert.equal(store.outbox.size, 0);
  await service.close();
});

Deno.test("an attempt the store fails to count (no status path) is no refusal: the job is sent after its backoff", async () => {
  const store = new FlakyStore();
  store.failUpdates = 2;
  const model = { ...spec, effects: [{ ...spec.effects[0], statusPath: undefined }] };
  const { service, scheduler, http, warnings } = await run(() => false, [ok({ v: 5 })], store, 0, { model });
  assert.match(warnings.join("\n"), /job 'fx@.*'\): attempt put off \(disk full\)$/);
  assert.equal(http.jobs.length, 0, "not sent while its attempt is uncounted");
  for (let waited = 0; store.failUpdates && waited < 60; waited++) {
    assert.equal(scheduler.pending, 1, `its attempt scheduled after ${waited} s`);
    await scheduler.advance(1000);
  }
  await scheduler.advance(60_000);
  const state = (await service.getState("c")) as State;
  assert.equal(state.v, 5);
  assert.deepEqual(
    [http.jobs.length, store.outbox.size, warnings.length],
    [1, 0, 1],
    "logged once per outage",
  );
  await service.close();
});

Deno.test("an attempt that meets an unexpected refusal is put off after its effect's backoff, not the default one", async () => {
  const store = new FlakyStore();
  store.failUpdates = 1;
  // No store outage, a refusal begin did not expect: put off all the same, with the effect's policy.
  store.updateError = conflict("unexpected");
  const effect = { ...spec.effects[0], statusPath: undefined, policy: { retries: 1, backoff: 5000 } };
  const model = { ...spec, effects: [effect] };
  const { service, scheduler, http, warnings } = await run(() => false, [ok({ v: 5 })], store, 0, { model });
  assert.match(warnings.join("\n"), /job 'fx@.*'\): attempt put off \(unexpected\)$/);
  await scheduler.advance(4999);
  assert.equal(http.jobs.length, 0, "not sent before the effect's 5 s (the default policy waits 1 s)");
  await scheduler.advance(1);
  assert.equal(http.jobs.length, 1, "sent after the effect's backoff");
  await scheduler.advance(60_000);
  assert.equal(((await service.getState("c")) as State).v, 5);
  await service.close();
});

Deno.test("an attempt put off is stored with its later due time: after a restart it waits for it too", async () => {
  const store = new FlakyStore();
  store.failUpdates = 1;
  store.updateError = conflict("unexpected");
  const effect = { ...spec.effects[0], statusPath: undefined, policy: { retries: 1, backoff: 5000 } };
  const model = { ...spec, effects: [effect] };
  const before = await run(() => false, [], store, 0, { model });
  assert.match(before.warnings.join("\n"), /job 'fx@.*'\): attempt put off \(unexpected\)$/);
  const [stored] = store.outbox.values();
  assert.deepEqual([stored.dueAt, stored.attempt], [before.scheduler.clock.now() + 5000, 0], "stored");
  await before.service.close();
  const http = new ScriptedExecutor().answer(ok({ v: 5 }));
  const { service, scheduler } = await effectService([http], { store });
  await scheduler.advance(4999);
  assert.equal(http.jobs.length, 0, "not sent before its put-off ends");
  await scheduler.advance(1);
  assert.equal(http.jobs.length, 1, "sent then");
  await service.close();
});

Deno.test("a timer whose firing the store fails to count fires after its backoff, not at the next start", async () => {
  const store = new FlakyStore();
  const timer = { ...spec.effects[0], executor: "timer", request: undefined, afterMs: "1000" };
  const model = { ...spec, effects: [{ ...timer, response: { set: { "$.v": "7" } } }] };
  const { service, scheduler, warnings } = await run(() => false, [], store, 0, { model });
  store.failUpdates = 1;
  await scheduler.advance(1000);
  assert.match(warnings.join("\n"), /job 'fx@.*'\): attempt put off \(disk full\)$/);
  assert.equal(scheduler.pending, 1, "it fires when its backoff (its due time now) comes");
  await scheduler.advance(60_000);
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase, store.outbox.size], [7, "applied", 0]);
  await service.close();
});

Deno.test("a cancellation the store fails to commit is settled again while the service runs, never sent", async () => {
  const store = new FlakyStore();
  const writes = [{ "$.go": true }, { "$.go": false }];
  const { service, scheduler, http, warnings } = await run(settling, [], store, 2, { writes });
  assert.match(warnings.join("\n"), /job 'fx@.*'\): attempt put off \(store unavailable\)$/);
  assert.equal(store.outbox.size, 1);
  for (let waited = 0; store.outbox.size && waited < 60; waited++) {
    assert.equal(scheduler.pending, 1, `its settlement scheduled after ${waited} s`);
    await scheduler.advance(1000);
  }
  const state = (await service.getState("c")) as State;
  assert.deepEqual(
    [state.io.fx?.phase, store.outbox.size, warnings.length],
    ["cancelled", 0, 1],
    "once per outage",
  );
  assert.equal(http.jobs.length, 0, "never sent");
  await service.close();
});

Deno.test("a fold-back the model refuses still settles as refused", async () => {
  const { service, store } = await run(() => false, [ok({ v: "not a number" })]);
  const state = (await service.getState("c")) as State;
  assert.deepEqual([state.io.fx?.phase, state.io.fx?.error], [
    "failed",
    "fold-back refused: Schema violation: $.v (type): must be number",
  ]);
  assert.equal(store.outbox.size, 0);
  await service.close();
});
