import assert from "node:assert/strict";
import { rejectsWith, serviceOf, withBrowserProtoAccessor } from "../_test_utils.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { MemoryAuditTrail, MemoryBlobStore, MemoryModelStore } from "./memory.ts";
import type { ModelSpec } from "../model/types.ts";
import type { StoreChange, StoreCoordination } from "./ports.ts";
import { ModelService, type MutationOutcome, referencedBlobs, type ServiceEvent } from "./service.ts";

const spec = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  schema: {
    type: "object",
    properties: { qty: { type: "number", minimum: 0 }, price: { type: "number" }, file: { type: "object" } },
  },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  metaDerivations: [{ path: "$.qty", property: "maximum", expr: "1000" }],
  constraints: [
    { id: "cap", expr: "$not(total > 100)", message: "total at most 100", policy: "rollback" },
    { id: "round", expr: "$not(qty % 2 = 1)", message: "prefer even quantities", policy: "flag" },
  ],
  effects: [{
    id: "notify",
    executor: "caller",
    trigger: "total > 50",
    emit: "big",
    payload: { total: "total" },
  }],
  ...extra,
});

const bytes = (text: string) => new TextEncoder().encode(text);
async function sha256(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", data as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("create returns model info; list is alphabetical", async () => {
  const { service } = await serviceOf();
  const info = await service.createModel(spec("zeta"));
  assert.deepEqual(info, {
    id: "zeta",
    version: "1.0.0",
    derivationCount: 1,
    metaDerivationCount: 1,
    constraintCount: 2,
    effectCount: 1,
  });
  await service.createModel(spec("alpha"));
  await service.createModel(spec("ns/beta"));
  assert.deepEqual(await service.listModels(), ["alpha", "ns/beta", "zeta"]);
  assert.deepEqual(await service.getInfo("alpha"), { ...info, id: "alpha" });
  assert.equal((await service.getSpec("alpha")).version, "1.0.0");
});

Deno.test("duplicate ids are a conflict; the first model is untouched", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  await rejectsWith(
    () => service.createModel(spec("m", { version: "9.9.9" })),
    "conflict",
    /Model 'm' already exists/,
  );
  assert.equal((await service.getInfo("m")).version, "1.0.0");
  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, total: 6 });
});

Deno.test("concurrent creates of one id: exactly one wins", async () => {
  const { service } = await serviceOf();
  const results = await Promise.allSettled([service.createModel(spec("m")), service.createModel(spec("m"))]);
  assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
  assert.deepEqual(await service.listModels(), ["m"]);
});

Deno.test("an invalid spec is refused with every finding and registers nothing", async () => {
  const { service } = await serviceOf();
  const err = await rejectsWith(
    () => service.createModel({ id: "1x", schema: {}, derivations: [{ path: "$.a.0", expr: "(" }] }),
    "validation_failed",
    /^Spec validation failed: /,
    /id: /,
    /derivations\[0\]\.path: .*\$\.a\[0\]/,
  );
  const errors = err.body!.errors as { location: string }[];
  assert.deepEqual(errors.map((e) => e.location), ["id", "derivations[0].path", "derivations[0].expr"]);
  assert.deepEqual(await service.listModels(), []);
  assert.deepEqual(service.authoring.validateSpec({ id: "ok", schema: {} }), {
    valid: true,
    errors: [],
    warnings: [],
  });
});

Deno.test("svc.max-models refuses the excess create with too_many", async () => {
  const { service } = await serviceOf({ maxModels: 2 });
  await service.createModel(spec("a"));
  await service.createModel(spec("b"));
  await rejectsWith(() => service.createModel(spec("c")), "too_many", /svc\.max-models = 2/);
  await service.deleteModel("a");
  await service.createModel(spec("c"));
  assert.deepEqual(await service.listModels(), ["b", "c"]);
});

Deno.test("unknown ids are not_found on every operation", async () => {
  const { service } = await serviceOf();
  const calls: [string, () => Promise<unknown>][] = [
    ["getInfo", () => service.getInfo("nope")],
    ["getSpec", () => service.getSpec("nope")],
    ["deleteModel", () => service.deleteModel("nope")],
    ["getState", () => service.getState("nope")],
    ["getField", () => service.getField("nope", "$.a")],
    ["mutate", () => service.mutate("nope", { "$.a": 1 })],
    ["patch", () => service.patch("nope", [])],
    ["getHistory", () => service.getHistory("nope")],
    ["getSchema", () => service.getSchema("nope", "$.a")],
    ["explain", () => service.explain("nope", "$.a")],
    ["snapshot", () => service.snapshot("nope")],
    ["restore", () => service.restore("nope", {})],
    ["getGraph", () => service.getGraph("nope")],
    ["getVerification", () => service.getVerification("nope")],
    ["getAudit", () => service.getAudit("nope")],
    ["verifyAudit", () => service.verifyAudit("nope")],
    ["getModelBlob", () => service.getModelBlob("nope", "x")],
  ];
  for (const [name, call] of calls) {
    await rejectsWith(call, "not_found", /Model 'nope' not found/).catch((err) => {
      throw new Error(`${name}: ${err.message}`);
    });
  }
});

Deno.test("delete removes the model and its audit trail; the id can be reused", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 1 });
  await service.deleteModel("m");
  assert.deepEqual(await service.listModels(), []);
  await rejectsWith(() => service.getState("m"), "not_found");
  await service.createModel(spec("m"));
  assert.deepEqual(await service.getAudit("m"), []);
  assert.deepEqual(await service.getState("m"), {});
});

Deno.test("mutate returns the full result; rollback is 409-kind with violations; state untouched", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  const result = await service.mutate("m", { "$.qty": 6, "$.price": 10 });
  assert.deepEqual(result.mutatedPaths, ["$.qty", "$.price"]);
  assert.deepEqual(result.derivedUpdated, ["$.total"]);
  assert.deepEqual(result.dispatchedEffects, [{ effectId: "notify", emit: "big", payload: { total: 60 } }]);
  const err = await rejectsWith(
    () => service.mutate("m", { "$.qty": 20 }),
    "constraint_violation",
    /total at most 100/,
  );
  assert.deepEqual(err.body!.violations, [{
    constraintId: "cap",
    message: "total at most 100",
    policy: "rollback",
  }]);
  await rejectsWith(() => service.mutate("m", { "$.qty": -1 }), "schema_violation", /\$\.qty \(minimum\)/);
  await rejectsWith(() => service.mutate("m", "x" as never), "bad_request");
  await rejectsWith(() => service.patch("m", {} as never), "bad_request");
  assert.deepEqual(await service.getState("m"), { qty: 6, price: 10, total: 60 });
  assert.equal((await service.getHistory("m")).length, 1);
});

