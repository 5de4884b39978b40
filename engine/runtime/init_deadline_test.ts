/**
 * A model's first evaluation runs every expression of the spec once, so its
 * deadline grows with their number (runtime.ts `INIT_EXPRESSIONS_PER_DEADLINE`):
 * a large valid spec is created on a slow machine, a hostile expression still
 * fails the create.
 */
import assert from "node:assert/strict";
import { largeSpec, rejectsWith, serviceOf } from "../_test_utils.ts";

Deno.test("a large spec's first evaluation gets a deadline per thousand expressions", async () => {
  const { service } = await serviceOf({ expressionTimeoutMs: 1000 });
  // A machine where every clock reading costs half a millisecond: the first evaluation reads the clock
  // about once a derivation, so 4,000 of them take about 2 s, over one deadline and within four.
  const real = Date.now;
  let now = real();
  Date.now = () => now += 0.5;
  try {
    await service.createModel(largeSpec("big", 4000));
  } finally {
    Date.now = real;
  }
  assert.equal((await service.getSpec("big")).derivations?.length, 4000);
});

Deno.test("a hostile expression still fails a large spec's create at its deadline", async () => {
  const { service } = await serviceOf({ expressionTimeoutMs: 50 });
  const endless = "($f := function($n) { $n < 0 ? 0 : $f($n + 1) }; $f(0))";
  await rejectsWith(() => service.createModel(largeSpec("big", 1500, endless)), "validation_failed", /D1012/);
  assert.deepEqual(await service.listModels(), []);
});
