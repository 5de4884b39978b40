/**
 * Fixtures of the effect tests: a scheduler driven by a manual clock, and an
 * executor whose answers the test scripts (and can hold back).
 *
 * @module
 */
import { ManualClock } from "../_test_utils.ts";
import type { AuditRecord } from "../audit/chain.ts";
import type { Json } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { webPlatform } from "../ports.ts";
import type { Scheduler } from "../ports.ts";
import { MemoryModelStore } from "../service/memory.ts";
import type { CommitStates, LoadedModel, LogEntry, PersistedState } from "../service/ports.ts";
import { ModelService, type ServiceOptions } from "../service/service.ts";
import type { EffectExecutor, ExecutorOutcome } from "./executor.ts";
import type { EffectWork } from "../runtime/results.ts";
import type { EffectJob, JobChanges } from "./job.ts";

/**
 * A memory store that keeps the outbox, as a durable store keeps it (an
 * update changes only jobs still there), for tests to read in `outbox`.
 */
export class OutboxStore extends MemoryModelStore {
  readonly outbox = new Map<string, EffectJob>();

  #change(changes: JobChanges = {}): void {
    for (const id of changes.remove ?? []) this.outbox.delete(id);
    for (const job of changes.put ?? []) this.outbox.set(job.id, structuredClone(job));
    for (const job of changes.update ?? []) {
      if (this.outbox.has(job.id)) this.outbox.set(job.id, structuredClone(job));
    }
  }

  override save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges } = {},
  ): Promise<void> {
    this.#change(options.jobs);
    return super.save(spec, state, options);
  }

  override commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    this.#change(jobs);
    return super.commit(modelId, entry, states, audit);
  }

  override updateJobs(_modelId: string, jobs: JobChanges): Promise<void> {
    this.#change(jobs);
    return Promise.resolve();
  }
}

/**
 * An outbox store that also keeps each model's spec and latest state, as a
 * durable store keeps them: a second service opened on it loads them with
 * the outbox, as after a restart (the audit trail carries on too).
 */
export class ReloadableStore extends OutboxStore {
  readonly #models = new Map<string, { spec: ModelSpec; state: PersistedState }>();

  override load(): Promise<LoadedModel[]> {
    return Promise.resolve([...this.#models.values()].map(({ spec, state }) => ({
      spec: structuredClone(spec),
      base: structuredClone(state),
      log: [],
      jobs: [...this.outbox.values()].filter((job) => job.modelId === spec.id).map((job) =>
        structuredClone(job)
      ),
    })));
  }

  override save(
    spec: ModelSpec,
    state: PersistedState,
    options: { created?: boolean; jobs?: JobChanges } = {},
  ): Promise<void> {
    this.#models.set(spec.id, { spec: structuredClone(spec), state: structuredClone(state) });
    return super.save(spec, state, options);
  }

  override commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    const stored = this.#models.get(modelId);
    if (stored) stored.state = structuredClone(states.current());
    return super.commit(modelId, entry, states, audit, jobs);
  }

  override delete(modelId: string): Promise<void> {
    this.#models.delete(modelId);
    for (const [id, job] of this.outbox) if (job.modelId === modelId) this.outbox.delete(id);
    return super.delete(modelId);
  }
}

/** Timers that fire when the test moves the clock. */
export class ManualScheduler implements Scheduler {
  readonly clock = new ManualClock();
  #timers = new Map<number, { at: number; callback: () => void }>();
  #next = 0;

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.#next;
    this.#timers.set(id, { at: this.clock.now() + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Timers still waiting. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves the clock by `ms`, firing what falls due in order, and lets the work they start settle. */
  async advance(ms: number): Promise<void> {
    const until = this.clock.now() + ms;
    for (;;) {
      const due = [...this.#timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.clock.current = Math.max(this.clock.current, due[1].at);
      due[1].callback();
      await settled();
    }
    this.clock.current = until;
    await settled();
  }
}

/**
 * Lets the work an event started (an attempt, its commits, their hashing
 * through Web Crypto) run to completion: a few turns of the event loop.
 */
export async function settled(): Promise<void> {
  for (let i = 0; i < 15; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** An executor answering from a script; `hold()` keeps the next answers until released. */
export class ScriptedExecutor implements EffectExecutor {
  readonly kind: string;
  readonly jobs: EffectJob[] = [];
  #answers: ExecutorOutcome[] = [];
  #gate: PromiseWithResolvers<void> | null = null;

  constructor(kind = "server") {
    this.kind = kind;
  }

  /** Answers, in order; when exhausted, a success with a null response. */
  answer(...outcomes: ExecutorOutcome[]): this {
    this.#answers.push(...outcomes);
    return this;
  }

  /** Holds every attempt until {@link release}. */
  hold(): void {
    this.#gate = Promise.withResolvers();
  }

  release(): void {
    this.#gate?.resolve();
    this.#gate = null;
  }

  async execute(job: EffectJob): Promise<ExecutorOutcome> {
    this.jobs.push(structuredClone(job));
    if (this.#gate) await this.#gate.promise;
    return this.#answers.shift() ?? { ok: true, response: null, status: 200 };
  }
}

/** A success carrying `response`. */
export const ok = (response: Json, status = 200): ExecutorOutcome => ({ ok: true, response, status });

/** A service whose effects run on `executors`, timers on a manual clock. */
export async function effectService(
  executors: EffectExecutor[],
  options: Omit<ServiceOptions, "platform" | "executors"> = {},
): Promise<{ service: ModelService; scheduler: ManualScheduler }> {
  const scheduler = new ManualScheduler();
  const service = await ModelService.open({
    ...options,
    executors,
    platform: { clock: scheduler.clock, hasher: webPlatform().hasher, scheduler },
  });
  return { service, scheduler };
}

/** Whether a job in a commit is one kept for its retry (due after its status document was written). */
export function keptForRetry(job: EffectJob): boolean {
  return job.dueAt > (job.statusAt ?? Infinity);
}

/** A job of effect `e` on model `m`, due at 0, not yet attempted. */
export function jobOf(work: EffectWork, executor = "server"): EffectJob {
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
