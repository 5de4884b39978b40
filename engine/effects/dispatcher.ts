/**
 * Runs effect jobs: each waits until it is due (a timer's instant, a retry's
 * backoff), then its kind's executor makes one attempt within the effect's
 * `policy.timeoutMs`; a retryable failure is tried again after a doubling
 * delay while `policy.retries` allows; the outcome is handed back to the host,
 * which settles the job in one commit (fold-back, failure, cancellation or
 * supersession); when the store fails that commit, the job keeps the outcome
 * and is settled again later, never sent again by this process (a store that
 * refuses to keep it too loses it at a restart). The host keeps jobs durable,
 * so the dispatcher holds only timers and in-flight attempts: after a restart
 * the host enqueues what its store still holds.
 *
 * An attempt that throws (the host's `begin` failing: a store outage or
 * anything unexpected) settles nothing: the host puts the job off with its
 * effect's backoff, doubled at each put-off in a row (one count per job,
 * whatever failed), logged once per outage.
 *
 * A kind with no executor on this host fails with
 * `no_executor_for_kind:<kind>` (`llm not configured` for `llm`).
 *
 * @module
 */
import type { EffectPolicy } from "../model/nodes.ts";
import { type Clock, MAX_TIMER_MS, type Scheduler } from "../ports.ts";
import { shortMessage } from "../quoted.ts";
import { type EffectExecutor, type ExecutorOutcome, finalFailure } from "./executor.ts";
import type { EffectJob } from "./job.ts";

/** What {@link DispatchHost.begin} made of a job that fell due. */
export type AttemptStart =
  /** The attempt is counted: `run` is the job as now stored, `policy` its effect's. */
  | { run: EffectJob; policy: EffectPolicy }
  /** The stored job is due later (another process sharing the store put it off): wait for it. */
  | { wait: EffectJob }
  /** The job is gone (model deleted, job settled meanwhile) or another process runs it. */
  | null;

/** What the dispatcher needs from the service that owns the jobs. */
export interface DispatchHost {
  /**
   * Starts an attempt from the host's latest copy of the job (the dispatcher's
   * may be older): counts it durably and, for kinds that work in the
   * background, writes the `in_flight` phase; a job carrying its outcome
   * (a failed settlement) starts no attempt.
   */
  begin(job: EffectJob): Promise<AttemptStart>;
  /** Settles a job with its final outcome, in one commit with the job's removal. */
  settle(job: EffectJob, outcome: ExecutorOutcome): Promise<void>;
  /**
   * Keeps a job for another attempt at its `dueAt`: in the host's memory, then
   * in its store (which may refuse it: the memory copy, its outcome too, stands);
   * with `why` (a failed attempt and when the next is due), in one commit with
   * its status document showing it as the `error` (a settlement retried has none).
   */
  retryLater(job: EffectJob, why?: string): Promise<void>;
  /**
   * Puts off a job whose `begin` threw, for the `putOffs`-th time in a row: its copy in the host's memory
   * (what re-arms it) and in its store, where the store takes it, is due after its effect's backoff,
   * doubled at each, and a store shared with other processes leaves it with this one until then where it
   * can; null when the job is gone or another process holds it.
   */
  putOff(job: EffectJob, putOffs: number): Promise<EffectJob | null>;
}

/** Failed settlements of one outcome tried again (after the effect's backoff) before the job is given up. */
export const SETTLE_RETRIES = 5;

/** Hooks for metrics and logs. */
export interface DispatchObserver {
  /** One attempt ended: its kind, whether it succeeded and how long it took. */
  attemptFinished?(kind: string, outcome: "success" | "failure", durationMs: number): void;
  warn?(message: string): void;
}

/** Delay before attempt `attempt + 1` (the first retry waits `backoffMs`). */
export function backoffDelay(policy: EffectPolicy, attempt: number): number {
  return Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.max(0, attempt - 1));
}

/** The executor kind of a job: a link to another model has its own, whatever the effect's kind. */
function kindOf(job: EffectJob): string {
  return job.work.type === "link" ? "link" : job.executor;
}

/** The reason a job cannot run on this host, if any. */
function unrunnable(job: EffectJob, executors: ReadonlyMap<string, EffectExecutor>): ExecutorOutcome | null {
  if (job.work.type === "invalid") return finalFailure(job.work.error);
  const kind = kindOf(job);
  if (executors.has(kind)) return null;
  return finalFailure(kind === "llm" ? "llm not configured" : `no_executor_for_kind:${kind}`);
}

/**
 * The outcome with its error texts (a fan-out's too) cut as quoted.ts cuts a failure's: an executor may quote
 * a spec-computed method, header name or URL whole, and the text goes into state and the outbox.
 */
function bounded(outcome: ExecutorOutcome): ExecutorOutcome {
  if (!outcome.ok) return { ...outcome, error: shortMessage(outcome.error) };
  const parts = outcome.parts?.map((part) =>
    part.ok ? part : { ok: false as const, error: shortMessage(part.error) }
  );
  return parts ? { ...outcome, parts } : outcome;
}