Deno.test("a constraint id over 1024 characters is refused at create; the longest comes back cut short", async () => {
  const { service } = await serviceOf();
  const [id, message] = ["i".repeat(1024), "m".repeat(100_000)];
  const err = await rejectsWith(
    () =>
      service.createModel(
        spec("m", { constraints: [{ id: `${id}i`, expr: "qty < 1", message, policy: "flag" }] }),
      ),
    "validation_failed",
  );
  assert.deepEqual(err.body!.errors, [
    { location: "constraints[0].id", message: "an id is at most 1024 characters; this one has 1025" },
  ]);
  const cut = (text: string) => `${text.slice(0, 200)}… (${text.length} characters)`;
  await service.createModel(spec("m", { constraints: [{ id, expr: "qty < 1", message, policy: "flag" }] }));
  const result = await service.mutate("m", { "$.qty": 1 });
  assert.deepEqual(result.flaggedConstraints, [{
    constraintId: cut(id),
    message: cut(message),
    policy: "flag",
  }]);
  // Traces name the constraint (and effects) in full: bounded by the id limit, not by the spec's size.
  assert.ok(result.traces.some((trace) => trace.targetPath === `$constraint:${id}`));
});

Deno.test("a trace's expression is at most 1024 characters and says its length: each write's audit record stays small", async () => {
  const { service } = await serviceOf();
  // A 50 KB comment: a spec's expression is as long as its author likes (up to max-spec-bytes).
  const expr = `qty * price /*${"x".repeat(50_000)}*/`;
  const cut = `${expr.slice(0, 1024)}… (${expr.length} characters)`;
  await service.createModel(spec("m", { derivations: [{ path: "$.total", expr }] }));
  const result = await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  assert.equal(result.success, true);
  assert.deepEqual(result.derivedUpdated, ["$.total"]);
  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, total: 6 });
  const [record] = await service.getAudit("m");
  const audited = record.traces.find((t) => t.targetPath === "$.total")!;
  assert.deepEqual([audited.expression, audited.result, audited.inputPaths], [cut, 6, ["$.qty", "$.price"]]);
  assert.ok(JSON.stringify(record).length < 10_000);
  assert.equal((await service.verifyAudit("m")).valid, true);
  const explained = (await service.explain("m", "$.total")).at(-1)!;
  assert.deepEqual([explained.expression, explained.result], [cut, 6]);
  // The dependency graph is a read of the spec: its node keeps the expression whole.
  const graph = await service.getGraph("m");
  assert.equal(graph.nodes.find((n) => n.key === "$.total")!.expression, expr);
});

Deno.test("a trace's input path (a 5,000-character field name read) is cut short as its expression is", async () => {
  const { service } = await serviceOf();
  const name = "n".repeat(5_000);
  const constraints = [{ id: "c", expr: `$exists(\`${name}\`) or qty > 0`, message: "m", policy: "flag" }];
  await service.createModel(spec("m", { constraints }));
  const result = await service.mutate("m", { "$.qty": 2 });
  assert.deepEqual(result.flaggedConstraints, []);
  const [record] = await service.getAudit("m");
  const traced = record.traces.find((t) => t.targetPath === "$constraint:c")!;
  assert.deepEqual(traced.inputPaths, [`$.${name.slice(0, 1022)}… (5002 characters)`, "$.qty"]);
  assert.equal(traced.constraintPassed, true);
  // Errors a trace records are bounded where they are made (engine/expr/builtins.ts quotes `$error` text).
});

Deno.test("a write's audit record names the addresses as mutatedPaths does; an index with a leading zero is refused", async () => {
  const { service } = await serviceOf();
  await service.createModel(
    spec("m", { schema: { type: "object", properties: { file: { type: "object" } } } }),
  );
  const result = await service.mutate("m", { "$['qty']": 2, "$.file['a b']": 1, '$.file["c"]': [0] });
  assert.deepEqual(result.mutatedPaths, ["$.qty", "$.file['a b']", "$.file.c"]);
  const [record] = await service.getAudit("m");
  assert.deepEqual(record.mutations, { "$.qty": 2, "$.file['a b']": 1, "$.file.c": [0] });
  assert.equal((await service.verifyAudit("m")).valid, true);
  // RFC 9535's index has no leading zero: `$.a[01]` was written as `$.a[1]` and audited as `$.a[01]`.
  await rejectsWith(
    () => service.mutate("m", { "$.file.c[01]": 5 }),
    "validation_failed",
    /^Invalid mutation path: '\$\.file\.c\[01\]' is not a valid address: '\[01\]' is not an index \[0\], \[\*\] or a quoted name \['x'\]$/,
  );
  assert.deepEqual(await service.getState("m"), { qty: 2, file: { "a b": 1, c: [0] } });
});

/** The trace of each target in a write's result, its audit record and `explain` (all equal), for `mutation`. */
async function tracedEverywhere(service: ModelService, mutation: Record<string, Json>, ...targets: string[]) {
  const result = await service.mutate("m", mutation);
  assert.equal(result.success, true);
  const [record] = await service.getAudit("m", { limit: 1 });
  // The record stays small however large the answer: the cut result and the spec's short expressions.
  assert.ok(
    JSON.stringify(record).length < 8_000,
    `audit record of ${JSON.stringify(record).length} characters`,
  );
  assert.equal((await service.verifyAudit("m")).valid, true);
  const traces = [];
  for (const target of targets) {
    const [written, audited, explained] = [result.traces, record.traces, await service.explain("m", target)]
      .map((list) => list.findLast((t) => t.targetPath === target)!);
    assert.deepEqual(audited, written);
    assert.deepEqual(explained, written);
    traces.push(written);
  }
  return { result, traces };
}

Deno.test("a constraint answering a 500,000-character string passes; its trace's result is its first 1024 characters and length", async () => {
  const { service } = await serviceOf();
  const constraints = [{ id: "c", expr: `$pad("", 500000 + qty, "x")`, message: "m", policy: "rollback" }];
  await service.createModel(spec("m", { constraints }));
  const { result, traces: [trace] } = await tracedEverywhere(
    service,
    { "$.qty": 2, "$.price": 3 },
    "$constraint:c",
  );
  assert.deepEqual(result.flaggedConstraints, []);
  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, total: 6 });
  assert.equal(trace.result, `${"x".repeat(1024)}… (500002 characters)`);
  assert.equal(trace.constraintPassed, true);
});

