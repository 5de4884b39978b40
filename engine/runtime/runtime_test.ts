import assert from "node:assert/strict";
import { commitMutation, jsonInTimeZones, rejectsWith, runtimeOf } from "../_test_utils.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { ServiceError } from "../errors.ts";
import { randomSource } from "../json/test_support.ts";
import { formatInstant, parseInstant } from "./runtime.ts";
import { randomWrite } from "./test_support.ts";

const SPEC = {
  id: "shop/cart",
  version: "2.0.0",
  schema: {
    type: "object",
    properties: {
      qty: { type: "integer", minimum: 0, description: "how many" },
      price: { type: "number" },
      email: { type: "string" },
      wantsMail: { type: "boolean" },
      items: { type: "array", items: { $ref: "#/$defs/Item" } },
    },
    $defs: { Item: { type: "object", properties: { n: { type: "number" } } } },
  },
  derivations: [
    { path: "$.total", expr: "qty * price" },
    { path: "$.items[*].double", expr: "$parent.n * 2" },
    { path: "$.summary", expr: "'total ' & $string(total)", evaluation: "lazy" },
  ],
  metaDerivations: [
    { path: "$.qty", property: "maximum", expr: "price > 100 ? 1 : 10" },
    { path: "$.email", property: "relevant", expr: "wantsMail = true" },
    { path: "$.email", property: "required", expr: "wantsMail = true" },
  ],
  constraints: [{ id: "cheap", expr: "$not(total > 50)", message: "total at most 50", policy: "flag" }],
};

async function cart(overrides = {}) {
  const made = await runtimeOf(SPEC, overrides);
  await commitMutation(made.runtime, { "$.qty": 2, "$.price": 3 });
  return made;
}

Deno.test("readState returns the merged document with lazy derivations evaluated", async () => {
  const { runtime } = await cart();
  assert.ok(runtime.state.stale.has("$.summary"));
  assert.deepEqual(await runtime.readState(), { qty: 2, price: 3, total: 6, summary: "total 6" });
  assert.equal(runtime.state.stale.size, 0);
});

Deno.test("readField returns one value; absent fields are not_found; reads accept unrooted forms", async () => {
  const { runtime } = await cart();
  assert.equal(await runtime.readField("$.total"), 6);
  assert.equal(await runtime.readField("total"), 6);
  assert.equal(await runtime.readField("$.summary"), "total 6");
  await rejectsWith(
    () => runtime.readField("$.nothing"),
    "not_found",
    /Field \$\.nothing is absent in model 'shop\/cart'/,
  );
  await rejectsWith(() => runtime.readField("$.a["), "bad_request", /not a valid address/);
});

Deno.test("a field holding null is a value, not absent", async () => {
  const { runtime } = await cart();
  await commitMutation(runtime, { "$.note": null });
  assert.equal(await runtime.readField("$.note"), null);
});

Deno.test("history: one ISO-8601 timestamp per commit, chronological", async () => {
  const { runtime, clock } = await runtimeOf(SPEC);
  assert.deepEqual(runtime.historyTimestamps(), [], "creation is not a history entry");
  await commitMutation(runtime, { "$.qty": 1 });
  clock.advance(1000);
  await commitMutation(runtime, { "$.qty": 2 });
  clock.advance(60_000);
  await commitMutation(runtime, { "$.qty": 3 });
  assert.deepEqual(runtime.historyTimestamps(), [
    "2024-01-01T00:00:00.000Z",
    "2024-01-01T00:00:01.000Z",
    "2024-01-01T00:01:01.000Z",
  ]);
});

Deno.test("point-in-time reads pick the latest entry at or before `at`", async () => {
  const { runtime, clock } = await runtimeOf(SPEC);
  await commitMutation(runtime, { "$.qty": 1, "$.price": 1 });
  clock.advance(10_000);
  await commitMutation(runtime, { "$.qty": 2 });
  const at = (iso: string) => runtime.readState(iso) as Promise<JsonObject>;
  assert.equal((await at("2024-01-01T00:00:00Z")).qty, 1);
  assert.equal((await at("2024-01-01T00:00:09.999Z")).qty, 1);
  assert.equal((await at("2024-01-01T00:00:10Z")).qty, 2);
  assert.equal((await at("2030-01-01T00:00:00+02:00")).qty, 2);
  assert.equal(
    (await at("2024-01-01T00:00:05Z")).summary,
    "total 1",
    "lazy values are evaluated for the past state",
  );
  await rejectsWith(() => at("2023-12-31T23:59:59Z"), "not_found", /No history for model 'shop\/cart'/);
});

