/**
 * Settling a job against the model as it is now (DECISIONS.md "Effects"):
 * compare-and-swap on the effect's trigger and `dedupeKey`.
 *
 * | now                                    | verdict    | written                                   |
 * | -------------------------------------- | ---------- | ----------------------------------------- |
 * | effect removed, or trigger false       | cancelled  | status `cancelled`, key reset             |
 * | key changed, or status kept elsewhere   | superseded | own status cleared, which re-fires it     |
 * | status document rewritten meanwhile    | superseded | nothing                                   |
 * | otherwise, executor succeeded          | current    | `response.set` values + status `applied`  |
 * | otherwise, executor failed for good    | current    | status `failed` with the error            |
 *
 * The writes are one mutation: source `foldback` when it carries the
 * executor's result, `client` for a phase change (DECISIONS.md). A
 * `response.set` expression that fails throws the 422 naming it, which the
 * service records as the job's failure, as it records a refused write.
 *
 * @module
 */
import { unprocessable } from "../errors.ts";
import type { ExpressionCompiler } from "../expr/compiler.ts";
import { clockBindings } from "../expr/clock.ts";
import { withRegexEngine } from "../expr/re2.ts";
import { formatPath, parseConcretePath, pathOrNull } from "../json/path.ts";
import { isObject, type Json, jsonEqual } from "../json/value.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { EffectNode } from "../model/nodes.ts";
import { getAt } from "../json/document.ts";
import type { InheritedEffectsPolicy } from "../config.ts";
import { effectGate, type EffectPhase, statusDocument } from "../runtime/effects.ts";
import { truthy } from "../runtime/truthy.ts";
import type { ExecutorOutcome, PartOutcome } from "./executor.ts";
import { type EffectJob, sentShape } from "./job.ts";

/** How a job relates to the model now. */
export type Verdict = "current" | "cancelled" | "superseded";

/** What settling a job writes. */
export interface Settlement {
  verdict: Verdict;
  /** One mutation (address -> value); empty when nothing is written. */
  writes: Record<string, Json>;
  source: "foldback" | "client";
  /** How the job ended, for metrics and logs. */
  phase: EffectPhase | "superseded";
}

/** What a settlement is computed with. */
export interface SettleContext {
  model: CompiledModel;
  /** The merged document now (lazy derivations evaluated). */
  doc: Json;
  /** The instant of the settling commit. */
  at: number;
  /** For a fan-out's `set` expressions, which are data, not spec. */
  compiler: ExpressionCompiler;
}

/** What settling a job reads besides: the host's `svc.authz.inherited-effects`. */
export interface JobContext extends SettleContext {
  policy: InheritedEffectsPolicy;
}

/** The effect's node in the current model, if it still has one. */
export function effectNode(model: CompiledModel, effectId: string): EffectNode | undefined {
  return model.graph.effects.find((node) => node.effect.definition.id === effectId);
}

type Evaluable = { evaluate(input: Json, bindings: Record<string, unknown>): Promise<Json | undefined> };

function evaluate(compiled: Evaluable, ctx: SettleContext, extra: Record<string, unknown> = {}) {
  return compiled.evaluate(ctx.doc, { ...ctx.model.bindings.base, ...clockBindings(ctx.at), ...extra });
}

/** A trigger's or key's value now; one that fails reads as none (the job then stands cancelled or superseded). */
async function value(compiled: Evaluable, ctx: SettleContext): Promise<Json | undefined> {
  try {
    return await evaluate(compiled, ctx);
  } catch {
    return undefined;
  }
}

/**
 * A value to fold back (undefined: its target is not written). A failure
 * refuses the whole fold-back, as it refuses any write, naming the expression.
 */
async function foldedValue(
  compiled: Evaluable,
  what: string,
  ctx: SettleContext,
  extra: Record<string, unknown>,
): Promise<Json | undefined> {
  try {
    return await evaluate(compiled, ctx, extra);
  } catch (err) {
    throw unprocessable(`Evaluation of ${what} failed: ${(err as Error).message}`);
  }
}

/**
 * How a job stands now: cancelled (effect gone, quarantined, or trigger
 * false), superseded (its key changed, its effect now keeps its status
 * elsewhere, or its status document was rewritten since the job wrote it), or
 * current. Quarantined: a job fired before its effect waited for an approval
 * (or the host denied it) is not sent.
 */
export async function verdictOf(job: EffectJob, ctx: JobContext): Promise<Verdict> {
  const node = effectNode(ctx.model, job.effectId);
  if (
    !node || effectGate(node.effect.definition, ctx.model.id, ctx.policy) !== "run" ||
    !truthy(await value(node.compiled, ctx))
  ) return "cancelled";
  const key = node.effect.dedupeKey ? (await value(node.effect.dedupeKey, ctx)) ?? null : null;
  if (!jsonEqual(key, job.key)) return "superseded";
  const statusPath = node.effect.statusPath && formatPath(node.effect.statusPath);
  if (statusPath !== (job.statusPath && formatPath(pathOf(job.statusPath)))) return "superseded";
  // An evolution changed what the effect sends (its URL fixed, say): the job's request is no longer the spec's.
  if (job.shape !== undefined && job.shape !== sentShape(node.effect.definition)) return "superseded";
  return job.statusPath && !ownsStatus(job, ctx.doc) ? "superseded" : "current";
}

