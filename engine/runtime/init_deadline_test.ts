/**
 * A model's first evaluation runs every expression of the spec once, so its
 * deadline grows with their number (runtime.ts `INIT_EXPRESSIONS_PER_DEADLINE`):
 * a large valid spec is created on a slow machine, a hostile expression still
 * fails the create.
 */
import assert from "node:assert/strict";
import { rejectsWith, serviceOf } from "../_test_utils.ts";
import type { ModelSpec } from "../model/types.ts";

/** `count` derivations, each doubling its own input, the last one `last`. */
function spec(count: number, last = `in${count - 1} * 2`): ModelSpec {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) properties[`in${i}`] = { type: "number" };
  return {
    id: "big",
    schema: { type: "object", properties },
    derivations: Array.from({ length: count }, (_, i) => ({
      path: `$.out${i}`,
      expr: i === count - 1 ? last : `in${i} * 2`,
    })),
  } as ModelSpec;
}

Deno.test("a large spec's first evaluation gets a deadline per thousand expressions", async () => {
  const { service } = await serviceOf({ expressionTimeoutMs: 1000 });
  // A machine where every clock reading costs half a millisecond: the first evaluation reads the clock
  // about once a derivation, so 4,000 of them take about 2 s, over one deadline and within four.
  const real = Date.now;
  let now = real();
  Date.now = () => now += 0.5;
  try {
    await service.createModel(spec(4000));
  } finally {
    Date.now = real;
  }
  assert.equal((await service.getSpec("big")).derivations?.length, 4000);
});

Deno.test("a hostile expression still fails a large spec's create at its deadline", async () => {
  const { service } = await serviceOf({ expressionTimeoutMs: 50 });
  const endless = "($f := function($n) { $n < 0 ? 0 : $f($n + 1) }; $f(0))";
  await rejectsWith(() => service.createModel(spec(1500, endless)), "validation_failed", /D1012/);
  assert.deepEqual(await service.listModels(), []);
});
