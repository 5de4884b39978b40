import assert from "node:assert/strict";
import { commitMutation, rejectsWith, runtimeOf } from "../_test_utils.ts";

const EFFECTS = {
  id: "effects",
  schema: { type: "object", properties: { total: { type: "number" }, name: { type: "string" } } },
  effects: [
    {
      id: "bigOrder",
      executor: "caller",
      trigger: "total > 100",
      emit: "big-order",
      payload: { amount: "total", who: "name", missing: "nothing" },
    },
    { id: "ping", executor: "caller", trigger: "total > 100", payload: "{'doubled': total * 2}" },
    { id: "fetch", executor: "server", trigger: "total > 100", request: { url: "https://example.com" } },
    { id: "quiet", executor: "caller", trigger: "total < 0" },
  ],
};

Deno.test("caller effects whose trigger holds are listed as {effectId, emit, payload}; others are requests", async () => {
  const { runtime } = await runtimeOf(EFFECTS);
  const outcome = await runtime.evaluateMutation({ "$.total": 150, "$.name": "Ada" });
  assert.deepEqual(outcome!.result.dispatchedEffects, [
    { effectId: "bigOrder", emit: "big-order", payload: { amount: 150, who: "Ada" } },
    { effectId: "ping", emit: null, payload: { doubled: 300 } },
  ]);
  assert.deepEqual(outcome!.effectRequests.map((r) => [r.effectId, r.executor]), [["fetch", "server"]]);
  runtime.commit(outcome!);
  const quiet = await runtime.evaluateMutation({ "$.total": 50 });
  assert.deepEqual(quiet!.result.dispatchedEffects, []);
  assert.deepEqual(quiet!.effectRequests, []);
});

Deno.test("an effect is only considered when its trigger's inputs changed", async () => {
  const { runtime } = await runtimeOf(EFFECTS);
  await commitMutation(runtime, { "$.total": 150 });
  const unrelated = await commitMutation(runtime, { "$.name": "Bob" });
  assert.deepEqual(unrelated!.dispatchedEffects, []);
});

Deno.test("effects are not collected when a rollback constraint fails", async () => {
  const { runtime } = await runtimeOf({
    ...EFFECTS,
    constraints: [{ id: "cap", expr: "total < 1000", message: "cap", policy: "rollback" }],
  });
  const before = runtime.explain("$effect:bigOrder").length;
  await rejectsWith(() => runtime.evaluateMutation({ "$.total": 5000 }), "constraint_violation");
  assert.equal(runtime.explain("$effect:bigOrder").length, before, "no trigger was evaluated");
});

Deno.test("a write that re-arms an effect lists its status document once, and what the re-fire re-derives once", async () => {
  const { runtime } = await runtimeOf({
    id: "rearm",
    schema: {
      type: "object",
      properties: { go: { type: "boolean" }, note: { type: "string" }, io: { type: "object" } },
    },
    derivations: [{ path: "$.shown", expr: "$string(go) & ' ' & io.fx.phase" }],
    metaDerivations: [{ path: "$.note", property: "maxLength", expr: "$length(io.fx.phase)" }],
    effects: [{ id: "fx", executor: "timer", trigger: "go", afterMs: "1000", statusPath: "$.io.fx" }],
  });
  const fired = await commitMutation(runtime, { "$.go": true });
  assert.deepEqual([fired!.mutatedPaths, fired!.derivedUpdated, fired!.metaUpdated], [
    ["$.go", "$.io.fx"],
    ["$.shown"],
    ["$.note#max_length"],
  ]);
  const rearmed = await commitMutation(runtime, { "$.io.fx": null });
  assert.deepEqual([rearmed!.mutatedPaths, rearmed!.derivedUpdated, rearmed!.metaUpdated], [
    ["$.io.fx"],
    ["$.shown"],
    ["$.note#max_length"],
  ]);
  assert.equal(await runtime.readState().then((doc) => (doc as { shown: string }).shown), "true pending");
});
