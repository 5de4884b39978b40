import assert from "node:assert/strict";
import type { AuditRecord } from "../audit/chain.ts";
import { unavailable } from "../errors.ts";
import type { CommitStates, LogEntry } from "../service/ports.ts";
import type { JobChanges } from "./job.ts";
import { effectService, ok, OutboxStore, ScriptedExecutor } from "./test_support.ts";

/** An outbox store whose next commit matching `failWhen` throws once (a 503 settling a job, else an I/O error). */
class FlakyStore extends OutboxStore {
  failWhen: ((jobs: JobChanges) => boolean) | null = null;

  override commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    if (this.failWhen?.(jobs ?? {})) {
      this.failWhen = null;
      return Promise.reject(jobs?.remove?.length ? unavailable("store unavailable") : new Error("disk full"));
    }
    return super.commit(modelId, entry, states, audit, jobs);
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
  }],
};

type State = { v?: number; io: { fx?: Record<string, unknown> } };

async function run(failWhen: (jobs: JobChanges) => boolean, answers: ReturnType<typeof ok>[]) {
  const warnings: string[] = [];
  const http = new ScriptedExecutor().answer(...answers);
  const store = new FlakyStore();
  const { service, scheduler } = await effectService([http], {
    store,
    observer: { warn: (message) => warnings.push(message) },
  });
  await service.createModel(spec);
  store.failWhen = failWhen;
  await service.mutate("c", { "$.go": true });
  await scheduler.advance(0);
  return { service, scheduler, store, http, warnings };
}

Deno.test("a fold-back the store fails to commit stays in the outbox and folds back on retry", async () => {
  const { service, scheduler, store, warnings } = await run(
    (jobs) => (jobs.remove?.length ?? 0) > 0,
    [ok({ v: 1 }), ok({ v: 2 })],
  );
  let state = (await service.getState("c")) as State;
  assert.notEqual(state.io.fx?.phase, "failed", "the store failing is no refusal");
  assert.equal(state.v, undefined);
  assert.equal(store.outbox.size, 1, "the job is kept for a later attempt");
  assert.match(warnings.join("\n"), /settlement failed, retried: store unavailable/);
  await scheduler.advance(60_000);
  state = (await service.getState("c")) as State;
  assert.deepEqual([state.v, state.io.fx?.phase], [2, "applied"]);
  assert.equal(store.outbox.size, 0);
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