Deno.test("an object or array result whose JSON is over 1024 characters is traced as that JSON cut short (a string)", async () => {
  const { service } = await serviceOf();
  const constraints = [{ id: "c", expr: "[1..50000]", message: "m", policy: "flag" }];
  const effects = [{
    id: "e",
    executor: "caller",
    trigger: `{"note": $pad("", 5000 + qty, "y")}`,
    emit: "big",
  }];
  await service.createModel(spec("m", { constraints, effects }));
  const written = await tracedEverywhere(service, { "$.qty": 2 }, "$constraint:c", "$effect:e");
  const [constraint, effect] = written.traces;
  const json = JSON.stringify(Array.from({ length: 50_000 }, (_, i) => i + 1));
  assert.equal(constraint.result, `${json.slice(0, 1024)}… (${json.length} characters)`);
  assert.equal(constraint.constraintPassed, true);
  assert.deepEqual(written.result.dispatchedEffects.map((d) => d.effectId), ["e"]);
  const note = `{"note":"${"y".repeat(5002)}"}`;
  assert.equal(effect.result, `${note.slice(0, 1024)}… (${note.length} characters)`);
});

Deno.test("a result of up to 1024 characters of JSON is traced whole, as the value it is (more UTF-8 bytes included)", async () => {
  const { service } = await serviceOf();
  // 400 euro signs: 1,200 bytes of UTF-8 but 411 characters of JSON.
  const constraints = [{
    id: "c",
    expr: `{"e": $pad("", 400, "€"), "n": [1, 2]}`,
    message: "m",
    policy: "flag",
  }];
  await service.createModel(spec("m", { constraints }));
  const { traces: [trace] } = await tracedEverywhere(service, { "$.qty": 2 }, "$constraint:c");
  assert.deepEqual(trace.result, { e: "€".repeat(400), n: [1, 2] });
});

Deno.test("a derivation's result is traced cut as well; the state holds it whole", async () => {
  const { service } = await serviceOf();
  await service.createModel(
    spec("m", { derivations: [{ path: "$.report", expr: `$pad("", 5000 + qty, "z")` }] }),
  );
  const { result, traces: [trace] } = await tracedEverywhere(service, { "$.qty": 2 }, "$.report");
  assert.deepEqual(result.derivedUpdated, ["$.report"]);
  assert.equal(trace.result, `${"z".repeat(1024)}… (5002 characters)`);
  assert.equal(((await service.getState("m")) as JsonObject).report, "z".repeat(5002));
});

Deno.test("an error quoting a 100,000-character value, key or object is traced with each long run cut to 200 characters and its length", async () => {
  const { service } = await serviceOf();
  const x = "x".repeat(100_000);
  // Each flag constraint fails with a jsonata-js error quoting the written value whole (or a key of it).
  const failing: Record<string, string> = {
    negate: "-note",
    compare: "note < qty",
    key: "{box: 1}",
    same: "{note: 1, $string(note): 2}",
    order: `[{"a": note}, {"a": 1}]^(a)`,
    hugeKey: "$keys(keyed)[0] < 1",
  };
  const constraints = Object.entries(failing).map(([id, expr]) => ({
    id,
    expr,
    message: id,
    policy: "flag",
  }));
  await service.createModel(spec("m", { constraints }));
  const result = await service.mutate("m", {
    "$.qty": 2,
    "$.note": x,
    "$.box": { a: x },
    "$.keyed": { [x]: 1 },
  });
  assert.equal(result.success, true);
  const [record] = await service.getAudit("m", { limit: 1 });
  assert.equal((await service.verifyAudit("m")).valid, true);
  const cut = `${"x".repeat(200)}… (100000 characters)`;
  const expected: Record<string, string> = {
    negate: `D1002: Cannot negate a non-numeric value: "${cut}" (position 1)`,
    compare:
      `T2009: The values "${cut}" and 2 either side of operator "<" must be of the same data type (position 6)`,
    key: `T1003: Key in object structure must evaluate to a string; got: {"a":"${cut}"} (position 1)`,
    same: `D1009: Multiple key definitions evaluate to same key: "${cut}" (position 1)`,
    order: `T2007: Type mismatch when comparing values "${cut}" and 1 in order-by clause (position 24)`,
    hugeKey:
      `T2009: The values "${cut}" and 1 either side of operator "<" must be of the same data type (position 17)`,
  };
  for (const [id, message] of Object.entries(expected)) {
    const [written, audited, explained] = [
      result.traces,
      record.traces,
      await service.explain("m", `$constraint:${id}`),
    ]
      .map((list) => list.findLast((t) => t.targetPath === `$constraint:${id}`)!);
    assert.equal(written.errorMessage, message, id);
    assert.equal(written.constraintPassed, false);
    assert.deepEqual(audited, written);
    assert.deepEqual(explained, written);
  }
  assert.deepEqual(result.flaggedConstraints.map((c) => c.constraintId), Object.keys(failing));
});

Deno.test("results and reads are copies: editing them does not reach the model", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  const mutations: Record<string, Json> = { "$.file": { name: "a" } };
  await service.mutate("m", mutations);
  (mutations["$.file"] as JsonObject).name = "changed";
  const state = await service.getState("m") as JsonObject;
  assert.deepEqual(state.file, { name: "a" });
  (state.file as JsonObject).name = "changed";
  assert.deepEqual(await service.getField("m", "$.file"), { name: "a" });
});

Deno.test("a write's request and result are the caller's: editing them reaches neither state, audit trail nor traces", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  const mutations: Record<string, Json> = { "$.qty": 2, "$.price": 3, "$.file": { name: "a" } };
  const written = service.mutate("m", mutations);
  // Edited while the write is under way (on an idle model it has started already), then after it.
  (mutations["$.file"] as JsonObject).name = "during";
  mutations["$.qty"] = 4;
  const result = await written;
  (mutations["$.file"] as JsonObject).name = "after";
  const total = result.traces.find((t) => t.targetPath === "$.total")!;
  assert.equal(total.result, 6);
  total.result = 999;
  total.inputPaths.push("$.forged");
  result.derivedUpdated.push("$.forged");
  result.mutatedPaths.length = 0;

  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, file: { name: "a" }, total: 6 });
  const [record] = await service.getAudit("m");
  assert.deepEqual(record.mutations, { "$.qty": 2, "$.price": 3, "$.file": { name: "a" } });
  assert.deepEqual(record.derivedUpdated, ["$.total"]);
  const audited = record.traces.find((t) => t.targetPath === "$.total")!;
  assert.equal(audited.result, 6);
  assert.deepEqual(audited.inputPaths, ["$.qty", "$.price"]);
  assert.equal((await service.verifyAudit("m")).valid, true);
  const explained = (await service.explain("m", "$.total")).at(-1)!;
  assert.equal(explained.result, 6);
  assert.deepEqual(explained.inputPaths, ["$.qty", "$.price"]);
});

