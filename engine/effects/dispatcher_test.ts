import assert from "node:assert/strict";
import type { EffectPolicy } from "../model/nodes.ts";
import { type Clock, MAX_TIMER_MS } from "../ports.ts";
import { DEFAULT_POLICY } from "../model/sections/effects.ts";
import { backoffDelay, type DispatchHost, EffectDispatcher } from "./dispatcher.ts";
import type { ExecutorOutcome } from "./executor.ts";
import { jobOf, ManualScheduler, ScriptedExecutor } from "./test_support.ts";

/**
 * A host keeping nothing: each attempt runs with `policy`; settlements are recorded, and the counts of
 * put-offs in a row it is told (each put off after `policy`'s backoff on `clock`).
 */
function host(
  policy: EffectPolicy = DEFAULT_POLICY,
  clock: Clock = { now: () => 0 },
): DispatchHost & { settled: ExecutorOutcome[]; putOffs: number[] } {
  const settled: ExecutorOutcome[] = [];
  const putOffs: number[] = [];
  return {
    settled,
    putOffs,
    begin: (job) => Promise.resolve({ run: { ...job, attempt: job.attempt + 1 }, policy }),
    settle: (_job, outcome) => {
      settled.push(outcome);
      return Promise.resolve();
    },
    retryLater: () => Promise.resolve(),
    putOff: (job, n) => {
      putOffs.push(n);
      return Promise.resolve({ ...job, dueAt: clock.now() + backoffDelay(policy, job.attempt + n) });
    },
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

/** A manual scheduler whose timers, like Deno's and browsers', fire at once when given more than 2^31 - 1 ms. */
class ClampingScheduler extends ManualScheduler {
  override setTimeout(callback: () => void, ms: number): unknown {
    return super.setTimeout(callback, ms > MAX_TIMER_MS ? 1 : ms);
  }
}

Deno.test("a wait beyond one timer's reach (a timer 30 days out, a long backoff) lasts its full time", async () => {
  const scheduler = new ClampingScheduler();
  const server = new ScriptedExecutor("server").answer({ ok: false, error: "http 503", retryable: true });
  const timer = new ScriptedExecutor("timer");
  const day = 86_400_000;
  const retrying = { ...DEFAULT_POLICY, retries: 1, backoffMs: 30 * day, maxBackoffMs: 30 * day };
  const dispatcher = new EffectDispatcher(host(retrying), [server, timer], {
    clock: scheduler.clock,
    scheduler,
  });
  const now = scheduler.clock.now();
  dispatcher.enqueue([
    { ...jobOf({ type: "timer", fireAt: now + 30 * day }, "timer"), id: "t", dueAt: now + 30 * day },
    { ...jobOf({ type: "http", requests: [] }), id: "h" },
  ]);
  await scheduler.advance(0);
  assert.deepEqual([timer.jobs.length, server.jobs.length], [0, 1], "the request ran; the timer waits");
  await scheduler.advance(29 * day);
  assert.deepEqual([timer.jobs.length, server.jobs.length], [0, 1], "nothing fell due early");
  await scheduler.advance(day);
  assert.deepEqual([timer.jobs.length, server.jobs.length], [1, 2], "both fell due at 30 days");
  await dispatcher.close();
});

Deno.test("an attempt whose begin throws is put off as the host tells, the count in a row told, logged once per outage", async () => {
  const scheduler = new ManualScheduler();
  const server = new ScriptedExecutor("server");
  const inner = host(DEFAULT_POLICY, scheduler.clock);
  let failures = 2;
  const warnings: string[] = [];
  const dispatcher = new EffectDispatcher(
    {
      ...inner,
      begin: (job) => failures-- > 0 ? Promise.reject(new Error("bug")) : inner.begin(job),
    },
    [server],
    { clock: scheduler.clock, scheduler, observer: { warn: (line) => warnings.push(line) } },
  );
  dispatcher.enqueue([jobOf({ type: "http", requests: [] })]);
  await scheduler.advance(0);
  assert.equal(scheduler.pending, 1, "the job is armed again, not dropped");
  await scheduler.advance(999);
  assert.equal(failures, 1, "put off by the first backoff (1 s)");
  await scheduler.advance(1);
  assert.equal(failures, 0, "tried again after 1 s; thrown again");
  await scheduler.advance(1999);
  assert.equal(server.jobs.length, 0, "the second put-off waits twice as long");
  await scheduler.advance(1);
  assert.equal(server.jobs.length, 1, "sent once the host begins it");
  assert.deepEqual(inner.putOffs, [1, 2], "the host is told the put-offs in a row");
  assert.deepEqual(inner.settled.map((o) => o.ok), [true]);
  assert.deepEqual(warnings, ["effect 'e' of model 'm' (job 'e@0#1'): attempt put off (bug)"]);
  await dispatcher.close();
});

Deno.test("a begun attempt ends the put-offs in a row; a job the host has no more is not armed again", async () => {
  const scheduler = new ManualScheduler();
  const server = new ScriptedExecutor("server").answer({ ok: false, error: "http 503", retryable: true });
  const inner = host({ ...DEFAULT_POLICY, retries: 1 }, scheduler.clock);
  let throws = [true, false, true];
  let gone = false;
  const dispatcher = new EffectDispatcher(
    {
      ...inner,
      begin: (job) => throws.shift() ? Promise.reject(new Error("bug")) : inner.begin(job),
      putOff: (job, n) => gone ? (inner.putOffs.push(n), Promise.resolve(null)) : inner.putOff(job, n),
    },
    [server],
    { clock: scheduler.clock, scheduler },
  );
  dispatcher.enqueue([jobOf({ type: "http", requests: [] })]);
  await scheduler.advance(60_000);
  assert.equal(server.jobs.length, 2, "its retry sent too");
  assert.deepEqual(inner.putOffs, [1, 1], "counted anew after the attempt between");
  throws = [true];
  gone = true;
  dispatcher.enqueue([{ ...jobOf({ type: "http", requests: [] }), id: "e@0#2" }]);
  await scheduler.advance(0);
  assert.deepEqual([inner.putOffs, scheduler.pending], [[1, 1, 1], 0], "not armed again");
  await dispatcher.close();
});

Deno.test("a retry waits the answer's Retry-After when longer than its backoff, at most policy.backoff.maxMs", async () => {
  const scheduler = new ManualScheduler();
  const busy = { ok: false as const, error: "http 429", retryable: true };
  const server = new ScriptedExecutor("server")
    .answer({ ...busy, retryAfterMs: 5000 })
    .answer({ ...busy, retryAfterMs: 600_000 })
    .answer({ ...busy, retryAfterMs: 10 });
  const policy = { ...DEFAULT_POLICY, retries: 3, backoffMs: 100, maxBackoffMs: 20_000 };
  const dispatcher = new EffectDispatcher(host(policy), [server], { clock: scheduler.clock, scheduler });
  dispatcher.enqueue([jobOf({ type: "http", requests: [] })]);
  await scheduler.advance(0);
  await scheduler.advance(4999);
  assert.equal(server.jobs.length, 1, "not before the 5 s the server asked for (the backoff is 100 ms)");
  await scheduler.advance(1);
  assert.equal(server.jobs.length, 2);
  await scheduler.advance(19_999);
  assert.equal(server.jobs.length, 2, "10 minutes asked for: the policy's longest backoff, 20 s");
  await scheduler.advance(1);
  assert.equal(server.jobs.length, 3);
  await scheduler.advance(399);
  assert.equal(server.jobs.length, 3, "a Retry-After shorter than the backoff (400 ms at the third) is not");
  await scheduler.advance(1);
  assert.equal(server.jobs.length, 4);
  await dispatcher.close();
});
