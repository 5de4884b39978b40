import assert from "node:assert/strict";
import { compileValid, ManualClock, testConfig, withBrowserProtoAccessor } from "../_test_utils.ts";
import type { TestCase } from "../model/types.ts";
import type { RuntimeEnv } from "./runtime.ts";
import { isMetaExpectation, runTestCase, runTests, sameValue, verify } from "./testing.ts";

const env: RuntimeEnv = { config: testConfig(), clock: new ManualClock() };

const SPEC = {
  id: "calc",
  schema: {
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number", minimum: 0 }, flag: { type: "boolean" } },
  },
  defaultValues: [{ path: "$", expr: "{'a': 1}" }],
  derivations: [
    { path: "$.sum", expr: "a + b" },
    { path: "$.tenth", expr: "0.1 + 0.2" },
    { path: "$.list", expr: "[a, b]" },
    { path: "$.stamp", expr: "$now()" },
  ],
  metaDerivations: [{ path: "$.b", property: "maximum", expr: "a * 10" }],
  constraints: [{ id: "small", expr: "sum < 100", message: "sum below 100", policy: "rollback" }],
};

const run = (tests: TestCase[], extra: Record<string, unknown> = {}) =>
  runTests(compileValid({ ...SPEC, ...extra, tests }), env);

Deno.test("sameValue compares numbers by value, arrays and objects deeply", () => {
  assert.equal(sameValue(0.1 + 0.2, 0.3), true);
  assert.equal(sameValue(1, 1.0), true);
  assert.equal(sameValue(1, 1.001), false);
  assert.equal(sameValue([0.30000000000000004], [0.3]), true);
  assert.equal(sameValue({ x: 0.30000000000000004 }, { x: 0.3 }), true);
  assert.equal(sameValue({ x: 1 }, { x: 1, y: 2 }), false);
  assert.equal(sameValue("1", 1), false);
  assert.equal(isMetaExpectation({ $meta: {} }), true);
  assert.equal(isMetaExpectation({ meta: {} }), false);
});

Deno.test("each case runs in a fresh runtime with defaults applied and given as one mutation", async () => {
  const result = await run([
    { description: "first", given: { "$.b": 2 }, expect: { "$.sum": 3 } },
    { description: "second sees no state of the first", given: {}, expect: { "$.b": null, "$.a": 1 } },
  ]);
  assert.deepEqual(result.cases.map((c) => [c.description, c.passed, c.error]), [
    ["first", true, null],
    ["second sees no state of the first", true, null],
  ]);
  assert.deepEqual(
    {
      passed: result.passed,
      total: result.total,
      passedCount: result.passedCount,
      failedCount: result.failedCount,
    },
    { passed: true, total: 2, passedCount: 2, failedCount: 0 },
  );
});

Deno.test("numbers compare by value; an expected null matches an absent field", async () => {
  const result = await run([{ given: {}, expect: { "$.tenth": 0.3, "$.missing": null, "$.list": [1] } }]);
  assert.equal(result.cases[0].passed, true, JSON.stringify(result.cases[0].failures));
});

Deno.test("failures name the address, the expected and the actual value", async () => {
  const result = await run([{ given: { "$.b": 2 }, expect: { "$.sum": 4, "$.nothing": 1 } }]);
  const [c] = result.cases;
  assert.equal(c.passed, false);
  assert.deepEqual(c.failures.map((f) => [f.path, f.expected, f.actual]), [["$.sum", 4, 3], [
    "$.nothing",
    1,
    null,
  ]]);
  assert.equal(c.failures[0].message, "$.sum: expected 4, got 3");
  assert.equal(c.failures[1].message, "$.nothing: absent, expected 1");
  assert.deepEqual(c.actual, { "$.sum": 3, "$.nothing": null });
  assert.equal(result.passed, false);
  assert.equal(result.failedCount, 1);
});

Deno.test("$meta expectations are checked against the effective schema", async () => {
  const result = await run([
    { given: { "$.a": 2 }, expect: { "$.b": { $meta: { maximum: 20, minimum: 0, relevant: null } } } },
    {
      given: { "$.a": 2 },
      expect: { "$.b": { $meta: { maximum: 21 } }, "$.sum": { $meta: { readOnly: true } } },
    },
  ]);
  assert.equal(result.cases[0].passed, true, JSON.stringify(result.cases[0].failures));
  assert.deepEqual(result.cases[0].actual["$.b"], { $meta: { maximum: 20, minimum: 0, relevant: null } });
  assert.deepEqual(result.cases[1].failures.map((f) => f.path), ["$.b#maximum"]);
});

