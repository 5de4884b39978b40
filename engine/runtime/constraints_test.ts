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

Deno.test("a write at a constraint's path checks it, though its expression reads no field there", async () => {
  const { runtime } = await runtimeOf({
    id: "deadline",
    schema: {
      type: "object",
      properties: {
        submission: { type: "string" },
        note: { type: "string" },
        rows: { type: "array", items: { type: "object", properties: { qty: { type: "number" } } } },
      },
    },
    constants: { deadline: 0, open: false },
    constraints: [
      {
        id: "closed",
        path: "$.submission",
        expr: "$millis() < $const.deadline",
        message: "closed",
        policy: "rollback",
      },
      { id: "rows", path: "$.rows[*]", expr: "$const.open", message: "rows closed", policy: "flag" },
    ],
  });
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.submission": "late" }),
        "constraint_violation",
        /closed/,
      ),
  );
  const other = await commitMutation(runtime, { "$.note": "n", "$.rows": [{ qty: 1 }, { qty: 2 }] });
  assert.deepEqual(other!.flaggedConstraints.map((c) => c.constraintId), ["rows"]);
  assert.equal(other!.traces.filter((t) => t.targetPath === "$constraint:rows").length, 2);
  const one = await commitMutation(runtime, { "$.rows[1].qty": 3 });
  assert.equal(
    one!.traces.filter((t) => t.targetPath === "$constraint:rows").length,
    1,
    "only the written row",
  );
  const graph = runtime.model.graph;
  assert.ok(graph.edges.some((e) => e.from === "$.submission" && e.to === "$constraint:closed"));
});

Deno.test("a global constraint reading no field, or the clock, is checked after every change", async () => {
  const { runtime, clock } = await runtimeOf({
    id: "clocked",
    schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
    constants: { deadline: Date.parse("2024-01-02T00:00:00Z") },
    constraints: [
      { id: "open", expr: "$millis() < $const.deadline", message: "closed", policy: "rollback" },
      { id: "aLate", expr: "a = 1 or $millis() < $const.deadline", message: "a must be 1", policy: "flag" },
      { id: "bOnly", expr: "$not(b = 5)", message: "b is not 5", policy: "flag" },
    ],
  });
  const before = await commitMutation(runtime, { "$.b": 5 });
  assert.deepEqual(before!.traces.map((t) => t.targetPath), [
    "$constraint:open",
    "$constraint:aLate",
    "$constraint:bOnly",
  ]);
  clock.advance(2 * 24 * 3600 * 1000);
  await assertUntouched(
    runtime,
    () => rejectsWith(() => runtime.evaluateMutation({ "$.b": 1 }), "constraint_violation", /closed/),
  );
  assert.deepEqual(runtime.explain("$constraint:aLate").at(-1)!.constraintPassed, false);
  assert.equal(await runtime.evaluateMutation({}), null, "a write of nothing checks nothing");
});

Deno.test("a global clock constraint is checked once in a cycle where an effect writes its status", async () => {
  const { runtime, clock } = await runtimeOf({
    id: "clocked-effect",
    schema: { type: "object", properties: { go: { type: "boolean" }, b: { type: "number" } } },
    constants: { deadline: Date.parse("2024-01-02T00:00:00Z") },
    constraints: [
      { id: "late", expr: "$millis() < $const.deadline", message: "late", policy: "flag" },
      { id: "status", expr: "$not(io.fx.phase = 'pending') or b = 1", message: "b is not 1", policy: "flag" },
      {
        id: "lateStatus",
        expr: "$millis() < $const.deadline or $not(io.fx.phase = 'pending')",
        message: "late and pending",
        policy: "flag",
      },
    ],
    effects: [{ id: "fx", executor: "timer", trigger: "go", afterMs: "1000", statusPath: "$.io.fx" }],
  });
  clock.advance(2 * 24 * 3600 * 1000);
  const result = await commitMutation(runtime, { "$.go": true });
  assert.ok(result!.mutatedPaths.includes("$.io.fx"), "the effect fired and wrote its status");
  assert.deepEqual(result!.flaggedConstraints.map((c) => c.constraintId), ["late", "status", "lateStatus"]);
  const checked = result!.traces.filter((t) => t.targetPath.startsWith("$constraint:"));
  assert.deepEqual(
    checked.filter((t) => t.targetPath === "$constraint:late").length,
    1,
    "the status document changes nothing the clock constraint reads",
  );
  assert.deepEqual(
    checked.filter((t) => t.targetPath === "$constraint:lateStatus").map((t) => t.constraintPassed),
    [true, false],
    "one reading the status document is checked again",
  );
});

Deno.test("a global constraint reading only through a built-in the library lends is checked after every change, its status document's too", async () => {
  const { runtime, model } = await runtimeOf({
    id: "lent",
    schema: { type: "object", properties: { go: { type: "boolean" }, b: { type: "number" } } },
    library: '( $str := function() { $string }; ["str"] )',
    constraints: [
      { id: "b", expr: "b.($str()()) != '5'", message: "b is 5", policy: "flag" },
      { id: "doc", expr: "$not($contains($str()(), 'pending'))", message: "pending", policy: "flag" },
    ],
    effects: [{ id: "fx", executor: "timer", trigger: "go", afterMs: "1000", statusPath: "$.io.fx" }],
  });
  // The check that sets everyChange sees no read here: it errs towards checking more often.
  assert.deepEqual(model.graph.constraints.map((node) => node.everyChange), [true, true]);
  const b = await commitMutation(runtime, { "$.b": 5 });
  assert.deepEqual(b!.flaggedConstraints.map((c) => c.constraintId), ["b"]);
  const go = await commitMutation(runtime, { "$.go": true, "$.b": 1 });
  assert.ok(go!.mutatedPaths.includes("$.io.fx"), "the effect fired and wrote its status");
  assert.deepEqual(
    go!.flaggedConstraints.map((c) => c.constraintId),
    ["doc"],
    "checked again after the status",
  );
});

Deno.test("constraints answered by the interpreter (a wait inside the cycle) and at once pass and fail alike", async () => {
  const { runtime } = await runtimeOf({
    id: "mixed-constraints",
    schema: { type: "object", properties: { rows: { type: "array", items: { type: "object" } } } },
    constraints: [
      // A lambda: outside the compiled subset, so the interpreter's.
      {
        id: "interpreted",
        path: "$.rows[*]",
        expr: "$map([$parent.qty], function($q) { $q <= 10 })[0]",
        message: "row qty at most 10",
        policy: "rollback",
      },
      {
        id: "compiled",
        path: "$.rows[*]",
        expr: "$parent.qty >= 0",
        message: "qty not negative",
        policy: "flag",
      },
    ],
  });
  const passed = await commitMutation(runtime, { "$.rows": [{ qty: 1 }, { qty: 10 }] });
  assert.deepEqual(passed!.traces.map((t) => [t.targetPath, t.constraintPassed]), [
    ["$constraint:interpreted", true],
    ["$constraint:interpreted", true],
    ["$constraint:compiled", true],
    ["$constraint:compiled", true],
  ]);
  await rejectsWith(
    () => runtime.evaluateMutation({ "$.rows[1].qty": 11 }),
    "constraint_violation",
    /row qty at most 10/,
  );
  const flagged = await commitMutation(runtime, { "$.rows[0].qty": -1 });
  assert.deepEqual(flagged!.flaggedConstraints.map((v) => v.constraintId), ["compiled"]);
});
