import assert from "node:assert/strict";
import type { EffectPolicy } from "../model/nodes.ts";
import { DEFAULT_POLICY } from "../model/sections/effects.ts";
import type { EffectWork } from "../runtime/results.ts";
import { type DispatchHost, EffectDispatcher } from "./dispatcher.ts";
import type { ExecutorOutcome } from "./executor.ts";
import type { EffectJob } from "./job.ts";
import { ManualScheduler, ScriptedExecutor } from "./test_support.ts";

function jobOf(work: EffectWork, executor = "server"): EffectJob {
  return {
    id: "e@0#1",
    modelId: "m",
    effectId: "e",
    executor,
    key: null,
    work,
    statusPath: null,
    firedAt: 0,
    dueAt: 0,
    attempt: 0,
  };
}

/** A host keeping nothing: each attempt runs with `policy`; settlements are recorded. */
function host(policy: EffectPolicy = DEFAULT_POLICY): DispatchHost & { settled: ExecutorOutcome[] } {
  const settled: ExecutorOutcome[] = [];
  return {
    settled,
    begin: (job) => Promise.resolve({ run: { ...job, attempt: job.attempt + 1 }, policy }),
    settle: (_job, outcome) => {
      settled.push(outcome);
      return Promise.resolve();
    },
    retryLater: () => Promise.resolve(),
  };
}

Deno.test("an attempt is timed under its kind: a link to another model is `link`, not its effect's `server`", async () => {
  const scheduler = new ManualScheduler();
  const timed: string[] = [];
  const dispatcher = new EffectDispatcher(
    host(),
    [new ScriptedExecutor("link"), new ScriptedExecutor("server")],
    { clock: scheduler.clock, scheduler, observer: { attemptFinished: (kind) => timed.push(kind) } },
  );
  dispatcher.enqueue([
    jobOf({ type: "link", ref: "ledger", path: "$.x", read: null, watch: false, body: 1 }),
  ]);
  await scheduler.advance(0);
  dispatcher.enqueue([{ ...jobOf({ type: "http", requests: [] }), id: "e@0#2" }]);
  await scheduler.advance(0);
  assert.deepEqual(timed, ["link", "server"]);
  await dispatcher.close();
});