Deno.test("$meta expectations name own schema members only, __proto__ under a browser's accessor too", async () => {
  const tests: TestCase[] = JSON.parse(
    '[{"given": {}, "expect": {"$.b": {"$meta": {"__proto__": null, "toString": null}}}}]',
  );
  const result = await withBrowserProtoAccessor(() => run(tests));
  assert.equal(result.cases[0].passed, true, JSON.stringify(result.cases[0].failures));
  assert.equal(JSON.stringify(result.cases[0].actual["$.b"]), '{"$meta":{"__proto__":null,"toString":null}}');
});

Deno.test("a rejected given fails the case with the reason", async () => {
  const result = await run([
    { given: { "$.b": -1 }, expect: {} },
    { given: { "$.b": 500 }, expect: {} },
    { given: { "$.a": 95, "$.b": 5 }, expect: {} },
  ]);
  assert.deepEqual(result.cases.map((c) => c.passed), [false, false, false]);
  assert.match(result.cases[0].error!, /^given was rejected: Schema violation: \$\.b \(minimum\)/);
  assert.match(result.cases[1].error!, /\$\.b \(maximum\)/);
  // A case has no body: the rollback's text names the constraint, as the 409 body does.
  assert.equal(result.cases[2].error, "given was rejected: Constraint violated (small): sum below 100");
});

Deno.test("a given several rollback constraints refuse names each, in the console's form", async () => {
  const result = await run([{ given: { "$.a": 95, "$.b": 5 }, expect: {} }], {
    constraints: [
      ...SPEC.constraints,
      { id: "tiny", expr: "sum < 10", message: "sum below 10", policy: "rollback" },
    ],
  });
  assert.equal(
    result.cases[0].error,
    "given was rejected: 2 constraints violated (small, tiny): [sum below 100, sum below 10]",
  );
});

Deno.test("runTestCase reports a malformed expect address as a failure", async () => {
  const model = compileValid(SPEC);
  const result = await runTestCase(model, env, { given: {}, expect: { "a": 1 } });
  assert.equal(result.passed, false);
  assert.match(result.failures[0].message, /unrooted/);
});

Deno.test("verification: green when every checkable assertion passes", async () => {
  const model = compileValid({
    ...SPEC,
    version: "1.2.3",
    tests: [{ description: "sum", given: { "$.b": 2 }, expect: { "$.sum": 3 } }],
  });
  const report = await verify(model, env);
  assert.deepEqual(report, {
    modelId: "calc",
    specVersion: "1.2.3",
    state: "green",
    checkedCount: 1,
    passedCount: 1,
    unverifiableCount: 0,
    cases: [{
      description: "sum",
      verifiable: true,
      passed: true,
      given: { "$.b": 2 },
      expect: { "$.sum": 3 },
      actual: { "$.sum": 3 },
      reason: null,
    }],
  });
});

Deno.test("verification: amber when a checked case fails (including a rejected given)", async () => {
  const model = compileValid({
    ...SPEC,
    tests: [
      { given: { "$.b": 2 }, expect: { "$.sum": 3 } },
      { given: { "$.b": 2 }, expect: { "$.sum": 99 } },
      { given: { "$.b": -5 }, expect: { "$.list": [1, -5] } },
    ],
  });
  const report = await verify(model, env);
  assert.equal(report.state, "amber");
  assert.equal(report.checkedCount, 3);
  assert.equal(report.passedCount, 1);
  assert.equal(report.unverifiableCount, 0);
  assert.equal(report.cases[1].reason, "$.sum: expected 99, got 3");
  assert.equal(report.cases[2].verifiable, true);
  assert.match(report.cases[2].reason!, /given was rejected/);
});

Deno.test("verification: neutral when nothing is auto-checkable (arrays, objects, $meta, clock values)", async () => {
  const model = compileValid({
    ...SPEC,
    tests: [
      { given: { "$.b": 2 }, expect: { "$.list": [1, 2] } },
      { given: { "$.b": 2 }, expect: { "$.b": { $meta: { maximum: 10 } } } },
      { given: {}, expect: { "$.stamp": "2024-01-01T00:00:00.000Z" } },
    ],
  });
  const report = await verify(model, env);
  assert.equal(report.state, "neutral");
  assert.equal(report.checkedCount, 0);
  assert.equal(report.unverifiableCount, 3);
  for (const c of report.cases) {
    assert.equal(c.verifiable, false);
    assert.equal(c.passed, false);
    assert.match(c.reason!, /no auto-checkable assertion/);
  }
  assert.equal((await verify(compileValid(SPEC), env)).state, "neutral", "no tests at all");
});