Deno.test("a malformed `at` is a bad_request naming the parameter", async () => {
  const { runtime } = await cart();
  for (const bad of ["yesterday", "2024-13-45T00:00:00Z", "1700000000", "2024-01-01 00:00"]) {
    await rejectsWith(() => runtime.readState(bad), "bad_request", /'at' is not an ISO-8601 timestamp/);
  }
});

Deno.test("history keeps its newest entries over many commits, and its tail ends with them", async () => {
  // Entries leave the list in bulk: every count of commits around those points reads the same history.
  const max = 3;
  const { runtime, clock } = await runtimeOf(SPEC, { historyMaxEntries: max });
  const committed: { at: string; qty: number }[] = [];
  for (let n = 0; n < 4 * max + 1; n++) {
    const tail = runtime.historyTail;
    const retained = [...runtime.history];
    assert.deepEqual(tail.slice(tail.length - retained.length), retained);
    assert.ok(tail.slice(0, tail.length - retained.length).every((entry) => entry === undefined));
    const qty = 1 + n % 9;
    await commitMutation(runtime, { "$.qty": qty });
    committed.push({ at: formatInstant(clock.now()), qty });
    const kept = committed.slice(-max);
    assert.deepEqual(runtime.historyTimestamps(), kept.map((c) => c.at));
    assert.deepEqual(runtime.history.map((entry) => formatInstant(entry.at)), kept.map((c) => c.at));
    for (const { at, qty } of kept) assert.equal((await runtime.readState(at) as JsonObject).qty, qty);
    if (committed.length > max) {
      await rejectsWith(() => runtime.readState(committed.at(-max - 1)!.at), "not_found");
    }
    clock.advance(1000);
  }
});

Deno.test("svc.history.max-entries bounds retained history; 0 disables point-in-time reads", async () => {
  const bounded = await runtimeOf(SPEC, { historyMaxEntries: 2 });
  for (const qty of [1, 2, 3]) {
    await commitMutation(bounded.runtime, { "$.qty": qty });
    bounded.clock.advance(1000);
  }
  assert.deepEqual(bounded.runtime.historyTimestamps(), [
    "2024-01-01T00:00:01.000Z",
    "2024-01-01T00:00:02.000Z",
  ]);
  await rejectsWith(() => bounded.runtime.readState("2024-01-01T00:00:00.500Z"), "not_found");

  const disabled = await runtimeOf(SPEC, { historyMaxEntries: 0 });
  await commitMutation(disabled.runtime, { "$.qty": 1 });
  assert.deepEqual(disabled.runtime.historyTimestamps(), []);
  await rejectsWith(() => disabled.runtime.readState("2030-01-01T00:00:00Z"), "not_found");
});

Deno.test("effective schema: static fragment with live meta values overlaid under property names", async () => {
  const { runtime } = await cart();
  assert.deepEqual(runtime.effectiveSchema("$.qty"), {
    type: "integer",
    minimum: 0,
    description: "how many",
    maximum: 10,
  });
  await commitMutation(runtime, { "$.price": 200, "$.qty": 1 });
  assert.equal(runtime.effectiveSchema("$.qty").maximum, 1);
  assert.deepEqual(runtime.effectiveSchema("$.email"), { type: "string", relevant: false, required: false });
  await commitMutation(runtime, { "$.wantsMail": true, "$.email": "a@b.c" });
  assert.deepEqual(runtime.effectiveSchema("$.email"), { type: "string", relevant: true, required: true });
});

Deno.test("effective schema: derived fields are readOnly; $refs resolved; unknown fields give {}", async () => {
  const { runtime } = await cart();
  assert.deepEqual(runtime.effectiveSchema("$.total"), { readOnly: true });
  assert.deepEqual(runtime.effectiveSchema("$.items[0].double"), { readOnly: true });
  assert.deepEqual(runtime.effectiveSchema("$.items[0]"), {
    type: "object",
    properties: { n: { type: "number" } },
  });
  assert.deepEqual(runtime.effectiveSchema("$.unknown"), {});
  const copy = runtime.effectiveSchema("$.qty");
  copy.minimum = 99;
  assert.equal(runtime.effectiveSchema("$.qty").minimum, 0, "callers get a copy");
});