/** Runs effect jobs as they fall due. */
export class EffectDispatcher {
  readonly #host: DispatchHost;
  readonly #executors: ReadonlyMap<string, EffectExecutor>;
  readonly #clock: Clock;
  readonly #scheduler: Scheduler;
  readonly #observer: DispatchObserver;
  readonly #timers = new Map<string, { job: EffectJob; handle: unknown }>();
  readonly #running = new Map<string, { job: EffectJob; abort: AbortController; done: Promise<void> }>();
  /** Put-offs in a row of jobs whose attempt threw (a store outage or anything else: one count). */
  readonly #putOffs = new Map<string, number>();
  /** Jobs whose give-up this process has logged: the count resumes from the outbox after a restart. */
  readonly #giveUpsLogged = new Set<string>();
  #closed = false;

  constructor(
    host: DispatchHost,
    executors: readonly EffectExecutor[],
    ports: { clock: Clock; scheduler: Scheduler; observer?: DispatchObserver },
  ) {
    this.#host = host;
    this.#executors = new Map(executors.map((e) => [e.kind, e]));
    this.#clock = ports.clock;
    this.#scheduler = ports.scheduler;
    this.#observer = ports.observer ?? {};
  }

  /** The kinds this host runs. */
  get kinds(): string[] {
    return [...this.#executors.keys()];
  }

  /** Schedules jobs for when they are due (now, for most). */
  enqueue(jobs: readonly EffectJob[]): void {
    for (const job of jobs) this.#arm(job);
  }

  /** Waits for the job's due time, in timers of at most {@link MAX_TIMER_MS} (a timer 30 days out). */
  #arm(job: EffectJob): void {
    if (this.#closed || this.#running.has(job.id)) return;
    this.#disarm(job.id);
    const wait = Math.max(0, job.dueAt - this.#clock.now());
    const handle = this.#scheduler.setTimeout(() => {
      this.#timers.delete(job.id);
      if (wait > MAX_TIMER_MS) this.#arm(job);
      else this.#start(job);
    }, Math.min(wait, MAX_TIMER_MS));
    this.#timers.set(job.id, { job, handle });
  }