Deno.test("verification: a case with one checkable assertion is checked on that one only", async () => {
  const model = compileValid({
    ...SPEC,
    tests: [{ given: { "$.b": 2 }, expect: { "$.sum": 3, "$.list": [9] } }],
  });
  const report = await verify(model, env);
  assert.equal(report.state, "green");
  assert.deepEqual(report.cases[0].actual, { "$.sum": 3 });
  assert.deepEqual(
    report.cases[0].expect,
    { "$.sum": 3, "$.list": [9] },
    "the report shows the full expectation",
  );
});

Deno.test("verification: values computed from the clock or chance through other fields are not auto-checked", async () => {
  const model = compileValid({
    id: "clocked",
    schema: { type: "object", properties: { a: { type: "number" } } },
    defaultValues: [
      { path: "$", expr: "{'opened': $millis(), 'state': 'new'}" },
      { path: "$.box", expr: "$merge([{'at': $now()}])" },
    ],
    derivations: [
      { path: "$.t", expr: "$millis()" },
      { path: "$.parity", expr: "t % 2" },
      { path: "$.late", expr: "parity = 1 ? 'odd' : 'even'" },
      { path: "$.age", expr: "opened > 0" },
      { path: "$.pick", expr: "$count($shuffle([a, 1]))" },
      { path: "$.plain", expr: "a + 1" },
    ],
    tests: [
      { description: "through t", given: { "$.a": 1 }, expect: { "$.parity": 0, "$.late": "even" } },
      { description: "default", given: { "$.a": 1 }, expect: { "$.opened": 0, "$.age": true } },
      { description: "box", given: { "$.box.x": 1 }, expect: { "$.box.at": "x" } },
      { description: "chance", given: { "$.a": 1 }, expect: { "$.pick": 2 } },
      {
        description: "plain",
        given: { "$.a": 1 },
        expect: { "$.plain": 2, "$.state": "new", "$.parity": 1 },
      },
    ],
  });
  const report = await verify(model, env);
  assert.deepEqual(report.cases.map((c) => c.verifiable), [false, false, false, false, true]);
  assert.deepEqual(
    report.cases[4].actual,
    { "$.plain": 2, "$.state": "new" },
    "only the plain ones are checked",
  );
  assert.equal(report.state, "green");
});

Deno.test("sameValue: within 1e-9 times the expected value's magnitude, and 1e-9 below magnitude 1", () => {
  assert.equal(sameValue(0.1 + 0.2 - 0.3, 0), true, "a sum that should cancel");
  assert.equal(sameValue(1000.000001 - 1000, 0.000001), true, "cancellation in a small result");
  assert.equal(sameValue(9e-10, 0), true);
  assert.equal(sameValue(-9e-10, 0), true);
  assert.equal(sameValue(2e-9, 0), false);
  assert.equal(sameValue(5e-10, 1e-12), true, "below magnitude 1 the tolerance is absolute");
  assert.equal(sameValue(3e-9, 1e-12), false);
  assert.equal(sameValue(1e12 + 900, 1e12), true, "relative from magnitude 1 up");
  assert.equal(sameValue(1e12 - 1100, 1e12), false);
  assert.equal(sameValue(-1e12 - 900, -1e12), true);
  assert.equal(sameValue(5, 4), false);
  assert.equal(sameValue(1, "1"), false);
});

Deno.test("a given refused by an error that is not a ServiceError is reported with its message cut", async () => {
  // The given is read once the case's runtime exists: from then on the clock fails with a 100 KB message.
  const clock = new ManualClock();
  let failing = false;
  clock.now = () => {
    if (failing) throw new TypeError("x".repeat(100_000));
    return clock.current;
  };
  const test = {
    get given() {
      failing = true;
      return { "$.b": 1 };
    },
    expect: {},
  };
  const result = await runTestCase(compileValid(SPEC), { config: testConfig(), clock }, test);
  assert.equal(result.passed, false);
  assert.equal(result.error, `given was rejected: TypeError: ${"x".repeat(200)}… (100000 characters)`);
});