Deno.test("writes a subscriber makes while a commit is told run after it, in order, on its model and others", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  await service.createModel(spec("n"));
  const followUps: Promise<unknown>[] = [];
  service.subscribe((event) => {
    if (event.type !== "mutation" || event.modelId !== "m" || followUps.length) return;
    followUps.push(service.mutate("n", { "$.qty": 3, "$.price": 1 }), service.mutate("m", { "$.qty": 8 }));
  });
  const first = service.mutate("m", { "$.qty": 2, "$.price": 1 });
  const second = service.mutate("m", { "$.qty": 4 });
  await Promise.all([first, second]);
  await Promise.all(followUps);
  const qtys = (await service.getAudit("m")).map((r) => (r.mutations as JsonObject)["$.qty"]).reverse();
  assert.deepEqual(qtys, [2, 4, 8], "the subscriber's write queued behind the write already waiting");
  assert.equal(await service.getField("n", "$.total"), 3);
  assert.equal((await service.verifyAudit("m")).valid, true);
});

Deno.test("audit records: shape, sources, chained hashes, newest first; rejected and empty writes are not audited", async () => {
  const { service, clock } = await serviceOf();
  await service.createModel(spec("m"));
  await service.mutate("m", {});
  await rejectsWith(() => service.mutate("m", { "$.qty": -1 }), "schema_violation");
  clock.advance(1000);
  await service.mutate("m", { "$.qty": 3, "$.price": 20 });
  await rejectsWith(() => service.mutate("m", { "$.qty": 11 }), "constraint_violation");
  clock.advance(1000);
  await service.patch("m", [{ op: "replace", path: "/price", value: 1 }]);
  const records = await service.getAudit("m");
  assert.deepEqual(records.map((r) => [r.sequence, r.source]), [[1, "patch"], [0, "client"]]);
  const first = records[1];
  assert.deepEqual(
    Object.keys(first).sort(),
    [
      "derivedUpdated",
      "dispatchedEffects",
      "flaggedConstraints",
      "hash",
      "mutations",
      "modelId",
      "modelVersion",
      "prevHash",
      "sequence",
      "source",
      "timestamp",
      "traces",
    ].sort(),
  );
  assert.equal(first.modelId, "m");
  assert.equal(first.timestamp, "2024-01-01T00:00:01.000Z");
  assert.equal(first.modelVersion, "1.0.0");
  assert.deepEqual(first.mutations, { "$.qty": 3, "$.price": 20 });
  assert.deepEqual(first.derivedUpdated, ["$.total"]);
  assert.deepEqual(first.flaggedConstraints, ["round"]);
  assert.deepEqual(first.dispatchedEffects, ["notify"]);
  assert.equal(first.prevHash, "0".repeat(64));
  assert.equal(records[0].prevHash, first.hash);
  assert.deepEqual(records[0].mutations, [{ op: "replace", path: "/price", value: 1 }]);
  assert.deepEqual(await service.verifyAudit("m"), {
    valid: true,
    recordsChecked: 2,
    firstBrokenSequence: null,
    detail: "ok",
  });
});

Deno.test("audit reads: limit, from (inclusive), to (exclusive), path prefix; bad parameters, a reversed window are bad_request", async () => {
  const { service, clock } = await serviceOf();
  await service.createModel(spec("m"));
  for (let qty = 0; qty < 4; qty++) {
    await service.mutate("m", qty % 2 ? { "$.qty": qty } : { "$.price": qty });
    clock.advance(1000);
  }
  const seqs = (records: { sequence: number }[]) => records.map((r) => r.sequence);
  assert.deepEqual(seqs(await service.getAudit("m", { limit: 2 })), [3, 2]);
  assert.deepEqual(
    seqs(await service.getAudit("m", { from: "2024-01-01T00:00:01Z", to: "2024-01-01T00:00:03Z" })),
    [2, 1],
  );
  assert.deepEqual(seqs(await service.getAudit("m", { pathPrefix: "$.qty" })), [3, 1]);
  assert.deepEqual(
    seqs(await service.getAudit("m", { pathPrefix: "$.total" })),
    [3, 2, 1, 0],
    "derived paths count",
  );
  await rejectsWith(
    () => service.getAudit("m", { from: "soon" }),
    "bad_request",
    /'from' is not an ISO-8601/,
  );
  await rejectsWith(() => service.getAudit("m", { to: "later" }), "bad_request", /'to'/);
  // Bounds swapped: a 400 naming both, not an empty answer; an empty window (from = to) is no mistake.
  await rejectsWith(
    () => service.getAudit("m", { from: "2024-01-01T00:00:03Z", to: "2024-01-01T00:00:01Z" }),
    "bad_request",
    /^'from' \(2024-01-01T00:00:03Z\) is after 'to' \(2024-01-01T00:00:01Z\)$/,
  );
  assert.deepEqual(await service.getAudit("m", { from: "2024-01-01", to: "2024-01-01T00:00:00Z" }), []);
  for (const limit of [0, 10001, 1.5]) {
    await rejectsWith(
      () => service.getAudit("m", { limit }),
      "bad_request",
      /limit must be an integer from 1 to 10000/,
    );
  }
});

Deno.test("verifyAudit names the first broken sequence of a tampered trail", async () => {
  const trail = new MemoryAuditTrail();
  const { service } = await serviceOf({}, { store: new MemoryModelStore(trail) });
  await service.createModel(spec("m"));
  for (const qty of [1, 2, 3]) await service.mutate("m", { "$.qty": qty });
  trail.all("m")[1].mutations = { "$.qty": 99 };
  const result = await service.verifyAudit("m");
  assert.equal(result.valid, false);
  assert.equal(result.firstBrokenSequence, 1);
  assert.match(result.detail, /altered/);
});

Deno.test("without an audit backend audit reads are empty and verification trivially valid", async () => {
  const { service } = await serviceOf({}, { store: new MemoryModelStore(null) });
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 1 });
  assert.deepEqual(await service.getAudit("m"), []);
  assert.equal((await service.verifyAudit("m")).recordsChecked, 0);
});

Deno.test("per-model serialisation: concurrent mutations apply in call order", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  const results = await Promise.all(
    [1, 2, 3, 4, 5].map((n) => service.mutate("m", { "$.qty": n * 2, "$.price": 1 })),
  );
  assert.deepEqual(results.map((r) => r.mutatedPaths.length), [2, 2, 2, 2, 2]);
  assert.equal(await service.getField("m", "$.qty"), 10);
  const audit = await service.getAudit("m");
  assert.deepEqual(audit.map((r) => (r.mutations as JsonObject)["$.qty"]).reverse(), [2, 4, 6, 8, 10]);
  assert.equal((await service.verifyAudit("m")).valid, true);
});

