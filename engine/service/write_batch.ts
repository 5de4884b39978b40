/**
 * Batches of one model's queued writes (servers over Deno KV, whose stores
 * offer {@link ModelStore.commitMany}): the writes a model's queue holds back
 * to back are evaluated one after another, each on top of the ones before it
 * (none of them committed), written durably together, then applied in order,
 * each caller answered with its own result. A write that waited for the
 * durable write before it then waits for one more instead of one each, which
 * is what bounds a single model's throughput on a store that fsyncs.
 *
 * The service passes a model's run of queued writes to the batcher a host
 * gives it (`ServiceOptions.writeBatcher`); the browser's engine gets none, so
 * this module stays out of its bundle.
 *
 * @module
 */
import type { AuditRecord } from "../audit/chain.ts";
import type { EffectJob } from "../effects/job.ts";
import { notFound } from "../errors.ts";
import type { Json } from "../json/value.ts";
import type { CycleOutcome, MutationResult } from "../runtime/results.ts";
import type { CycleOptions, ModelRuntime } from "../runtime/runtime.ts";
import type { WriteResult } from "./api.ts";
import { checkpointOf } from "./compaction.ts";
import { BatchTooLargeError, type CommitRecord, type LogEntry, type ModelStore } from "./ports.ts";
import { toPersisted } from "./replay.ts";

/** Writes evaluated and not committed yet, as the next one evaluates on top of them. */
export type Uncommitted = NonNullable<CycleOptions["after"]>;

/** A write's evaluation at an instant, on top of `after` when given. */
export type Evaluation = (
  runtime: ModelRuntime,
  at: number,
  after?: Uncommitted,
) => Promise<CycleOutcome | null>;

/** A write waiting in its model's queue, as a batch takes it. */
export interface QueuedWrite {
  source: LogEntry["source"];
  request: Json;
  evaluate: Evaluation;
  viewId: string | undefined;
  /** Set once a batch has taken it: its answer then settles with the batch. */
  taken: boolean;
  answer: PromiseWithResolvers<WriteResult>;
}

/** One model of the service, as a batch works on it. */
export interface BatchHost {
  modelId: string;
  runtime(): ModelRuntime;
  /** The model's newest audit record (`{sequence, hash}`). */
  auditHead(): { sequence: number; hash: string };
  deleted(): boolean;
  now(): number;
  /** Throws when `viewId` is not a view of the model. */
  checkView(viewId: string): void;
  /** The write's audit record, chained to `head`. */
  seal(
    write: QueuedWrite,
    outcome: CycleOutcome,
    at: number,
    head: { sequence: number; hash: string },
  ): AuditRecord | Promise<AuditRecord>;
  jobsOf(outcome: CycleOutcome, at: number): EffectJob[];
  historyMaxEntries: number;
  store: Pick<ModelStore, "commit" | "commitMany">;
  /** Makes a durable write the runtime's state and tells subscribers and executors. */
  apply(write: QueuedWrite, outcome: CycleOutcome, audit: AuditRecord, at: number, jobs: EffectJob[]): void;
  /** The caller's answer to a write applied (`null`: nothing was written), view delta included. */
  answer(write: QueuedWrite, result: MutationResult | null): WriteResult | Promise<WriteResult>;
}

/** Commits a run of queued writes, settling every one's answer. */
export type WriteBatcher = (host: BatchHost, writes: QueuedWrite[]) => Promise<void>;

/** A write once evaluated: what it commits (nothing when `outcome` is null). */
interface StagedWrite {
  write: QueuedWrite;
  at: number;
  outcome: CycleOutcome | null;
  audit: AuditRecord | null;
  jobs: EffectJob[];
}

/** Writes one durable write carries at most. */
const MAX_BATCH = 64;

/**
 * Commits writes in batches of at most {@link MAX_BATCH}: each batch
 * evaluated in order on top of its writes before, its log entries, audit
 * records and fired jobs written in one durable write (one by one when they do
 * not fit one), then applied in order. A write its cycle refuses fails alone
 * and the next builds on the last one that stood; writes the durable write did
 * not land fail, and nothing of them is applied, so readers never see a state
 * that is not durable.
 */
export const commitBatches: WriteBatcher = async (host, writes) => {
  for (let from = 0; from < writes.length; from += MAX_BATCH) {
    await commitBatch(host, writes.slice(from, from + MAX_BATCH));
  }
};

async function commitBatch(host: BatchHost, batch: QueuedWrite[]): Promise<void> {
  const staged: StagedWrite[] = [];
  let after: Uncommitted | undefined;
  let head = host.auditHead();
  for (const write of batch) {
    try {
      if (host.deleted()) throw notFound(`Model '${host.modelId}' not found`);
      // An unknown view fails the write before anything is applied.
      if (write.viewId !== undefined) host.checkView(write.viewId);
      const at = host.now();
      const outcome = await write.evaluate(host.runtime(), at, after);
      if (!outcome) {
        staged.push({ write, at, outcome, audit: null, jobs: [] });
        continue;
      }
      const audit = await host.seal(write, outcome, at, head);
      head = { sequence: audit.sequence, hash: audit.hash };
      after = { state: outcome.state, growth: (after?.growth ?? 0) + outcome.growth };
      staged.push({ write, at, outcome, audit, jobs: host.jobsOf(outcome, at) });
    } catch (err) {
      write.answer.reject(err);
    }
  }
  const { durable, failure } = await persist(host, staged);
  let applied = 0;
  // From the first write that did not land on, nothing stands: neither a write nor an empty one after it.
  let broken = false;
  for (const { write, at, outcome, audit, jobs } of staged) {
    if (outcome && audit && applied === durable) broken = true;
    if (broken) {
      write.answer.reject(failure);
      continue;
    }
    if (outcome && audit) {
      host.apply(write, outcome, audit, at, jobs);
      applied++;
    }
    try {
      write.answer.resolve(await host.answer(write, outcome?.result ?? null));
    } catch (err) {
      write.answer.reject(err);
    }
  }
}

/**
 * Writes staged commits durably, in order: in one atomic write, or one by one
 * when they do not fit one. `durable`: how many landed (the first ones);
 * `failure`: why the rest did not.
 */
async function persist(
  host: BatchHost,
  staged: StagedWrite[],
): Promise<{ durable: number; failure?: unknown }> {
  const max = host.historyMaxEntries;
  // Each commit's history: the runtime's and the batch's writes before it. Its checkpoint is taken from it
  // at once (one entry read), so one list serves the whole batch.
  const history = max > 0 ? host.runtime().history.slice(-max) : [];
  const commits: CommitRecord[] = [];
  for (const { write, at, outcome, audit, jobs } of staged) {
    if (!outcome || !audit) continue;
    const point = checkpointOf(history, outcome.state, at, max);
    commits.push({
      entry: { at, source: write.source, request: write.request },
      states: { current: () => toPersisted(outcome.state), checkpoint: () => point },
      audit,
      jobs: { put: jobs },
    });
    if (max > 0) history.push({ at, state: outcome.state });
  }
  if (!commits.length) return { durable: 0 };
  const { store, modelId } = host;
  try {
    await store.commitMany!(modelId, commits);
    return { durable: commits.length };
  } catch (err) {
    if (!(err instanceof BatchTooLargeError)) return { durable: 0, failure: err };
  }
  let durable = 0;
  try {
    for (const { entry, states, audit, jobs } of commits) {
      await store.commit(modelId, entry, states, audit, jobs);
      durable++;
    }
    return { durable };
  } catch (err) {
    return { durable, failure: err };
  }
}
