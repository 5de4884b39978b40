/**
 * Status documents that hold their effect back with nothing left to release
 * them, found after a restore and at startup, and the writes that re-arm
 * those effects (DECISIONS.md "Effects").
 *
 * @module
 */
import { getAt } from "../json/document.ts";
import { formatPath } from "../json/path.ts";
import { isObject, type Json } from "../json/value.ts";
import type { CompiledModel } from "../model/compile.ts";
import { statusDocument } from "../model/status_document.ts";
import { ownsStatus } from "./foldback.ts";
import type { EffectJob } from "./job.ts";

/**
 * The writes that re-arm `model`'s effects whose status documents in `doc`
 * describe work nothing will finish: `pending` or `in_flight` with no
 * outstanding job of its own (it settled after a snapshot, or a process died
 * before its outbox kept it), and a watched read-link's `failed` (its watch is
 * armed only once it applies). Each becomes `cancelled` (key reset, so it
 * never holds back, and every status schema accepts it). `replaced`, the
 * state a restore replaced: a status document there that `doc` lacks is
 * cleared (null), its job's result no longer belonging to this state. Either
 * write's commit fires the effect again when its trigger holds.
 */
export function stuckStatuses(
  model: CompiledModel,
  doc: Json,
  jobs: Iterable<EffectJob>,
  at: number,
  replaced?: Json,
): Record<string, Json> {
  const writes: Record<string, Json> = {};
  const outstanding = [...jobs];
  for (const { effect } of model.graph.effects) {
    const path = effect.statusPath;
    if (!path) continue;
    const status = getAt(doc, path);
    if (status == null) {
      if (replaced !== undefined && getAt(replaced, path) != null) writes[formatPath(path)] = null;
      continue;
    }
    const phase = isObject(status) && status.phase;
    const stuck = phase === "pending" || phase === "in_flight" ||
      (phase === "failed" && !!effect.link?.read && effect.link.watch);
    if (stuck && !outstanding.some((job) => job.effectId === effect.definition.id && ownsStatus(job, doc))) {
      writes[formatPath(path)] = statusDocument("cancelled", null, at);
    }
  }
  return writes;
}
