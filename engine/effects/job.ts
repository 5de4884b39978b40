/**
 * An effect job: one fired effect on its way through an executor, kept in the
 * store's outbox from the commit that fired it until the commit that folds its
 * result back (or records its failure, cancellation or supersession), so a
 * crash at any point neither loses it nor applies its result twice.
 *
 * @module
 */
import { canonicalJson } from "../json/canonical.ts";
import type { Json } from "../json/value.ts";
import type { Effect } from "../model/types.ts";
import type { EffectRequest, EffectWork } from "../runtime/results.ts";
import type { ExecutorOutcome } from "./executor.ts";

/** A fired effect waiting for (or in) its executor. */
export interface EffectJob {
  /** Unique: `<effectId>@<fired at>#<origin><n>` (see {@link jobsOf}). */
  id: string;
  modelId: string;
  effectId: string;
  /** The executor kind. */
  executor: string;
  /** The effect's `dedupeKey` value when it fired; the fold-back compares it with the current one. */
  key: Json;
  work: EffectWork;
  /** The status document's address, when the effect keeps one. */
  statusPath: string | null;
  /** When it fired (epoch ms). */
  firedAt: number;
  /**
   * The `at` of the status document it wrote last (`pending` when it fired,
   * `in_flight` when an attempt began), by which it knows the document is
   * still its own; absent in jobs stored before it was kept.
   */
  statusAt?: number;
  /**
   * When the next attempt is due: the one due time the dispatcher and the
   * stores go by. A timer's `work.fireAt` only sets it when fired; a settlement
   * retried or an attempt put off (a store outage, an unexpected error) moves
   * it later.
   */
  dueAt: number;
  /** Attempts started so far. */
  attempt: number;
  /**
   * The executor's outcome, kept when settling it failed (the store did): the
   * job is settled again with it, never sent again.
   */
  outcome?: ExecutorOutcome;
  /** Settlements of {@link outcome} that failed so far. */
  settleFailures?: number;
  /**
   * What of its effect's definition shaped the work when it fired ({@link sentShape}): an evolution that
   * changes it leaves the job superseded. Absent in jobs stored before it was kept.
   */
  shape?: string;
}

/**
 * Members of an effect that do not shape what its job sends: how the answer is folded back, the policy, the
 * status document's address, and what the fold-back checks on its own (trigger, key), besides annotations.
 */
const NOT_SENT = new Set([
  "response",
  "policy",
  "statusPath",
  "trigger",
  "dedupeKey",
  "description",
  "origin",
  "definitionHash",
  "approval",
]);

/** The members of an effect's definition that shape what its job sends (request, target, timer, prompt…). */
export function sentShape(definition: Effect): string {
  return canonicalJson(
    Object.fromEntries(Object.entries(definition).filter(([name]) => !NOT_SENT.has(name))),
  );
}

/** Outbox changes made with a commit (or on their own). */
export interface JobChanges {
  /** Jobs a commit fired: written as they are. */
  put?: EffectJob[];
  /**
   * Jobs already in the outbox, changed (an attempt counted, a retry's due
   * time): one no longer there (settled or dropped by another process that
   * shares the store) is not written back, so it never runs again; one another
   * process claimed since this one held it is left to that one (its copy is
   * the newer).
   */
  update?: EffectJob[];
  remove?: string[];
}

/**
 * This process's (or tab's) mark in its job ids: processes sharing a store (Postgres, a browser's tabs) each
 * count from 0, so the same effect fired in the same millisecond would get one id and one job would be lost.
 */
const origin = Math.random().toString(36).slice(2, 8);
let counter = 0;

/** The jobs of a commit's effect requests, fired at `at`. */
export function jobsOf(modelId: string, requests: readonly EffectRequest[], at: number): EffectJob[] {
  return requests.map((request) => ({
    id: `${request.effectId}@${at}#${origin}${++counter}`,
    modelId,
    effectId: request.effectId,
    executor: request.executor,
    key: request.key,
    work: request.work,
    statusPath: typeof request.definition.statusPath === "string" ? request.definition.statusPath : null,
    firedAt: at,
    statusAt: at,
    dueAt: request.work.type === "timer" ? request.work.fireAt : at,
    attempt: 0,
    shape: sentShape(request.definition),
  }));
}

/**
 * The store's copy of a job, with what this process keeps in memory of the
 * same attempt (the store refused to keep it): its outcome, when that copy has
 * none (it is settled with it, its request not sent again), and the later due
 * time (a put-off survives). A copy of another attempt (another process ran
 * it) is taken as stored.
 */
export function withKept(stored: EffectJob, known: EffectJob | undefined): EffectJob {
  return known?.attempt !== stored.attempt ? stored : {
    ...stored,
    dueAt: Math.max(stored.dueAt, known.dueAt),
    ...!stored.outcome && known.outcome && { outcome: known.outcome, settleFailures: known.settleFailures },
  };
}

/**
 * Whether a stored value is a job (outbox records are checked when loaded), a
 * kept outcome and its count of failed settlements among it: settling a job
 * with a malformed one would fail for a reason no retry mends.
 */
export function isEffectJob(value: unknown): value is EffectJob {
  const job = value as EffectJob;
  const failures = job?.settleFailures;
  return job !== null && typeof job === "object" && typeof job.id === "string" &&
    typeof job.modelId === "string" && typeof job.effectId === "string" && typeof job.executor === "string" &&
    isWork(job.work) && Number.isFinite(job.firedAt) &&
    Number.isFinite(job.dueAt) && Number.isInteger(job.attempt) &&
    (job.outcome === undefined || isOutcome(job.outcome)) &&
    (failures === undefined || Number.isInteger(failures) && failures >= 0) &&
    (job.shape === undefined || typeof job.shape === "string");
}

/** Whether a stored value is an effect's work: a kind executors know, its fields as `EffectWork` types them. */
function isWork(value: unknown): boolean {
  const w = value as Record<string, unknown> | null;
  const text = (v: unknown, orNull = false) => typeof v === "string" || orNull && v === null;
  switch (w?.type) {
    case "http":
      return Array.isArray(w.requests) &&
        w.requests.every((r) =>
          text(r?.method) && text(r.url) && typeof r.headers === "object" && r.headers !== null
        ) && (w.fanOut === undefined || typeof w.fanOut === "boolean");
    case "timer":
      return Number.isFinite(w.fireAt);
    case "llm":
      return text(w.prompt) && w.responseSchema !== undefined;
    case "link":
      return text(w.ref) && text(w.path, true) && text(w.read, true) && typeof w.watch === "boolean" &&
        w.body !== undefined;
    case "plugin":
      return w.definition !== undefined && w.document !== undefined;
  }
  return w?.type === "invalid" && text(w.error);
}

/** Whether a stored value is an executor's outcome (`part`: one request's of a fan-out). */
function isOutcome(value: unknown, part = false): boolean {
  const o = value as Record<string, unknown> | null;
  if (o === null || typeof o !== "object") return false;
  if (o.ok === false) return typeof o.error === "string" && (part || typeof o.retryable === "boolean");
  return o.ok === true && (o.status === null || Number.isFinite(o.status)) &&
    (part || o.parts === undefined || Array.isArray(o.parts) && o.parts.every((p) => isOutcome(p, true)));
}