/**
 * Whether the job's status document is still the one it wrote last: pending
 * or in flight, its key, its instant. A re-fire (the status document cleared
 * meanwhile) writes a new one, which belongs to the new job.
 */
export function ownsStatus(job: EffectJob, doc: Json): boolean {
  const status = job.statusPath && getAt(doc, pathOf(job.statusPath));
  return isObject(status) && (status.phase === "pending" || status.phase === "in_flight") &&
    jsonEqual(status.key ?? null, job.key) &&
    // Jobs stored before their instant was kept recognise any live document with their key.
    (job.statusAt === undefined || status.at === new Date(job.statusAt).toISOString());
}

/** A job's status address, written from its effect's (concrete) `statusPath`. */
function pathOf(address: string) {
  const path = pathOrNull(address);
  if (!path) throw new Error(`bad status address ${address}`);
  return path;
}

/**
 * What settling `job` writes, given its executor's `outcome`; `null` asks only
 * whether the job still stands (an evolution re-checks outstanding jobs).
 */
export async function settlement(
  job: EffectJob,
  outcome: ExecutorOutcome | null,
  ctx: JobContext,
): Promise<Settlement | null> {
  const verdict = await verdictOf(job, ctx);
  const status = job.statusPath;
  if (verdict === "cancelled") {
    return {
      verdict,
      writes: status ? { [status]: statusDocument("cancelled", null, ctx.at) } : {},
      source: "client",
      phase: "cancelled",
    };
  }
  if (verdict === "superseded") {
    // Clearing its own status document re-arms the effect: the write's cycle fires it for the latest value.
    // A document rewritten meanwhile is left alone: it is another job's, or the caller's.
    const rearm = status && ownsStatus(job, ctx.doc);
    return { verdict, writes: rearm ? { [status]: null } : {}, source: "client", phase: "superseded" };
  }
  if (!outcome) return null;
  if (!outcome.ok) {
    return {
      verdict,
      writes: status ? { [status]: statusDocument("failed", job.key, ctx.at, outcome.error) } : {},
      source: "client",
      phase: "failed",
    };
  }
  const node = effectNode(ctx.model, job.effectId)!;
  const { response } = outcome;
  const writes = await responseWrites(node, response, outcome.status, ctx);
  // A 2xx that is not JSON (an HTML page from a proxy or a login wall) where response.set reads fields
  // leaves them as they were, yet is applied: the status document says so, or nobody would know.
  const unwritten = typeof response == "string" && job.work.type == "http"
    ? node.effect.responseSet.map(([target]) => formatPath(target)).filter((address) => !(address in writes))
    : [];
  if (outcome.parts && job.work.type === "http") await foldParts(job, outcome.parts, ctx, writes);
  if (status) {
    writes[status] = statusDocument(
      "applied",
      job.key,
      ctx.at,
      unwritten.length
        ? `warning: the answer is not JSON (it begins ${
          JSON.stringify(String(response).trim().slice(0, 40))
        }): ` +
          `response.set left ${unwritten.join(", ")} as it was`
        : null,
    );
  }
  return { verdict, writes, source: "foldback", phase: "applied" };
}

/**
 * The effect's `response.set`, evaluated with `$response` and `$status`
 * (undefined values are not written); an expression that fails throws the 422
 * naming it.
 */
export async function responseWrites(
  node: EffectNode,
  response: Json,
  status: number | null,
  ctx: SettleContext,
): Promise<Record<string, Json>> {
  const writes: Record<string, Json> = {};
  const effectId = node.effect.definition.id;
  for (const [target, compiled] of node.effect.responseSet) {
    const address = formatPath(target);
    const what = `response.set ${address} of effect '${effectId}'`;
    const result = await foldedValue(compiled, what, ctx, { response, status });
    if (result !== undefined) writes[address] = result;
  }
  return writes;
}

/** A fan-out's own `set` values and status documents, request by request. */
async function foldParts(
  job: EffectJob,
  parts: readonly PartOutcome[],
  ctx: SettleContext,
  writes: Record<string, Json>,
): Promise<void> {
  if (job.work.type !== "http") return;
  for (const [i, part] of parts.entries()) {
    const descriptor = job.work.requests[i];
    if (!descriptor) continue;
    const key = descriptor.dedupeKey ?? null;
    if (part.ok) {
      for (const [address, source] of Object.entries(descriptor.set ?? {})) {
        const target = parseConcretePath(address);
        if (!target.ok) continue;
        const what = `set ${address} of request ${i} of effect '${job.effectId}'`;
        // A fan-out request's own expressions, made at run time: RE2 may not be loaded for them yet.
        const compiled = await withRegexEngine(() => ctx.compiler.compile(source)).catch((err) => {
          throw unprocessable(`Expression of ${what} does not compile: ${(err as Error).message}`);
        });
        const result = await foldedValue(compiled, what, ctx, {
          response: part.response,
          status: part.status,
        });
        if (result !== undefined) writes[formatPath(target.path)] = result;
      }
    }
    if (descriptor.statusPath && parseConcretePath(descriptor.statusPath).ok) {
      writes[descriptor.statusPath] = part.ok
        ? statusDocument("applied", key, ctx.at)
        : statusDocument("failed", key, ctx.at, part.error);
    }
  }
}
