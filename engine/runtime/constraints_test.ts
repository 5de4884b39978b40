import assert from "node:assert/strict";
import { commitMutation, rejectsWith, runtimeOf } from "../_test_utils.ts";
import type { ModelRuntime } from "./runtime.ts";
import { assertUntouched } from "./test_support.ts";

const CONSTRAINED = {
  id: "constrained",
  schema: {
    type: "object",
    properties: {
      a: { type: "number" },
      b: { type: "number" },
      rows: { type: "array", items: { type: "object", properties: { qty: { type: "number" } } } },
    },
  },
  derivations: [{ path: "$.sum", expr: "a + b" }],
  constraints: [
    { id: "global", expr: "$not(sum > 100)", message: "sum must stay at most 100", policy: "rollback" },
    { id: "single", path: "$.a", expr: "$not(a < 0)", message: "a must not be negative", policy: "flag" },
    {
      id: "several",
      path: ["$.a", "$.b"],
      expr: "$not(a = b)",
      message: "a and b must differ",
      policy: "rollback",
    },
    {
      id: "perRow",
      path: "$.rows[*]",
      expr: "$parent.qty <= 10",
      message: "row qty at most 10",
      policy: "rollback",
    },
    { id: "broken", expr: "b = 13 ? $error('unlucky') : true", message: "b evaluates", policy: "rollback" },
  ],
};

async function constrainedRuntime(): Promise<ModelRuntime> {
  const { runtime } = await runtimeOf(CONSTRAINED);
  await commitMutation(runtime, { "$.a": 1, "$.b": 2, "$.rows": [{ qty: 1 }, { qty: 2 }] });
  return runtime;
}

Deno.test("rollback constraints: violation reverts everything, naming the constraints", async () => {
  const runtime = await constrainedRuntime();
  await assertUntouched(runtime, async () => {
    const err = await rejectsWith(
      () => runtime.evaluateMutation({ "$.a": 200 }),
      "constraint_violation",
      /^Constraint violated: sum must stay at most 100$/,
    );
    assert.deepEqual(err.body, {
      error: "Constraint violation",
      violations: [{ constraintId: "global", message: "sum must stay at most 100", policy: "rollback" }],
    });
    const two = await rejectsWith(
      () => runtime.evaluateMutation({ "$.a": 150, "$.b": 150 }),
      "constraint_violation",
    );
    assert.equal(two.message, "2 constraints violated: [sum must stay at most 100, a and b must differ]");
  });
  assert.deepEqual(await runtime.readState(), { a: 1, b: 2, sum: 3, rows: [{ qty: 1 }, { qty: 2 }] });
});

Deno.test("rollback leaves meta untouched too", async () => {
  const { runtime } = await runtimeOf({
    ...CONSTRAINED,
    metaDerivations: [{ path: "$.b", property: "maximum", expr: "a * 100" }],
  });
  await commitMutation(runtime, { "$.a": 1, "$.b": 2 });
  const meta = runtime.state.meta;
  await rejectsWith(() => runtime.evaluateMutation({ "$.a": 99 }), "constraint_violation");
  assert.equal(runtime.state.meta, meta);
  assert.equal(runtime.state.meta.get("$.b#maximum"), 100);
});

Deno.test("flag constraints commit and report {constraintId, message, policy}", async () => {
  const runtime = await constrainedRuntime();
  const result = await commitMutation(runtime, { "$.a": -1 });
  assert.deepEqual(result!.flaggedConstraints, [
    { constraintId: "single", message: "a must not be negative", policy: "flag" },
  ]);
  assert.equal(await runtime.readField("$.a"), -1);
});

Deno.test("per-element constraints run once per touched element", async () => {
  const runtime = await constrainedRuntime();
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.rows[1].qty": 11 }),
        "constraint_violation",
        /row qty at most 10/,
      ),
  );
  const result = await commitMutation(runtime, { "$.rows[1].qty": 10 });
  const rowTraces = result!.traces.filter((t) => t.targetPath === "$constraint:perRow");
  assert.equal(rowTraces.length, 1, "only the touched row was checked");
  assert.equal(rowTraces[0].constraintPassed, true);
});

Deno.test("a constraint whose evaluation fails counts as violated", async () => {
  const runtime = await constrainedRuntime();
  await assertUntouched(
    runtime,
    () => rejectsWith(() => runtime.evaluateMutation({ "$.b": 13 }), "constraint_violation", /b evaluates/),
  );
  const failed = runtime.explain("$constraint:broken").at(-1)!;
  assert.equal(failed.constraintPassed, false);
  assert.match(failed.errorMessage!, /unlucky/);
});

Deno.test("constraints untouched by the mutation are not evaluated", async () => {
  const runtime = await constrainedRuntime();
  const result = await commitMutation(runtime, { "$.rows[0].qty": 3 });
  assert.deepEqual(result!.traces.map((t) => t.targetPath), ["$constraint:perRow"]);
});