Deno.test("svc.mutation-queue-size refuses the excess of concurrent mutations with too_many", async () => {
  const { service } = await serviceOf({ mutationQueueSize: 3 });
  await service.createModel(spec("m"));
  await service.createModel(spec("other"));
  const attempts = [1, 2, 3, 4, 5].map((n) => service.mutate("m", { "$.qty": n }));
  const otherModel = service.mutate("other", { "$.qty": 1 }); // queues are per model
  const settled = await Promise.allSettled(attempts);
  assert.deepEqual(settled.map((s) => s.status), [
    "fulfilled",
    "fulfilled",
    "fulfilled",
    "rejected",
    "rejected",
  ]);
  for (const s of settled.slice(3)) {
    const reason = (s as PromiseRejectedResult).reason;
    assert.equal(reason.kind, "too_many");
    assert.match(reason.message, /Mutation queue of model 'm' is full \(svc\.mutation-queue-size = 3\)/);
  }
  await otherModel;
  assert.equal(await service.getField("m", "$.qty"), 3, "refused mutations were not applied");
  await service.mutate("m", { "$.qty": 4 }); // the queue drained
  assert.equal(await service.getField("m", "$.qty"), 4);
});

Deno.test("a mutation queued behind a delete fails with not_found", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  const [before, deleted, after] = await Promise.allSettled([
    service.mutate("m", { "$.qty": 1 }),
    service.deleteModel("m"),
    service.mutate("m", { "$.qty": 2 }),
  ]);
  assert.equal(before.status, "fulfilled");
  assert.equal(deleted.status, "fulfilled");
  assert.equal(after.status, "rejected");
  assert.equal((after as PromiseRejectedResult).reason.kind, "not_found");
});

Deno.test("executor fold-back is audited with source foldback and may write readOnly fields", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m", {
    schema: { type: "object", properties: { status: { type: "string", readOnly: true } } },
    derivations: [],
    metaDerivations: [],
    constraints: [],
    effects: [],
  }));
  await rejectsWith(() => service.mutate("m", { "$.status": "done" }), "schema_violation", /readOnly/);
  await service.foldback("m", { "$.status": "done" });
  assert.equal(await service.getField("m", "$.status"), "done");
  assert.deepEqual((await service.getAudit("m")).map((r) => r.source), ["foldback"]);
});

Deno.test("reads do not count against the mutation queue", async () => {
  const { service } = await serviceOf({ mutationQueueSize: 1 });
  await service.createModel(spec("m"));
  const [write, ...reads] = await Promise.all([
    service.mutate("m", { "$.qty": 2 }),
    service.getState("m"),
    service.getField("m", "$.qty"),
    service.snapshot("m"),
  ]);
  assert.equal(write.success, true);
  assert.deepEqual(reads[0], { qty: 2 }, "a read queued after the write sees it");
  assert.equal(reads[1], 2);
});

Deno.test("blobs: content-addressed by SHA-256, deduplicated, read back", async () => {
  const { service } = await serviceOf();
  const data = bytes("hello blob");
  const ref = await service.uploadBlob(data, "text/plain");
  assert.deepEqual(ref, { $blobId: await sha256(data), $mediaType: "text/plain", $bytes: data.byteLength });
  assert.deepEqual(await service.uploadBlob(data, "text/plain"), ref);
  const stored = await service.getBlob(ref.$blobId);
  assert.deepEqual(stored.bytes, data);
  assert.equal(stored.mediaType, "text/plain");
  assert.equal((await service.uploadBlob(bytes("x"))).$mediaType, "application/octet-stream");
  await rejectsWith(() => service.getBlob("0".repeat(64)), "not_found", /Blob '0{64}' not found/);
  await rejectsWith(() => service.uploadBlob("text" as never), "bad_request");
});

Deno.test("blobs: svc.blob.max-bytes and svc.blob.max-total-bytes refuse with too_large", async () => {
  const { service } = await serviceOf({ blobMaxBytes: 10, blobMaxTotalBytes: 15 });
  await rejectsWith(
    () => service.uploadBlob(new Uint8Array(11)),
    "too_large",
    /11 bytes exceeds svc\.blob\.max-bytes \(10\)/,
  );
  await service.uploadBlob(new Uint8Array(10));
  await service.uploadBlob(new Uint8Array(10)); // the same content takes no more room
  await rejectsWith(
    () => service.uploadBlob(bytes("abcdef")),
    "too_large",
    /svc\.blob\.max-total-bytes = 15/,
  );
  await service.uploadBlob(bytes("abcde"));
  const unbounded = await serviceOf({ blobMaxTotalBytes: 0, blobMaxBytes: 100 });
  for (let i = 0; i < 5; i++) await unbounded.service.uploadBlob(bytes(`blob ${i}`.padEnd(90, ".")));
});

Deno.test("blobs: concurrent uploads cannot pass svc.blob.max-total-bytes together", async () => {
  const { service } = await serviceOf({ blobMaxBytes: 10, blobMaxTotalBytes: 15 });
  const uploads = await Promise.allSettled(
    ["aaaaaa", "bbbbbb", "cccccc", "dddddd"].map((text) => service.uploadBlob(bytes(text))),
  );
  // Two fit (12 bytes); whichever comes third and fourth is refused.
  assert.equal(uploads.filter((u) => u.status === "fulfilled").length, 2);
  for (const refused of uploads.filter((u) => u.status === "rejected")) {
    assert.match(String(refused.reason), /Blob store budget exhausted \(svc\.blob\.max-total-bytes = 15\)/);
  }
  assert.equal(await service.blobs.totalBytes(), 12);
});

Deno.test("blobs: a model reads a blob only while its state references it", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  const ref = await service.uploadBlob(bytes("report"), "application/pdf");
  await rejectsWith(() => service.getModelBlob("m", ref.$blobId), "not_found", /not referenced by model 'm'/);
  await service.mutate("m", { "$.file": ref as unknown as Json });
  assert.deepEqual((await service.getModelBlob("m", ref.$blobId)).bytes, bytes("report"));
  await service.patch("m", [{ op: "remove", path: "/file" }]);
  await rejectsWith(() => service.getModelBlob("m", ref.$blobId), "not_found");
  assert.deepEqual([...referencedBlobs({ a: [{ $blobId: "x" }, { nested: { $blobId: "y" } }] })].sort(), [
    "x",
    "y",
  ]);
  const gc = await service.collectBlobGarbage(false);
  assert.deepEqual([gc.referenced, gc.orphans], [1, []], "retained history still references it");
});

