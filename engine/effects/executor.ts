/**
 * The executor port: each effect kind (`server`, `timer`, `llm`, an operator's
 * plugin) is one {@link EffectExecutor} the host installs. An executor performs
 * one attempt and says how it went; retries, status documents and fold-backs
 * are the dispatcher's.
 *
 * @module
 */
import type { Json, JsonObject } from "../json/value.ts";
import type { EffectJob } from "./job.ts";

/** One request of a fan-out, as it went. */
export type PartOutcome =
  | { ok: true; response: Json; status: number | null }
  | { ok: false; error: string };

/** How one attempt went. */
export type ExecutorOutcome =
  | {
    ok: true;
    /** The parsed answer (`$response`); null when empty. */
    response: Json;
    /** The HTTP status (`$status`), or null for kinds without one. */
    status: number | null;
    /** A fan-out's requests one by one, in order. */
    parts?: PartOutcome[];
  }
  | {
    ok: false;
    /** Written to the status document's `error`. */
    error: string;
    /** I/O errors, time-outs, 5xx and 429 are worth another attempt; refusals and other 4xx are not. */
    retryable: boolean;
    /** How long the answer asked to wait before another attempt (its `Retry-After`), when it said. */
    retryAfterMs?: number;
  };

/** What an attempt runs with. */
export interface ExecutionContext {
  /** Aborted at the effect's `policy.timeoutMs`, or when the job is cancelled. */
  signal: AbortSignal;
  timeoutMs: number;
}

/** An executor kind. */
export interface EffectExecutor {
  kind: string;
  /** Problems with an effect of this kind, reported as spec findings at the effect. */
  validate?(effect: JsonObject): string[];
  execute(job: EffectJob, context: ExecutionContext): Promise<ExecutorOutcome>;
}

/**
 * The key a service can tell a request sent again from a new one by: the job's id (one per firing, kept in the
 * outbox, so the same at every attempt and after a restart), made ASCII (an effect's id may be any text).
 */
export function idempotencyKeyOf(job: EffectJob): string {
  return encodeURIComponent(job.id);
}

/** The timer kind: nothing to do at fire time; `response.set` is evaluated against the state then. */
export const TIMER_EXECUTOR: EffectExecutor = {
  kind: "timer",
  execute: () => Promise.resolve({ ok: true, response: null, status: null }),
};

/** A failure that another attempt will not change. */
export function finalFailure(error: string): ExecutorOutcome {
  return { ok: false, error, retryable: false };
}

/** An executor loaded on its first job (a host that starts fast and may never need it). */
export function lazyExecutor(kind: string, load: () => Promise<EffectExecutor>): EffectExecutor {
  let loaded: Promise<EffectExecutor> | undefined;
  return {
    kind,
    execute: async (job, context) => (await (loaded ??= load())).execute(job, context),
  };
}
