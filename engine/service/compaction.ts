/**
 * The compaction rule every store keeping a write log shares (Deno KV, the
 * filesystem, PostgreSQL, IndexedDB): when it folds the log into a checkpoint.
 *
 * @module
 */
import type { Checkpoint, CommitStates } from "./ports.ts";
import type { HistoryEntry } from "../runtime/runtime.ts";
import type { ModelState } from "../runtime/results.ts";
import { toPersisted } from "./replay.ts";

/** A compaction: the checkpoint to fold into and how many of the oldest log entries it replaces. */
export interface Fold {
  point: Checkpoint;
  folded: number;
}

/**
 * Where a store keeping `length` log entries folds them (compaction): the
 * checkpoint and how many of the oldest entries it replaces; `null` until
 * `threshold` entries can be folded.
 */
export function foldPoint(length: number, threshold: number, states: CommitStates): Fold | null {
  if (length < threshold) return null;
  const point = states.checkpoint();
  const folded = length - point.following;
  return folded < threshold ? null : { point, folded };
}

/**
 * The checkpoint of a commit about to be applied: the oldest state history will
 * retain once `state` (committed at `at`) joins it, or `state` itself when
 * history is disabled.
 */
export function checkpointOf(
  // Only its newest `maxEntries - 1` entries are read: a runtime's history tail passes (see `historyTail`).
  history: readonly (HistoryEntry | undefined)[],
  state: ModelState,
  at: number,
  maxEntries: number,
): Checkpoint {
  if (maxEntries <= 0) return { at: null, following: 0, state: () => toPersisted(state) };
  // History keeps `kept` of its current entries next to the new one.
  const kept = Math.min(history.length, maxEntries - 1);
  if (kept === 0) return { at, following: 0, state: () => toPersisted(state) };
  const oldest = history[history.length - kept]!;
  return { at: oldest.at, following: kept, state: () => toPersisted(oldest.state) };
}