Deno.test("snapshot and restore through the service; restore is not audited", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  const snapshot = await service.snapshot("m");
  await service.mutate("m", { "$.qty": 4 });
  await service.restore("m", snapshot);
  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, total: 6 });
  assert.deepEqual(await service.getHistory("m"), []);
  assert.equal((await service.getAudit("m")).length, 2);
  await rejectsWith(() => service.restore("m", { baseDoc: { qty: "x" } }), "validation_failed");
  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, total: 6 });
});

Deno.test("a snapshot restored after an evolution computes its derived values under the live spec", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  const snapshot = await service.snapshot("m");
  await service.evolveSpec("m", { upsertDerivations: [{ path: "$.total", expr: "qty * price * 2" }] });
  await service.mutate("m", { "$.qty": 4 });
  await service.restore("m", snapshot);
  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, total: 12 });
  assert.equal(await service.getField("m", "$.total"), 12);
  assert.deepEqual((await service.snapshot("m")).derivedCache, { "$.total": 12 });
  // A write that does not touch the derivation's inputs commits (and retains in history) the live value.
  await service.mutate("m", { "$.file": {} });
  const [at] = await service.getHistory("m");
  assert.equal((await service.getState("m", at) as JsonObject).total, 12);
  // The restored value binds constraints: 12 * 5 * 2 = 120 passes the cap only when computed from 12.
  await rejectsWith(
    () => service.mutate("m", { "$.price": 30 }),
    "constraint_violation",
    /total at most 100/,
  );
});

Deno.test("a snapshot restored after an evolution removed a derivation holds no value of it", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m", {
    derivations: [{ path: "$.total", expr: "qty * price" }, { path: "$.half", expr: "qty / 2" }],
  }));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  const snapshot = await service.snapshot("m");
  assert.deepEqual(snapshot.derivedCache, { "$.total": 6, "$.half": 1 });
  await service.evolveSpec("m", { removeDerivations: ["$.half"] });
  await service.restore("m", snapshot);
  assert.deepEqual(await service.getState("m"), { qty: 2, price: 3, total: 6 });
});

Deno.test("a snapshot restored after an evolution computes its meta values under the live spec", async () => {
  const { service } = await serviceOf();
  const required = { path: "$.price", property: "required", expr: "qty > 1" };
  await service.createModel(spec("m", {
    metaDerivations: [{ path: "$.qty", property: "maximum", expr: "1000" }, required],
  }));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  const snapshot = await service.snapshot("m");
  assert.deepEqual(snapshot.metaCache, { "$.qty#maximum": 1000, "$.price#required": true });
  await service.evolveSpec("m", {
    upsertMetaDerivations: [{ path: "$.qty", property: "maximum", expr: "50" }, {
      ...required,
      expr: "qty > 5",
    }],
  });
  await service.restore("m", snapshot);
  assert.equal((await service.getSchema("m", "$.qty")).maximum, 50);
  assert.equal((await service.getSchema("m", "$.price")).required, false);
  assert.deepEqual((await service.snapshot("m")).metaCache, {
    "$.qty#maximum": 50,
    "$.price#required": false,
  });
  await rejectsWith(() => service.mutate("m", { "$.qty": 60 }), "schema_violation", /must be <= 50/);
});

Deno.test("a snapshot restored into its own spec version gives back exactly the state it was taken of", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m", {
    derivations: [{ path: "$.total", expr: "qty * price" }, {
      path: "$.label",
      expr: "'n' & total",
      evaluation: "lazy",
    }],
    metaDerivations: [{ path: "$.price", property: "minimum", expr: "qty" }],
  }));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  const snapshot = await service.snapshot("m");
  const state = await service.getState("m");
  const schema = await service.getSchema("m", "$.price");
  await service.mutate("m", { "$.qty": 3 });
  await service.restore("m", snapshot);
  assert.deepEqual(await service.getState("m"), state);
  assert.deepEqual(await service.getSchema("m", "$.price"), schema);
  assert.deepEqual(await service.snapshot("m"), snapshot);
  // Caches are the spec's, not the snapshot's: an edited one changes nothing.
  await service.restore("m", { ...snapshot, derivedCache: { "$.total": 999 }, metaCache: {} });
  assert.deepEqual(await service.snapshot("m"), snapshot);
});

Deno.test("a restore whose derived values would pass max-state-bytes is a 413 and changes nothing", async () => {
  const { service } = await serviceOf({ maxStateBytes: 10_000 });
  await service.createModel(spec("m", {
    derivations: [{ path: "$.total", expr: "qty * price" }, {
      path: "$.pad",
      expr: "$pad('', qty * 100, 'x')",
    }],
  }));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  await rejectsWith(
    () => service.restore("m", { baseDoc: { qty: 200 } }),
    "too_large",
    /^State of model 'm' would be about 200\d\d bytes, over svc\.limits\.max-state-bytes \(10000\)$/,
  );
  assert.equal(await service.getField("m", "$.qty"), 2);
});

Deno.test("a model created with a state is held to what a restore of it is: refused alike, its broken constraints told", async () => {
  const warnings: string[] = [];
  const { service } = await serviceOf(
    { maxStateBytes: 10_000, maxDepth: 6 },
    { observer: { warn: (m) => warnings.push(m) } },
  );
  const padded = spec("m", {
    derivations: [{ path: "$.total", expr: "qty * price" }, {
      path: "$.pad",
      expr: "$pad('', qty * 100, 'x')",
    }],
  });
  await service.createModel(padded);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  const refused = [
    // Over max-state-bytes as given, and once its derived values are computed.
    { baseDoc: { qty: 2, file: { text: "x".repeat(20_000) } } },
    { baseDoc: { qty: 200 } },
    // Nested deeper than max-depth where it lands, and as a whole; a number JSON cannot store.
    { baseDoc: { file: { a: { b: { c: { d: { e: { f: 1 } } } } } } } },
    { baseDoc: { qty: 2 }, junk: deep },
    { baseDoc: { qty: 2, price: Infinity } },
  ];
  for (const snapshot of refused) {
    const restoring = await service.restore("m", snapshot).then(() => assert.fail("restored"), (err) => err);
    await service.deleteModel("m");
    const creating = await service.createModel(padded, snapshot).then(
      () => assert.fail("created"),
      (err) => err,
    );
    assert.deepEqual([creating.kind, creating.message], [restoring.kind, restoring.message]);
    assert.deepEqual(await service.listModels(), []);
    await service.createModel(padded);
  }
  // Constraints a restored state breaks: it stands, and the observer is told which, for either.
  await service.restore("m", { baseDoc: { qty: 3, price: 30 } });
  await service.deleteModel("m");
  await service.createModel(padded, { baseDoc: { qty: 3, price: 30 } });
  assert.equal(await service.getField("m", "$.total"), 90);
  assert.deepEqual(warnings, [
    "model 'm': the restored state breaks round",
    "model 'm': the restored state breaks round",
  ]);
});

