import assert from "node:assert/strict";
import { ServiceError } from "../errors.ts";
import { DEFAULT_CONFIG } from "../config.ts";
import { localAuthoring } from "./authoring.ts";

const spec = {
  id: "t",
  schema: { type: "object", properties: { a: { type: "number" } } },
  derivations: [{ path: "$.b", expr: "a * 2" }],
  constraints: [{ id: "small", expr: "a < 10", message: "a too big", policy: "rollback" }],
  tests: [{ given: { "$.a": 2 }, expect: { "$.b": 4 } }],
};

Deno.test("eval_expression reports the value with its type, undefined distinct from null", async () => {
  const authoring = localAuthoring();
  assert.deepEqual(await authoring.evalExpression("a * 2", { a: 3 }), { result: 6, type: "number" });
  assert.deepEqual(await authoring.evalExpression("nothing", {}), { result: null, type: "undefined" });
  assert.deepEqual(await authoring.evalExpression("x", { x: null }), { result: null, type: "null" });
  assert.deepEqual(await authoring.evalExpression("$const.k", null, { k: [1] }), {
    result: [1],
    type: "array",
  });
  const err = await authoring.evalExpression("(", {}).catch((e) => e);
  assert.ok(err instanceof ServiceError);
  assert.equal(typeof err.body?.code, "string");
});

Deno.test("test_spec runs embedded or ad-hoc cases; dry_run applies steps without a registry", async () => {
  const authoring = localAuthoring();
  assert.equal((await authoring.testSpec(spec)).passed, true);
  const adHoc = await authoring.testSpec(spec, [{ given: { "$.a": 1 }, expect: { "$.b": 3 } }]);
  assert.equal(adHoc.passed, false);
  await assert.rejects(authoring.testSpec(spec, [{ given: 1 }]), /tests\[0\]\.given/);
  const dry = await authoring.dryRun(spec, [{ "$.a": 1 }, {}, { "$.a": 4 }]);
  assert.deepEqual(dry.state, { a: 4, b: 8 });
  assert.deepEqual(dry.steps.map((s) => s.mutatedPaths), [["$.a"], [], ["$.a"]]);
  const failed = await authoring.dryRun(spec, [{ "$.a": 1 }, { "$.a": 11 }]).catch((e) => e);
  assert.equal(failed.body.error, "Constraint violation");
  assert.equal(failed.body.step, 1);
  assert.deepEqual(failed.body.state, { a: 1, b: 2 });
  assert.equal(authoring.validateSpec(spec).valid, true);
  assert.deepEqual(authoring.validateSpec({ id: "x" }).errors.map((e) => e.location), ["schema"]);
});

Deno.test("evalInModel: a view expression sees $const and the library's exports; its errors are JSONata's", async () => {
  const tools = localAuthoring();
  const spec = {
    id: "lib",
    schema: { type: "object", properties: { n: { type: "number" } } },
    constants: { factor: 3 },
    library: { define: "( $scaled := function($x) { $x * $const.factor }; ['scaled'] )" },
  };
  assert.deepEqual(await tools.evalInModel(spec, "{'$.n': $scaled(n)}", { n: 2 }), {
    result: { "$.n": 6 },
    type: "object",
  });
  // Compiled once per spec object: a second evaluation answers from the same model.
  assert.equal((await tools.evalInModel(spec, "$scaled(n) + 1", { n: 1 })).result, 4);
  await assert.rejects(
    tools.evalInModel(spec, "$scaled(", { n: 1 }),
    (err) => err instanceof ServiceError && err.kind === "bad_request" && /S0203|Expected/.test(err.message),
  );
  await assert.rejects(tools.evalInModel({ id: "broken", schema: 7 }, "1", null), /Spec validation failed/);
});

