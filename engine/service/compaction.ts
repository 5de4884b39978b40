/**
 * The compaction rule every store keeping a write log shares (Deno KV, the
 * filesystem, PostgreSQL, IndexedDB): when it folds the log into a checkpoint.
 *
 * @module
 */
import type { Checkpoint, CommitStates } from "./ports.ts";

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