  #disarm(jobId: string): void {
    const timer = this.#timers.get(jobId);
    if (timer) this.#scheduler.clearTimeout(timer.handle);
    this.#timers.delete(jobId);
  }

  #start(job: EffectJob): void {
    const abort = new AbortController();
    const done = this.#attempt(job, abort).then(
      (retry) => {
        this.#running.delete(job.id);
        this.#putOffs.delete(job.id);
        if (retry) this.#arm(retry);
      },
      async (err) => {
        const n = (this.#putOffs.get(job.id) ?? 0) + 1;
        this.#putOffs.delete(job.id);
        // An error settles nothing: the job, still in the outbox, waits longer at each put-off in a row.
        const wait = !abort.signal.aborted && await this.#host.putOff(job, n);
        // Running until then, so a notice meanwhile (a hand-over) does not start it.
        this.#running.delete(job.id);
        if (!wait || abort.signal.aborted) return;
        if (n < 2) this.#warn(job, `attempt put off (${(err as Error).message})`);
        this.#putOffs.set(job.id, n);
        this.#arm(wait);
      },
    );
    this.#running.set(job.id, { job, abort, done });
  }

  /** One attempt; resolves with the job to arm again (its retry, or its later due time), if any. */
  async #attempt(due: EffectJob, abort: AbortController): Promise<EffectJob | null> {
    const refused = unrunnable(due, this.#executors);
    const start = await this.#host.begin(due);
    if (!start || abort.signal.aborted) return null;
    if ("wait" in start) return start.wait;
    const { run: job, policy } = start;
    // A job whose settlement failed carries its outcome: it is settled again, its request never sent again.
    const made = job.outcome ?? refused ?? await this.#execute(job, policy, abort);
    if (!made) return null;
    // The one place an outcome's error is recorded from: the status document, the job kept with it, the log.
    const outcome = bounded(made);
    if (!outcome.ok && outcome.retryable && job.attempt <= policy.retries) {
      // An answer's Retry-After is kept when longer than the backoff, up to the policy's longest wait.
      const wait = Math.max(
        backoffDelay(policy, job.attempt),
        Math.min(outcome.retryAfterMs ?? 0, policy.maxBackoffMs),
      );
      const retry = { ...job, dueAt: this.#clock.now() + wait };
      // A reader sees the attempt failed and a retry is scheduled, not an in_flight phase with no error.
      const why = `${outcome.error} (retry ${job.attempt} of ${policy.retries} at ${
        new Date(retry.dueAt).toISOString()
      })`;
      const kept = await this.#keep(retry, why);
      if (kept) this.#warn(job, kept);
      return retry;
    }
    return await this.#settle(job, outcome, policy);
  }

  /**
   * Keeps a job for its retry; a store refusing it (an outage) leaves it kept in the host's memory, armed
   * all the same: run again while the service runs, the outcome it carries never sent again (after a
   * restart the store's copy runs). Resolves with the refusal's note, if any.
   */
  #keep(retry: EffectJob, why?: string): Promise<string> {
    return this.#host.retryLater(retry, why).then(
      () => "",
      (err) => `retry not kept (${(err as Error).message}): kept in memory`,
    );
  }

  /** A log line naming the job. */
  #warn(job: EffectJob, what: string): void {
    this.#observer.warn?.(`effect '${job.effectId}' of model '${job.modelId}' (job '${job.id}'): ${what}`);
  }

  /** Runs the job's executor once; null when the job was cancelled meanwhile. */
  async #execute(
    job: EffectJob,
    policy: EffectPolicy,
    abort: AbortController,
  ): Promise<ExecutorOutcome | null> {
    const executor = this.#executors.get(kindOf(job))!;
    const started = this.#clock.now();
    // The attempt's time limit runs on the host's scheduler, like every other wait here.
    const expiry = new AbortController();
    const deadline = this.#scheduler.setTimeout(() => expiry.abort(), policy.timeoutMs);
    const signal = AbortSignal.any([abort.signal, expiry.signal]);
    const timedOut = new Promise<ExecutorOutcome>((resolve) =>
      expiry.signal.addEventListener(
        "abort",
        () => resolve({ ok: false, error: `no answer within ${policy.timeoutMs} ms`, retryable: true }),
      )
    );
    let outcome: ExecutorOutcome;
    try {
      outcome = await Promise.race([
        executor.execute(job, { signal, timeoutMs: policy.timeoutMs }),
        timedOut,
      ]);
    } catch (err) {
      outcome = { ok: false, error: (err as Error).message, retryable: true };
    } finally {
      this.#scheduler.clearTimeout(deadline);
    }
    if (abort.signal.aborted) return null;
    if (!outcome.ok && expiry.signal.aborted) {
      outcome = { ok: false, error: `no answer within ${policy.timeoutMs} ms`, retryable: true };
    }
    this.#observer.attemptFinished?.(
      kindOf(job),
      outcome.ok ? "success" : "failure",
      this.#clock.now() - started,
    );
    return outcome;
  }

  /**
   * Settles a job with its outcome. When the store fails, the job keeps the
   * outcome and is settled again after its backoff, up to
   * {@link SETTLE_RETRIES} times; then it is recorded failed, or, when the
   * store takes not even that, both are tried again after a longer wait
   * (logged at growing intervals, with the count of failures).
   */
  async #settle(job: EffectJob, outcome: ExecutorOutcome, policy: EffectPolicy): Promise<EffectJob | null> {
    try {
      await this.#host.settle(job, outcome);
      this.#giveUpsLogged.delete(job.id);
      return null;
    } catch (err) {
      const failures = (job.settleFailures ?? 0) + 1;
      const warn = (what: string) => this.#warn(job, `settlement failed${what}`);
      const why = ` (${(err as Error).message})`;
      if (failures > SETTLE_RETRIES) {
        const failed = finalFailure(`settlement failed ${failures} times${why}`);
        // Not even its failure recorded: the outbox's copy (its outcome kept) is settled again after the
        // effect's longest backoff (a second at least), so no outstanding job waits with nothing scheduled;
        // kept as a retry is, so a notice re-arming the host's copy (a hand-over) keeps the wait too.
        const again = await this.#host.settle(job, failed).then(
          () => null,
          () => ({
            ...job,
            settleFailures: failures,
            dueAt: this.#clock.now() + Math.max(1000, policy.maxBackoffMs),
          }),
        );
        // A store refusing to keep it even so is named in the same line (the wait is then in memory only).
        const kept = again && await this.#keep(again);
        // A long outage is logged at the 1st, 2nd, 4th, 8th… give-up, each line with the count, not at every
        // wait: a line per doubling of the outage's length. A failure recorded at last always is, and so is
        // this process's first give-up of the job (after a restart the count resumes from the outbox).
        const gaveUp = failures - SETTLE_RETRIES;
        const first = !this.#giveUpsLogged.has(job.id);
        if (again) this.#giveUpsLogged.add(job.id);
        else this.#giveUpsLogged.delete(job.id);
        if (!again || first || !(gaveUp & (gaveUp - 1))) {
          warn(
            ` ${failures} times${why}, ${
              again ? kept || "kept in the outbox, settled again later" : "recorded failed"
            }`,
          );
        }
        return again;
      }
      const retry = {
        ...job,
        outcome,
        settleFailures: failures,
        dueAt: this.#clock.now() + backoffDelay(policy, failures),
      };
      warn(`${why}, ${await this.#keep(retry) || "retried"}`);
      return retry;
    }
  }

  /** Stops a model's jobs: timers cleared, attempts aborted (their results are dropped). */
  cancelModel(modelId: string): void {
    for (const [id, { job }] of this.#timers) {
      if (job.modelId === modelId) {
        this.#disarm(id);
        this.#putOffs.delete(id);
        this.#giveUpsLogged.delete(id);
      }
    }
    for (const { job, abort } of this.#running.values()) if (job.modelId === modelId) abort.abort();
  }

  /** Stops everything; jobs stay in the host's store for the next start. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const id of [...this.#timers.keys()]) this.#disarm(id);
    const running = [...this.#running.values()];
    for (const { abort } of running) abort.abort();
    await Promise.all(running.map((r) => r.done));
  }
}