Deno.test("verifySpec stops between cases once its signal aborts; dryRun holds the initial state to max-state-bytes", async () => {
  const authoring = localAuthoring({ config: { ...DEFAULT_CONFIG, maxStateBytes: 1000 } });
  assert.equal((await authoring.verifySpec(spec)).passedCount, 1);
  const stop = new AbortController();
  stop.abort(new Error("the client went away"));
  await assert.rejects(authoring.verifySpec(spec, stop.signal), /the client went away/);
  const huge = { ...spec, derivations: [{ path: "$.b", expr: '$pad("", 2000, "x")' }] };
  await assert.rejects(
    authoring.dryRun(huge),
    (err) => err instanceof ServiceError && err.kind === "too_large" && /max-state-bytes/.test(err.message),
  );
});

Deno.test("eval_expression, dry_run and test_spec report an error quoting a 100,000-character value with it cut, its code kept", async () => {
  const authoring = localAuthoring();
  const s = "x".repeat(100_000);
  const cut = `${"x".repeat(200)}… (100000 characters)`;
  const negated = `D1002: Cannot negate a non-numeric value: "${cut}" (position 1)`;
  const failed = await authoring.evalExpression("-s", { s }).catch((e) => e);
  assert.ok(failed instanceof ServiceError && failed.kind === "bad_request");
  assert.deepEqual(failed.body, { error: negated, code: "D1002", position: 1 });
  assert.equal(failed.message, negated);
  // A token of the expression itself, quoted by a syntax error.
  const syntax = await authoring.evalExpression(`"a" ${s}`, null).catch((e) => e);
  assert.deepEqual(syntax.body, {
    error: `S0201: Syntax error: "${cut}" (position 100004)`,
    code: "S0201",
    position: 100004,
  });

  const strings = {
    id: "s",
    schema: { type: "object", properties: { s: { type: "string" } } },
    derivations: [{ path: "$.b", expr: "-s" }],
    tests: [{ given: { "$.s": s }, expect: { "$.b": 1 } }],
  };
  const refused = await authoring.dryRun(strings, [{ "$.s": s }]).catch((e) => e);
  assert.ok(refused instanceof ServiceError && refused.kind === "validation_failed");
  const message = `Evaluation of derivation $.b failed: ${negated}`;
  assert.equal(refused.message, `mutations[0]: ${message}`);
  assert.deepEqual(refused.body, { error: message, step: 0, state: {} });
  const [run] = (await authoring.testSpec(strings)).cases;
  assert.equal(run.error, `given was rejected: Evaluation of derivation $.b failed: ${negated}`);
});

Deno.test("a meta derivation answering a 100,000-character pattern RE2 refuses: dry_run and test_spec quote it cut", async () => {
  const authoring = localAuthoring();
  const s = `(${"x".repeat(100_000)}`;
  const metas = {
    id: "p",
    schema: { type: "object", properties: { s: { type: "string" }, c: { type: "string" } } },
    metaDerivations: [{ path: "$.c", property: "pattern", expr: "s" }],
    tests: [{ given: { "$.s": s }, expect: {} }],
  };
  // `pattern "(xxx…" is not usable: …` (engine/runtime/meta_values.ts), the RE2 error quoting it again.
  const start = `Evaluation of meta derivation $.c#pattern failed: pattern "(${
    "x".repeat(199)
  }… (100001 characters)"`;
  const refused = await authoring.dryRun(metas, [{ "$.s": s }]).catch((e) => e);
  assert.ok(refused instanceof ServiceError && refused.kind === "validation_failed");
  assert.ok(
    refused.message.startsWith(`mutations[0]: ${start} is not usable: `),
    refused.message.slice(0, 300),
  );
  assert.ok(refused.message.length < 1000, `${refused.message.length} characters`);
  assert.equal(refused.body?.error, refused.message.slice("mutations[0]: ".length));
  const [run] = (await authoring.testSpec(metas)).cases;
  assert.ok(run.error?.startsWith(`given was rejected: ${start} is not usable: `));
  assert.ok(run.error!.length < 1000, `${run.error!.length} characters`);
});