Deno.test("a restore reads no cache of the snapshot: a key or value the model does not compute is no refusal", async () => {
  const { service } = await serviceOf({ maxStateBytes: 10_000 });
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 2 });
  const snapshot = await service.snapshot("m");
  assert.deepEqual(snapshot.metaCache, { "$.qty#maximum": 1000 });
  const junk = {
    "$.junk#maximum": 5,
    "$.qty#minimum": 5,
    "$.items[*].qty#maximum": 5,
    "no address#maximum": 5,
  };
  const caches = [
    { metaCache: { "$.qty#maximum": "x".repeat(20_000) }, derivedCache: { "$.total": "x".repeat(20_000) } },
    {
      metaCache: { ...junk, "$.qty#maximum": 3 },
      derivedCache: { "$.junk": 1, "$.qty": 1, "$.items[9].t": 1 },
    },
  ];
  for (const cache of caches) {
    await service.restore("m", { ...snapshot, baseDoc: { qty: 4, price: 2 }, ...cache });
    assert.deepEqual(await service.getState("m"), { qty: 4, price: 2, total: 8 });
    assert.deepEqual((await service.snapshot("m")).metaCache, { "$.qty#maximum": 1000 });
  }
});

Deno.test("schema, explain, graph and verification reads through the service", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec("m", {
    tests: [{ given: { "$.qty": 2, "$.price": 3 }, expect: { "$.total": 6 } }],
  }));
  await service.mutate("m", { "$.qty": 2, "$.price": 3 });
  assert.deepEqual(await service.getSchema("m", "$.qty"), { type: "number", minimum: 0, maximum: 1000 });
  assert.deepEqual((await service.explain("m", "$.total", 1)).map((t) => t.result), [6]);
  await rejectsWith(() => service.explain("m", "$.total", -1), "bad_request", /limit/);
  const graph = await service.getGraph("m");
  assert.equal(graph.modelId, "m");
  assert.ok(graph.nodes.some((n) => n.key === "$constraint:cap" && n.kind === "CONSTRAINT"));
  const report = await service.getVerification("m");
  assert.equal(report.state, "green");
  assert.deepEqual(await service.getVerification("m"), report);
});

Deno.test("subscribers receive created, mutation and deleted events; observers see outcomes", async () => {
  const outcomes: MutationOutcome[] = [];
  const { service } = await serviceOf({}, {
    observer: { mutationFinished: (_id, outcome) => outcomes.push(outcome) },
  });
  const events: ServiceEvent[] = [];
  const unsubscribe = service.subscribe((e) => events.push(e));
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 2, "$.price": 1 });
  await service.mutate("m", { "$.qty": 3 });
  await service.mutate("m", { "$.qty": 200 }).catch(() => {});
  await service.mutate("m", { "$.qty": -1 }).catch(() => {});
  await service.deleteModel("m");
  unsubscribe();
  await service.createModel(spec("n"));
  assert.deepEqual(events.map((e) => e.type), ["created", "mutation", "mutation", "deleted"]);
  const mutation = events[1] as Extract<ServiceEvent, { type: "mutation" }>;
  assert.equal(mutation.source, "client");
  assert.deepEqual(mutation.result.mutatedPaths, ["$.qty", "$.price"]);
  assert.deepEqual(outcomes, ["success", "flagged", "rollback", "schema_violation"]);
});

Deno.test("a failing subscriber does not break the write", async () => {
  const warnings: string[] = [];
  const { service } = await serviceOf({}, { observer: { warn: (m) => warnings.push(m) } });
  service.subscribe(() => {
    throw new Error("listener broke");
  });
  await service.createModel(spec("m"));
  await service.mutate("m", { "$.qty": 1 });
  assert.equal(await service.getField("m", "$.qty"), 1);
  assert.ok(warnings.some((w) => w.includes("listener broke")));
});

Deno.test("a restore whose state breaks constraints stands and tells the observer which", async () => {
  const warnings: string[] = [];
  const { service } = await serviceOf({}, { observer: { warn: (m) => warnings.push(m) } });
  await service.createModel(spec("m"));
  await service.restore("m", { baseDoc: { qty: 3, price: 50 } });
  assert.equal(await service.getField("m", "$.total"), 150);
  assert.deepEqual(warnings, ["model 'm': the restored state breaks cap,round"]);
  await service.restore("m", { baseDoc: { qty: 2, price: 1 } });
  assert.equal(warnings.length, 1, "a state breaking none is not told");
});

Deno.test("a store change reported while the stored models load is handled once they are built", async () => {
  /** A shared store whose other process announces a change of `m` in the middle of the load. */
  class AnnouncingStore extends MemoryModelStore {
    listener: (change: StoreChange) => void = () => {};
    refreshes: { modelId: string; full: boolean }[] = [];
    readonly coordination: StoreCoordination = {
      refresh: (modelId, options) => {
        this.refreshes.push({ modelId, full: options?.full ?? false });
        return Promise.resolve({ kind: "current" });
      },
      watch: (listener) => {
        this.listener = listener;
        return Promise.resolve(() => {});
      },
      claim: (job) => Promise.resolve(job),
    };
    override load() {
      this.listener({ type: "model", modelId: "m" });
      return Promise.resolve([{
        spec: spec("m") as ModelSpec,
        base: { doc: {}, meta: [], stale: [] },
        log: [],
      }]);
    }
  }
  const store = new AnnouncingStore();
  const service = await ModelService.open({ store });
  await new Promise((resolve) => setTimeout(resolve, 10));
  // The loaded model is caught up in its queue, not loaded a second time as one another process created.
  assert.deepEqual(store.refreshes, [{ modelId: "m", full: false }]);
  assert.deepEqual(await service.listModels(), ["m"]);
});