Deno.test("explain: trace records with all six members, inputPaths in pattern form", async () => {
  const { runtime } = await cart();
  await commitMutation(runtime, { "$.items": [{ n: 1 }, { n: 2 }] });
  const [trace] = runtime.explain("$.total", 1);
  assert.deepEqual(trace, {
    targetPath: "$.total",
    expression: "qty * price",
    inputPaths: ["$.qty", "$.price"],
    result: 6,
    constraintPassed: null,
    errorMessage: null,
  });
  const perElement = runtime.explain("$.items[*].double");
  assert.deepEqual(perElement.map((t) => [t.targetPath, t.result]), [["$.items[0].double", 2], [
    "$.items[1].double",
    4,
  ]]);
  assert.deepEqual(perElement[0].inputPaths, ["$.items[*].n"]);
  assert.deepEqual(runtime.explain("$.items[1].double").map((t) => t.result), [4]);
  const constraint = runtime.explain("$constraint:cheap").at(-1)!;
  assert.equal(constraint.constraintPassed, true);
  assert.equal(constraint.targetPath, "$constraint:cheap");
  assert.deepEqual(runtime.explain("$.qty#maximum").map((t) => t.targetPath), [
    "$.qty#maximum",
    "$.qty#maximum",
  ]);
  // A field the model has but nothing computed: no records; one it does not have: a 404 naming it.
  assert.deepEqual(runtime.explain("$.qty"), []);
  for (
    const [target, message] of [
      [
        "$.never",
        /^Nothing to explain at \$\.never: model 'shop\/cart' has no such field, constraint or effect$/,
      ],
      ["$.never#required", /^Nothing to explain at \$\.never#required: /],
      ["$constraint:never", /^Nothing to explain at \$constraint:never: /],
      ["$effect:never", /^Nothing to explain at \$effect:never: /],
      // After '#' only a meta key names metadata: a JSON Schema word in camel case, a prototype name or nothing
      // answered [] as if that metadata were merely not computed yet.
      [
        "$.qty#readOnly",
        /^Nothing to explain at \$\.qty#readOnly: 'readOnly' is no meta property \(required, minimum, maximum, multiple_of, min_length, max_length, pattern, enum, read_only, relevant\)$/,
      ],
      ["$.qty#toString", /^Nothing to explain at \$\.qty#toString: 'toString' is no meta property \(/],
      ["$.qty#__proto__", /^Nothing to explain at \$\.qty#__proto__: '__proto__' is no meta property \(/],
      ["$.qty#", /^Nothing to explain at \$\.qty#: '' is no meta property \(/],
      // A misspelt derived or declared field: the nearest name.
      ["$.totl", /^Nothing to explain at \$\.totl: .* \(did you mean '\$\.total'\?\)$/],
      ["$.qtty", /^Nothing to explain at \$\.qtty: .* \(did you mean '\$\.qty'\?\)$/],
    ] as const
  ) {
    await rejectsWith(() => runtime.explain(target), "not_found", message);
  }
});

Deno.test("explain: a field whose name holds '#' is that field, its metadata after the closing bracket", async () => {
  // '$[\'a#b\']' was cut at its '#' into the malformed address "$['a" (400), so the field could not be explained.
  const { runtime } = await runtimeOf({
    id: "hash/names",
    version: "1.0.0",
    schema: {
      type: "object",
      properties: {
        "a#b": { type: "number" },
        rows: { type: "array", items: { type: "object", properties: { "n#1": { type: "number" } } } },
      },
    },
    derivations: [{ path: "$.rows[*]['seven#n']", expr: "7" }],
    metaDerivations: [{ path: "$['a#b']", property: "maximum", expr: "10" }],
  });
  await commitMutation(runtime, { "$['a#b']": 1, "$.rows": [{ "n#1": 2 }, { "n#1": 3 }] });
  assert.deepEqual(runtime.explain("$['a#b']"), []);
  assert.deepEqual(runtime.explain("$['a#b']#maximum").map((t) => [t.targetPath, t.result]), [
    ["$['a#b']#maximum", 10],
  ]);
  assert.deepEqual(runtime.explain("$.rows[*]['seven#n']").map((t) => [t.targetPath, t.result]), [
    ["$.rows[0]['seven#n']", 7],
    ["$.rows[1]['seven#n']", 7],
  ]);
  await rejectsWith(() => runtime.explain("$['a#b']#maxi"), "not_found", /'maxi' is no meta property/);
});

Deno.test("explain: a field the schema admits (free-form) or the document holds is known; one neither admits is a 404", async () => {
  const { runtime } = await runtimeOf({
    id: "open/bag",
    version: "1.0.0",
    schema: {
      type: "object",
      properties: {
        qty: { type: "number" },
        bag: { type: "object" },
        loose: { type: "object", properties: { a: { type: "number" } }, additionalProperties: true },
        strict: { type: "object", properties: { a: { type: "number" } }, additionalProperties: false },
        name: { type: ["string", "null"] },
        list: { type: "array" },
        pair: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
      },
    },
    metaDerivations: [
      { path: "$.limit", property: "maximum", expr: "qty" },
      { path: "$.rows[*].cap", property: "minimum", expr: "qty" },
    ],
  });
  await commitMutation(runtime, { "$.qty": 2, "$.extra": 1, "$.rows": [{ z: 1 }] });
  // Undeclared but held (the schema lists its members without refusing others), under a free-form object,
  // under additionalProperties: true: no records, not a 404.
  for (
    const target of ["$.extra", "$.extra#required", "$.rows[*].z", "$.rows[0]", "$.bag.any", "$.loose.b"]
  ) {
    assert.deepEqual(runtime.explain(target), [], target);
  }
  // A meta derivation of an undeclared field answers its records; the field itself is known: its value's records
  // (none computed it), not a 404. So are a tuple's items, one or all.
  assert.deepEqual(runtime.explain("$.limit#maximum").map((t) => t.result), [2]);
  for (
    const target of [
      "$.limit",
      "$.limit#required",
      "$.rows[0].cap",
      "$.rows[*].cap",
      "$.pair[1]",
      "$.pair[*]",
    ]
  ) {
    assert.deepEqual(runtime.explain(target), [], target);
  }
  // A child of a scalar (a number, a string or null), or an index past a tuple's, is never a field: as unknown
  // as an undeclared name.
  for (
    const target of [
      "$.nope",
      "$.rows[*].nope",
      "$.strict.b",
      "$.qty.foo",
      "$.qty[0]",
      "$.name.x",
      "$.list.x",
      "$.pair[2]",
    ]
  ) {
    await rejectsWith(() => runtime.explain(target), "not_found", /^Nothing to explain at /);
  }
});

Deno.test("explain: limit keeps the newest records", async () => {
  const { runtime } = await cart();
  for (const qty of [3, 4, 5]) await commitMutation(runtime, { "$.qty": qty });
  assert.deepEqual(runtime.explain("$.total", 2).map((t) => t.result), [12, 15]);
  assert.deepEqual(runtime.explain("$.total", 0), []);
  assert.equal(runtime.explain("$.total").length, 4, "the first write and three more");
});

Deno.test("explain: creation keeps the evaluations that computed something, not those over fields not written", async () => {
  const { runtime } = await runtimeOf({
    ...SPEC,
    schema: {
      ...SPEC.schema,
      properties: { ...SPEC.schema.properties, qty: { type: "integer", default: 2 } },
    },
    derivations: [...SPEC.derivations, { path: "$.next", expr: "qty + 1" }],
  });
  // No price yet: the total computes nothing and stays absent, so explain has nothing to say about it.
  assert.equal("total" in (runtime.state.doc as JsonObject), false);
  assert.deepEqual(runtime.explain("$.total"), [], "no `result: null` before any write");
  assert.deepEqual(
    runtime.explain("$.next").map((t) => t.result),
    [3],
    "a default's consequence is explained",
  );
  assert.deepEqual(runtime.explain("$.qty#maximum").map((t) => t.result), [10]);
  // A write's evaluations are all kept, one that computes nothing too (what the write did).
  await commitMutation(runtime, { "$.qty": 4 });
  await commitMutation(runtime, { "$.price": 3 });
  assert.deepEqual(runtime.explain("$.total").map((t) => t.result), [null, 12]);
});

Deno.test("explain: a refused write leaves its constraint checks, not the values it never committed", async () => {
  const { runtime } = await runtimeOf({
    ...SPEC,
    constraints: [{ id: "cheap", expr: "$not(total > 50)", message: "total at most 50", policy: "rollback" }],
  });
  await commitMutation(runtime, { "$.qty": 2, "$.price": 3 });
  await rejectsWith(() => runtime.evaluateMutation({ "$.qty": 1, "$.price": 120 }), "constraint_violation");
  assert.deepEqual(
    runtime.explain("$.total").map((t) => t.result),
    [6],
    "the committed write (creation computed nothing)",
  );
  assert.deepEqual(runtime.explain("$.qty#maximum").map((t) => t.result), [10, 10], "nor its meta values");
  const refusal = runtime.explain("$constraint:cheap").at(-1)!;
  assert.equal(refusal.constraintPassed, false, "the check that refused it explains the refusal");
  assert.deepEqual(refusal.inputPaths, ["$.total"]);
});

Deno.test("the trace ring keeps the newest traceBufferSize records per model", async () => {
  const { runtime } = await runtimeOf(SPEC, { traceBufferSize: 4 });
  for (let qty = 1; qty <= 6; qty++) await commitMutation(runtime, { "$.qty": qty, "$.price": 1 });
  const all = [
    ...runtime.explain("$.total"),
    ...runtime.explain("$.qty#maximum"),
    ...runtime.explain("$constraint:cheap"),
  ];
  assert.equal(all.length, 4);
  assert.deepEqual(runtime.explain("$.total").map((t) => t.result), [6]);
});

Deno.test("the trace ring defaults to 500 entries", async () => {
  const { runtime } = await runtimeOf({
    id: "many",
    schema: { type: "object", properties: { rows: { type: "array", items: { type: "object" } } } },
    derivations: [{ path: "$.rows[*].y", expr: "$parent.x + 1" }],
  });
  await commitMutation(runtime, { "$.rows": Array.from({ length: 600 }, (_, x) => ({ x })) });
  const traces = runtime.explain("$.rows[*].y");
  assert.equal(traces.length, 500);
  assert.equal(traces[0].targetPath, "$.rows[100].y");
});

Deno.test("snapshot: {modelId, modelVersion, baseDoc, derivedCache, metaCache}, derived values split out", async () => {
  const { runtime } = await cart();
  await commitMutation(runtime, { "$.items": [{ n: 1 }] });
  const snapshot = await runtime.snapshot();
  assert.deepEqual(snapshot, {
    modelId: "shop/cart",
    modelVersion: "2.0.0",
    baseDoc: { qty: 2, price: 3, items: [{ n: 1 }] },
    derivedCache: { "$.total": 6, "$.items[0].double": 2, "$.summary": "total 6" },
    metaCache: { "$.qty#maximum": 10, "$.email#relevant": false, "$.email#required": false },
  });
});

Deno.test("restore round-trips a snapshot, clears history and traces, marks lazies stale", async () => {
  const { runtime } = await cart();
  const snapshot = await runtime.snapshot();
  await commitMutation(runtime, { "$.qty": 7, "$.price": 100 });
  assert.ok(runtime.historyTimestamps().length > 0);
  await runtime.restore(snapshot);
  assert.deepEqual(runtime.historyTimestamps(), []);
  // The write's traces are gone; the restore's own evaluation explains the value.
  assert.deepEqual(runtime.explain("$.total").map((t) => t.result), [6]);
  assert.ok(runtime.state.stale.has("$.summary"));
  assert.deepEqual(await runtime.readState(), { qty: 2, price: 3, total: 6, summary: "total 6" });
  assert.equal(runtime.state.meta.get("$.qty#maximum"), 10);
  assert.deepEqual(await runtime.snapshot(), snapshot);
  const result = await commitMutation(runtime, { "$.qty": 3 });
  assert.deepEqual(result!.derivedUpdated, ["$.total"]);
  assert.equal(await runtime.readField("$.summary"), "total 9");
});

Deno.test("every state a mutation can reach restores from its snapshot (null-padded arrays included)", async () => {
  const { runtime } = await runtimeOf({
    id: "padded",
    schema: { type: "object", properties: { list: { type: "array", items: { type: ["object", "null"] } } } },
  });
  await commitMutation(runtime, { "$.list[2].x": 1, "$.free[1]": true });
  const snapshot = await runtime.snapshot();
  await runtime.restore(snapshot);
  assert.deepEqual(await runtime.readState(), { list: [null, null, { x: 1 }], free: [null, true] });
});

Deno.test("restore validates the snapshot and leaves state untouched on refusal", async () => {
  const { runtime } = await cart();
  const good = await runtime.snapshot();
  const before = runtime.state;
  const history = runtime.historyTimestamps();
  const refusals: [unknown, string, RegExp][] = [
    [null, "bad_request", /a snapshot must be a JSON object/],
    [{ ...good, modelId: "other" }, "validation_failed", /belongs to model 'other'/],
    [{ ...good, baseDoc: [] }, "validation_failed", /baseDoc must be a JSON object/],
    [{ ...good, baseDoc: { qty: "two" } }, "validation_failed", /\$\.qty \(type\)/],
    [{ ...good, derivedCache: [] }, "validation_failed", /derivedCache must be an object/],
    [{ ...good, metaCache: 3 }, "validation_failed", /metaCache must be an object/],
    // A base field the live schema refuses is named, beside a derived one it drops.
    [
      { baseDoc: { total: "x", items: [{ n: "one" }] } },
      "validation_failed",
      /: \$\.items\[0\]\.n \(type\): must be number$/,
    ],
  ];
  for (const [snapshot, kind, message] of refusals) {
    await rejectsWith(() => runtime.restore(snapshot), kind as never, message);
    assert.equal(runtime.state, before);
    assert.deepEqual(runtime.historyTimestamps(), history);
  }
});

Deno.test("restore drops what baseDoc holds where the live spec derives (a field an evolution made derived)", async () => {
  const { runtime } = await cart();
  // Values of any type: the snapshot's spec kept them as base fields, the live one computes them.
  const baseDoc = { qty: 1, price: 2, total: "garbage", items: [{ n: 1, double: "x" }], summary: 5 };
  const given = structuredClone(baseDoc);
  const told: number[] = [];
  await runtime.restore(
    { modelId: "shop/cart", modelVersion: "1.0.0", baseDoc },
    (bytes) => told.push(bytes),
  );
  // What was dropped counts against what the restore computed: the growth is the restored state's size less baseDoc's.
  assert.deepEqual(told, [runtime.stateBytes - JSON.stringify(baseDoc).length]);
  assert.deepEqual(await runtime.readState(), {
    qty: 1,
    price: 2,
    total: 2,
    items: [{ n: 1, double: 2 }],
    summary: "total 2",
  });
  assert.deepEqual(baseDoc, given, "the snapshot is left as given");
});

Deno.test("restore keeps a base field the live schema no longer declares only where the schema admits it", async () => {
  const { runtime } = await cart();
  await runtime.restore({ baseDoc: { qty: 1, price: 1, removed: "kept" } });
  assert.equal(await runtime.readField("$.removed"), "kept");
  const closed = await runtimeOf({ ...SPEC, schema: { ...SPEC.schema, additionalProperties: false } });
  await rejectsWith(
    () => closed.runtime.restore({ baseDoc: { qty: 1, total: 1, removed: "x" } }),
    "validation_failed",
    // At the field's own path, as an evolution's stranding guard names it.
    /^Snapshot base document violates the schema: \$\.removed \(additionalProperties\): must NOT have additional properties: 'removed'$/,
  );
});

Deno.test("restore ignores what the state lacks (required, dependentRequired, conditional ones), as an evolution does", async () => {
  const { runtime } = await runtimeOf({
    id: "gaps",
    schema: {
      type: "object",
      required: ["name"],
      properties: { qty: { type: "integer" }, city: { type: "string" }, required: { type: "string" } },
      if: { properties: { qty: { const: 2 } } },
      then: { required: ["city"] },
      dependentRequired: { qty: ["city"] },
    },
  });
  await runtime.restore({ baseDoc: { qty: 2 } });
  assert.deepEqual(await runtime.readState(), { qty: 2 });
  // A property merely named `required` is data the schema judges.
  await rejectsWith(
    () => runtime.restore({ baseDoc: { qty: 2, required: 5 } }),
    "validation_failed",
    /: \$\.required \(type\): must be string$/,
  );
});

Deno.test("restore checks every constraint and refuses on none: it tells which the state breaks, traced", async () => {
  const spec = {
    ...SPEC,
    constraints: [
      ...SPEC.constraints,
      { id: "few", expr: "qty <= 5", message: "at most 5", policy: "rollback" },
    ],
  };
  const { runtime } = await runtimeOf(spec);
  // As after an evolution that added the constraint: the state stands, and `explain` shows why it breaks it.
  const { broken } = await runtime.restore({ baseDoc: { qty: 6, price: 20 } });
  assert.deepEqual(broken, [
    { constraintId: "few", message: "at most 5", policy: "rollback" },
    { constraintId: "cheap", message: "total at most 50", policy: "flag" },
  ]);
  assert.deepEqual(await runtime.readState(), { qty: 6, price: 20, total: 120, summary: "total 120" });
  assert.deepEqual(runtime.explain("$constraint:few").map((t) => t.constraintPassed), [false]);
  assert.deepEqual(runtime.explain("$constraint:cheap").map((t) => t.constraintPassed), [false]);
  // The next write touching what it reads is held to it.
  await rejectsWith(() => commitMutation(runtime, { "$.qty": 7 }), "constraint_violation", /at most 5/);
  await commitMutation(runtime, { "$.qty": 1 });
  assert.deepEqual((await runtime.restore({ baseDoc: { qty: 1, price: 1 } })).broken, []);
});

Deno.test("restore computes values as creation does: one that fails to evaluate refuses it, state untouched", async () => {
  const { runtime } = await runtimeOf({
    id: "fails",
    schema: { type: "object" },
    derivations: [{ path: "$.n", expr: "$number(text)" }],
    metaDerivations: [{ path: "$.q", property: "minimum", expr: "floor" }],
  });
  await commitMutation(runtime, { "$.text": "1" });
  const before = runtime.state;
  await rejectsWith(
    () => runtime.restore({ baseDoc: { text: "x" } }),
    "validation_failed",
    /^Evaluation of derivation \$\.n failed/,
  );
  await rejectsWith(
    () => runtime.restore({ baseDoc: { floor: "5" } }),
    "validation_failed",
    /^Evaluation of meta derivation \$\.q#minimum failed: the value must be a number, not "5"/,
  );
  assert.equal(runtime.state, before);
});

Deno.test("restore tells what the derived values add before replacing anything; a refusal leaves state untouched", async () => {
  const { runtime } = await cart();
  await commitMutation(runtime, { "$.items": [{ n: 1 }] });
  const snapshot = await runtime.snapshot();
  const told: number[] = [];
  await runtime.restore(snapshot, (bytes) => told.push(bytes));
  // `"total":6` and `"double":2`, as the draft counts them (the lazy `summary` is not computed yet).
  assert.deepEqual(told, [(1 + 5 + 4) + (1 + 6 + 4)]);
  const before = runtime.state;
  await assert.rejects(
    () =>
      runtime.restore(snapshot, () => {
        throw new Error("too large");
      }),
    /too large/,
  );
  assert.equal(runtime.state, before);
});

Deno.test("restore accepts a snapshot without modelId and caches (base document only)", async () => {
  const { runtime } = await cart();
  await runtime.restore({ baseDoc: { qty: 1, price: 1 } });
  const doc = await runtime.readState() as Record<string, Json>;
  assert.equal(doc.qty, 1);
  assert.equal(doc.total, 1, "derived values are computed by the restore");
  assert.equal(doc.summary, "total 1", "the stale lazy value is evaluated on read");
});

Deno.test("parseInstant and formatInstant", () => {
  assert.equal(parseInstant("2024-01-01T00:00:00Z", "at"), Date.UTC(2024, 0, 1));
  assert.equal(parseInstant("2024-01-01", "at"), Date.UTC(2024, 0, 1));
  assert.equal(parseInstant("2024-01-01T01:00:00+01:00", "at"), Date.UTC(2024, 0, 1));
  assert.equal(formatInstant(Date.UTC(2024, 0, 1)), "2024-01-01T00:00:00.000Z");
  assert.throws(() => parseInstant("soon", "from"), /'from' is not an ISO-8601 timestamp .*: 'soon'$/);
});

Deno.test("parseInstant refuses dates and times not on the calendar instead of rolling them over", () => {
  assert.equal(parseInstant("2024-02-29T23:59:59Z", "at"), Date.UTC(2024, 1, 29, 23, 59, 59));
  assert.equal(parseInstant("2000-02-29", "at"), Date.UTC(2000, 1, 29));
  assert.equal(parseInstant("2099-12-31T00:00:00-23:59", "at"), Date.UTC(2099, 11, 31, 23, 59));
  for (
    const text of [
      "2099-02-30T00:00:00Z",
      "2023-02-29",
      "1900-02-29",
      "2099-04-31T00:00:00Z",
      "2099-13-01",
      "2099-00-10",
      "2099-01-00",
      "2099-01-01T24:00:00Z",
      "2099-01-01T23:60:00Z",
      "2099-01-01T23:59:60Z",
      "2099-01-01T00:00:00+24:00",
      "2099-01-01T00:00:00+01:60",
    ]
  ) {
    assert.throws(() => parseInstant(text, "at"), /'at' is not an ISO-8601 timestamp/, text);
  }
});

Deno.test("parseInstant refuses a time of day without its UTC offset, and reads the same instants in every time zone", async () => {
  for (const text of ["2024-01-01T10:00:00", "2024-01-01T10:00", "2024-01-01T10:00:00.5"]) {
    assert.throws(() => parseInstant(text, "at"), /'at' is not an ISO-8601 .* with its UTC offset/, text);
  }
  // The host's time zone once decided what an offset-less time meant: the same calls under two of them.
  const script = `import { parseInstant } from ${JSON.stringify(import.meta.resolve("./runtime.ts"))};
    console.log(JSON.stringify(${
    JSON.stringify(["2024-01-01", "2024-01-01T10:00:00", "2024-01-01T10:00:00+05:30"])
  }
      .map((text) => { try { return parseInstant(text, "at"); } catch (err) { return err.message; } })));`;
  const answers = await jsonInTimeZones(script, ["UTC", "Asia/Kolkata"]) as unknown[][];
  assert.deepEqual(answers[1], answers[0]);
  assert.equal(answers[0][0], Date.UTC(2024, 0, 1), "a date alone is UTC midnight");
  assert.match(String(answers[0][1]), /with its UTC offset/);
  assert.equal(answers[0][2], Date.UTC(2024, 0, 1, 4, 30));
});

Deno.test("a commit keeps the newest svc.history.max-entries states, also after a retained reload ran past it", async () => {
  const { runtime, clock } = await runtimeOf(SPEC, { historyMaxEntries: 2 });
  for (const qty of [1, 2, 3, 4]) {
    await commitMutation(runtime, { "$.qty": qty });
    clock.advance(1000);
  }
  runtime.replaceState(runtime.state, { clearHistory: false, retainAt: Date.parse("2024-01-01T00:00:10Z") });
  assert.equal(runtime.historyTimestamps().length, 3);
  clock.advance(20_000);
  await commitMutation(runtime, { "$.qty": 5 });
  assert.deepEqual(runtime.historyTimestamps(), ["2024-01-01T00:00:10.000Z", "2024-01-01T00:00:24.000Z"]);
  assert.equal((await runtime.readState("2024-01-01T00:00:24Z") as { qty: number }).qty, 5);
});

Deno.test("stateBytes is the document's exact JSON size after every mutation, patch, refusal and restore", async () => {
  const utf8 = (value: Json) => new TextEncoder().encode(JSON.stringify(value)).length;
  const spec = {
    id: "sizes",
    schema: { type: "object" },
    // A derived copy of `a` (deleted when `a` is absent) and a derived count: writes the cycle makes itself.
    derivations: [{ path: "$.echo", expr: "a" }, { path: "$.count", expr: "$count($keys($))" }],
  };
  for (let seed = 1; seed <= 12; seed++) {
    const random = randomSource(seed);
    const { runtime } = await runtimeOf(spec);
    assert.equal(runtime.stateBytes, utf8(runtime.state.doc));
    for (let step = 0; step < 60; step++) {
      const write = randomWrite(random, runtime.state.doc);
      try {
        const outcome = "mutation" in write
          ? await runtime.evaluateMutation(write.mutation)
          : await runtime.evaluatePatch(write.patch);
        if (outcome) runtime.commit(outcome);
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
      }
      assert.equal(
        runtime.stateBytes,
        utf8(runtime.state.doc),
        `seed ${seed}, step ${step}: ${JSON.stringify(write)}`,
      );
    }
    await runtime.restore(await runtime.snapshot());
    assert.equal(runtime.stateBytes, utf8(runtime.state.doc), `seed ${seed}: restored`);
  }
});

Deno.test("restore flags the live meta bounds the restored values break, as it flags constraints", async () => {
  const { runtime } = await runtimeOf({
    id: "bounded",
    schema: { type: "object", properties: { limit: { type: "number" }, qty: { type: "number" }, name: {} } },
    metaDerivations: [
      { path: "$.qty", property: "maximum", expr: "limit" },
      { path: "$.name", property: "required", expr: "qty > 0" },
    ],
  });
  const { broken } = await runtime.restore({ baseDoc: { limit: 5, qty: 9 } });
  assert.deepEqual(broken, [
    { constraintId: "$.qty#maximum", message: "must be <= 5", policy: "flag" },
    { constraintId: "$.name#required", message: "is required and cannot be cleared", policy: "flag" },
  ]);
  assert.deepEqual(await runtime.readState(), { limit: 5, qty: 9 });
  // Within the bounds: nothing flagged.
  assert.deepEqual((await runtime.restore({ baseDoc: { limit: 5, qty: 0 } })).broken, []);
  // The next write of the field is held to its bound.
  await rejectsWith(() => commitMutation(runtime, { "$.qty": 9 }), "schema_violation");
});
