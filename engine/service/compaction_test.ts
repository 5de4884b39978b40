import assert from "node:assert/strict";
import { foldPoint } from "./compaction.ts";
import type { CommitStates, PersistedState } from "./ports.ts";

const STATE: PersistedState = { doc: { qty: 1 }, meta: [], stale: [] };

/** Commit states whose checkpoint keeps the newest `following` entries; counts the checkpoints built. */
function statesFollowedBy(following: number): CommitStates & { checkpoints: number } {
  const states = {
    checkpoints: 0,
    current: () => STATE,
    checkpoint: () => {
      states.checkpoints++;
      return { at: 7, following, state: () => STATE };
    },
  };
  return states;
}

Deno.test("foldPoint: below the threshold nothing is folded and no checkpoint is built", () => {
  const states = statesFollowedBy(1);
  assert.equal(foldPoint(2, 3, states), null);
  assert.equal(states.checkpoints, 0);
});

Deno.test("foldPoint: at the threshold, entries the retained history follows are not foldable", () => {
  // 4 entries, the newest 2 follow the checkpoint: 2 foldable, fewer than 3.
  assert.equal(foldPoint(4, 3, statesFollowedBy(2)), null);
});

Deno.test("foldPoint: once threshold entries are foldable, the checkpoint replaces the oldest of them", () => {
  const fold = foldPoint(5, 3, statesFollowedBy(2));
  assert.equal(fold?.folded, 3);
  assert.equal(fold?.point.at, 7);
  assert.equal(fold?.point.following, 2);
});