Deno.test("a __proto__ member is data end to end: the same state, audit hashes and spec under a browser's accessor", async () => {
  /** Writes and reads `__proto__` members (as JSON text: parsed, they are own members) on a fresh service. */
  const run = async () => {
    const { service } = await serviceOf();
    await service.createModel(JSON.parse(`{
      "id": "proto",
      "schema": {"type": "object", "properties": {"o": {"type": "object"}, "p": {"type": "object"}}},
      "derivations": [{"path": "$.copy", "expr": "p"}],
      "effects": [{"id": "e", "executor": "caller", "trigger": "$exists(p)", "payload": {"__proto__": "p.z"}}]
    }`));
    await service.mutate("proto", JSON.parse('{"$.o.__proto__": {"x": 1}}'));
    const { dispatchedEffects } = await service.mutate(
      "proto",
      JSON.parse('{"$.p": {"__proto__": {"y": 2}, "z": 3}}'),
    );
    await service.evolveSpec(
      "proto",
      JSON.parse(
        '{"upsertSchemaNodes": [{"path": "$.o.__proto__", "schema": {"type": "object", "required": ["x"]}}]}',
      ),
    );
    const field = await service.getField("proto", "$.o.x").catch((err: Error) => err.message);
    return {
      state: JSON.stringify(await service.getState("proto")),
      field,
      payloads: JSON.stringify(dispatchedEffects?.map((effect) => effect.payload)),
      schema: JSON.stringify((await service.getSpec("proto")).schema),
      hashes: (await service.getAudit("proto")).map((record) => record.hash),
      verified: (await service.verifyAudit("proto")).valid,
    };
  };
  const inDeno = await run();
  assert.equal(
    inDeno.state,
    '{"o":{"__proto__":{"x":1}},"p":{"__proto__":{"y":2},"z":3},"copy":{"__proto__":{"y":2},"z":3}}',
  );
  assert.match(String(inDeno.field), /absent/);
  assert.equal(inDeno.payloads, '[{"__proto__":3}]');
  assert.match(
    inDeno.schema,
    /"o":\{"type":"object","properties":\{"__proto__":\{"type":"object","required":\["x"\]\}\}\}/,
  );
  assert.equal(inDeno.verified, true);
  assert.deepEqual(await withBrowserProtoAccessor(run), inDeno);
});

Deno.test("blob GC keeps what stored models that did not load, and states kept for recovery, reference", async () => {
  const blobs = new MemoryBlobStore();
  const refs: Record<string, JsonObject> = {};
  for (const name of ["inState", "inLog", "inSpec", "inRecovery", "orphan"]) {
    const data = bytes(name);
    refs[name] = { $blobId: await sha256(data), $mediaType: "text/plain", $bytes: data.byteLength };
    await blobs.put(refs[name].$blobId as string, { bytes: data, mediaType: "text/plain" });
  }
  class StoreWithAnOldModel extends MemoryModelStore {
    constructor(readonly problem?: string) {
      super();
    }
    override load() {
      // Stored by an earlier version whose checks let `1.0` through as a version.
      const old = { ...spec("old"), version: "1.0", defaults: { file: refs.inSpec } } as unknown as ModelSpec;
      return Promise.resolve([{
        spec: old,
        base: { doc: { file: refs.inState }, meta: [], stale: [] },
        log: [{ at: 0, source: "client" as const, request: { "$.file": refs.inLog } }],
        problem: this.problem,
      }]);
    }
  }
  const store = new StoreWithAnOldModel();
  await store.keepForRecovery({
    modelId: "reset",
    detectedAt: "2026-01-01T00:00:00.000Z",
    reason: "a torn log",
    spec: spec("reset") as unknown as ModelSpec,
    base: null,
    baseAt: null,
    log: [{ at: 0, source: "client", request: { "$.file": refs.inRecovery } }],
  });
  const { service } = await serviceOf({}, { store, blobs });
  assert.deepEqual(await service.listModels(), []);
  const dry = await service.collectBlobGarbage(false);
  assert.deepEqual([dry.referenced, dry.orphans.map((o) => o.blobId)], [4, [refs.orphan.$blobId]]);
  await service.collectBlobGarbage(true);
  assert.deepEqual(
    (await blobs.list()).map((b) => b.blobId).sort(),
    [
      refs.inState.$blobId,
      refs.inLog.$blobId,
      refs.inSpec.$blobId,
      refs.inRecovery.$blobId,
    ].sort(),
  );

  // A model not loaded whose stored state cannot be read: what it references is unknown, so nothing is swept.
  await blobs.put(refs.orphan.$blobId as string, { bytes: bytes("orphan"), mediaType: "text/plain" });
  const unreadable = await serviceOf({}, { store: new StoreWithAnOldModel("its log does not parse"), blobs });
  await rejectsWith(
    () => unreadable.service.collectBlobGarbage(true),
    "conflict",
    /^Blob GC cannot apply: model 'old' is not loaded and its stored state could not be read \(its log does not parse\); repair or delete it first$/,
  );
  assert.equal((await blobs.list()).length, 5);
  assert.equal(
    (await unreadable.service.collectBlobGarbage(false)).applied,
    false,
    "a dry run still answers",
  );
  await unreadable.service.deleteModel("old");
  // Once it is deleted its blobs go (this store keeps no recovery record either).
  assert.equal((await unreadable.service.collectBlobGarbage(true)).orphans.length, 5);
  assert.deepEqual(await blobs.list(), []);
});

Deno.test("a grouping over an empty array leaves the array empty in the committed state", async () => {
  const { service } = await serviceOf();
  await service.createModel({
    id: "m",
    schema: { type: "object", properties: { tags: { type: "array" }, n: { type: "number" } } },
    // jsonata-js pushed an undefined item into `tags` (grouping over nothing), committed as `tags: [null]`.
    derivations: [{ path: "$.k", expr: "($t := tags{'k': n}; $t.k)" }],
  });
  await service.mutate("m", { "$.tags": [], "$.n": 1 });
  assert.deepEqual(await service.getState("m"), { tags: [], n: 1 });
  await service.mutate("m", { "$.n": 2 });
  assert.deepEqual(await service.getState("m"), { tags: [], n: 2 });
});

Deno.test("a view id or component id over 1024 characters is refused at create, as other ids are", async () => {
  const { service } = await serviceOf();
  const long = "v".repeat(1025);
  const viewDefinition = {
    defaultView: long,
    views: [{ id: long, components: [{ id: long, type: "textField", bind: "$.qty" }] }],
  };
  const err = await rejectsWith(
    () => service.createModel(spec("m", { viewDefinition })),
    "validation_failed",
  );
  assert.deepEqual(err.body!.errors, [
    {
      location: "viewDefinition.views[0].id",
      message: "an id is at most 1024 characters; this one has 1025",
    },
    {
      location: "viewDefinition.views[0].components[0].id",
      message: "an id is at most 1024 characters; this one has 1025",
    },
  ]);
});
