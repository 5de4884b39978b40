import assert from "node:assert/strict";
import { commitMutation, commitPatch, rejectsWith, runtimeOf } from "../_test_utils.ts";
import type { Json } from "../json/value.ts";
import type { ModelRuntime } from "./runtime.ts";

/** An order: per-element line totals, an aggregate over them, and a total. */
const ORDER = {
  id: "order",
  schema: {
    type: "object",
    properties: {
      discount: { type: "number", minimum: 0 },
      note: { type: "string", maxLength: 20 },
      code: { type: "string", pattern: "^[A-Z]+$" },
      fixed: { type: "string", readOnly: true },
      customer: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, tier: { type: "string", default: "basic" } },
      },
      items: {
        type: "array",
        items: {
          type: "object",
          properties: {
            qty: { type: "integer", minimum: 0 },
            price: { type: "number" },
            type: { type: "string" },
          },
        },
      },
    },
  },
  defaultValues: [
    { path: "$", expr: "{'discount': 0, 'items': []}" },
    { path: "$.items[*]", expr: "{'qty': 1, 'type': 'std'}" },
  ],
  derivations: [
    { path: "$.items[*].lineTotal", expr: "$parent.qty * $parent.price" },
    { path: "$.subtotal", expr: "$sum(items.lineTotal)" },
    { path: "$.total", expr: "subtotal - discount" },
    { path: "$.aQty", expr: "$sum(items[type='a'].qty)" },
  ],
};

const THREE_ITEMS = {
  "$.items": [{ qty: 1, price: 10, type: "a" }, { qty: 2, price: 5, type: "b" }, {
    qty: 3,
    price: 1,
    type: "a",
  }],
};

async function orderRuntime(overrides = {}): Promise<ModelRuntime> {
  const { runtime } = await runtimeOf(ORDER, overrides);
  await commitMutation(runtime, THREE_ITEMS);
  return runtime;
}

/** Asserts that a failed write left the runtime exactly as it was. */
async function assertUntouched(runtime: ModelRuntime, write: () => Promise<unknown>): Promise<void> {
  const before = runtime.state;
  const history = runtime.historyTimestamps();
  const doc = structuredClone(before.doc);
  try {
    await write();
  } finally {
    assert.equal(runtime.state, before, "the committed state object is unchanged");
    assert.deepEqual(runtime.state.doc, doc);
    assert.deepEqual(runtime.historyTimestamps(), history);
  }
}

Deno.test("creation seeds the document from the $ rule and computes every eager derivation", async () => {
  const { runtime } = await runtimeOf(ORDER);
  // $sum over no elements is undefined in JSONata: the aggregates stay absent
  assert.deepEqual(await runtime.readState(), { discount: 0, items: [] });
  await commitMutation(runtime, THREE_ITEMS);
  assert.deepEqual(await runtime.readState(), {
    discount: 0,
    items: [
      { qty: 1, price: 10, type: "a", lineTotal: 10 },
      { qty: 2, price: 5, type: "b", lineTotal: 10 },
      { qty: 3, price: 1, type: "a", lineTotal: 3 },
    ],
    subtotal: 23,
    total: 23,
    aQty: 4,
  });
});

Deno.test("a committed mutation returns the full result shape", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.discount": 5 });
  assert.deepEqual(Object.keys(result!).sort(), [
    "derivedUpdated",
    "dispatchedEffects",
    "flaggedConstraints",
    "metaUpdated",
    "mutatedPaths",
    "success",
    "traces",
  ]);
  assert.equal(result!.success, true);
  assert.deepEqual(result!.mutatedPaths, ["$.discount"]);
  assert.deepEqual(result!.derivedUpdated, ["$.total"]);
  assert.deepEqual(result!.flaggedConstraints, []);
  assert.deepEqual(result!.dispatchedEffects, []);
  assert.deepEqual(await runtime.readField("$.total"), 23 - 5);
});

Deno.test("an aggregate over per-element derivations recomputes when one element changes, and only that element", async () => {
  const runtime = await orderRuntime();
  assert.deepEqual(await runtime.readField("$.subtotal"), 10 + 10 + 3);
  const result = await commitMutation(runtime, { "$.items[1].price": 10 });
  assert.deepEqual(result!.derivedUpdated, ["$.items[1].lineTotal", "$.subtotal", "$.total"]);
  assert.deepEqual(await runtime.readField("$.items[1].lineTotal"), 20);
  assert.deepEqual(await runtime.readField("$.subtotal"), 33);
  assert.deepEqual(await runtime.readField("$.total"), 33);
});

Deno.test("a filter predicate's fields are element-scoped: writing them recomputes the filtered aggregate", async () => {
  const runtime = await orderRuntime();
  assert.equal(await runtime.readField("$.aQty"), 4);
  const result = await commitMutation(runtime, { "$.items[1].type": "a" });
  assert.deepEqual(result!.derivedUpdated, ["$.aQty"]);
  assert.equal(await runtime.readField("$.aQty"), 6);
});

Deno.test("dirty propagation: a field no derivation reads recomputes nothing", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.note": "hello" });
  assert.deepEqual(result!.derivedUpdated, []);
  assert.deepEqual(result!.traces, []);
});

Deno.test("dirty propagation: replacing a container recomputes what lies below it", async () => {
  const runtime = await orderRuntime();
  const whole = await commitMutation(runtime, { "$.items": [{ qty: 1, price: 1 }, { qty: 1, price: 2 }] });
  assert.deepEqual(whole!.derivedUpdated, [
    "$.items[0].lineTotal",
    "$.items[1].lineTotal",
    "$.aQty",
    "$.subtotal",
    "$.total",
  ]);
  const element = await commitMutation(runtime, { "$.items[0]": { qty: 5, price: 1, type: "a" } });
  assert.deepEqual(element!.derivedUpdated, ["$.items[0].lineTotal", "$.aQty", "$.subtotal", "$.total"]);
  assert.equal(await runtime.readField("$.total"), 7);
});

Deno.test("dirty propagation: a read of a container sees writes below it", async () => {
  const { runtime } = await runtimeOf({
    id: "ancestor",
    schema: { type: "object", properties: { customer: { type: "object" }, other: { type: "number" } } },
    derivations: [{ path: "$.label", expr: "$string(customer)" }],
  });
  const below = await commitMutation(runtime, { "$.customer.name": "Ada" });
  assert.deepEqual(below!.derivedUpdated, ["$.label"]);
  assert.equal(await runtime.readField("$.label"), '{"name":"Ada"}');
  const unrelated = await commitMutation(runtime, { "$.other": 1 });
  assert.deepEqual(unrelated!.derivedUpdated, []);
});

Deno.test("a level sees earlier levels' new values within one mutation", async () => {
  const { runtime } = await runtimeOf({
    id: "chain",
    schema: { type: "object", properties: { x: { type: "number" } } },
    derivations: [
      { path: "$.c", expr: "b * 10" },
      { path: "$.b", expr: "a + 1" },
      { path: "$.a", expr: "x * 2" },
    ],
  });
  const result = await commitMutation(runtime, { "$.x": 1 });
  assert.deepEqual(result!.derivedUpdated, ["$.a", "$.b", "$.c"]);
  assert.deepEqual(await runtime.readState(), { x: 1, a: 2, b: 3, c: 30 });
});

Deno.test("schema validation happens before any write: 422-kind error with path and keyword, state untouched", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(runtime, async () => {
    const err = await rejectsWith(
      () => runtime.evaluateMutation({ "$.note": "fine", "$.discount": -1, "$.items[0].qty": 1.5 }),
      "schema_violation",
      /\$\.discount \(minimum\)/,
      /\$\.items\[0\]\.qty \(type\)/,
    );
    const violations = err.body!.violations as { path: string; keyword: string; message: string }[];
    assert.equal(err.body!.error, "Schema violation");
    assert.deepEqual(violations.map((v) => [v.path, v.keyword]), [
      ["$.discount", "minimum"],
      ["$.items[0].qty", "type"],
    ]);
    for (const v of violations) assert.equal(typeof v.message, "string");
  });
});

Deno.test("schema validation: additional keywords and nested values are checked", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.note": "x".repeat(21) }),
      "schema_violation",
      /maxLength/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.code": "abc" }),
      "schema_violation",
      /\$\.code \(pattern\)/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.items[3]": { qty: -1 } }),
      "schema_violation",
      /\$\.items\[3\]\.qty \(minimum\)/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.discount.deep": 1 }),
      "schema_violation",
      /\$\.discount \(type\): holds a number/,
    );
  });
});

Deno.test("schema readOnly fields are refused for callers and accepted from executor fold-back", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.fixed": "x" }),
        "schema_violation",
        /\$\.fixed \(readOnly\)/,
      ),
  );
  const outcome = await runtime.evaluateMutation({ "$.fixed": "x" }, "foldback");
  runtime.commit(outcome!);
  assert.equal(await runtime.readField("$.fixed"), "x");
});

Deno.test("pattern input longer than svc.limits.regex-max-input is refused", async () => {
  const runtime = await orderRuntime({ regexMaxInput: 8 });
  await commitMutation(runtime, { "$.code": "ABCDEFGH" });
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.code": "ABCDEFGHI" }),
      "schema_violation",
      /\$\.code \(pattern\)/,
      /svc\.limits\.regex-max-input \(8\)/,
    ));
});

Deno.test("writes to derived paths are refused, per element too", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.subtotal": 1 }),
      "schema_violation",
      /\$\.subtotal \(readOnly\): is computed by the derivation \$\.subtotal/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.items[0].lineTotal": 1 }),
      "schema_violation",
      /derivation \$\.items\[\*\]\.lineTotal/,
    );
  });
});

Deno.test("an array index above svc.limits.max-array-index is refused before allocation", async () => {
  const runtime = await orderRuntime({ maxArrayIndex: 10 });
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.items[11].qty": 1 }),
      "validation_failed",
      /Array index 11 in \$\.items\[11\]\.qty exceeds svc\.limits\.max-array-index \(10\)/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "add", path: "/items/99999999", value: {} }]),
      "validation_failed",
      /max-array-index/,
    );
  });
  const result = await commitMutation(runtime, { "$.scratch[10]": 1 });
  assert.deepEqual(result!.mutatedPaths, ["$.scratch[10]"]);
});

Deno.test("a write past an array's end is refused when the null-filled gap would violate the schema", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.items[4].qty": 1 }),
      "schema_violation",
      /\$\.items\[3\] \(type\): must be object \(writing \$\.items\[4\]\.qty would fill \$\.items\[3\] with null\)/,
    ));
  const filled = await commitMutation(runtime, { "$.items[3].qty": 1, "$.items[4].qty": 2 });
  assert.deepEqual(filled!.mutatedPaths.slice(0, 2), ["$.items[3].qty", "$.items[4].qty"]);
  const untyped = await commitMutation(runtime, { "$.scratch[2]": "x" });
  assert.deepEqual(untyped!.mutatedPaths, ["$.scratch[2]"]);
  assert.deepEqual(await runtime.readField("$.scratch"), [null, null, "x"]);
});

Deno.test("the keys of one mutation apply in order: a later key sees what an earlier one created", async () => {
  const runtime = await orderRuntime();
  await commitMutation(runtime, { "$.scratch": 5 });
  await rejectsWith(
    () => runtime.evaluateMutation({ "$.scratch.x": 1 }),
    "schema_violation",
    /holds a number/,
  );
  await commitMutation(runtime, { "$.scratch": {}, "$.scratch.x": 1 });
  assert.deepEqual(await runtime.readField("$.scratch"), { x: 1 });
  // every violation is still reported, and none of the mutation is applied
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.discount": -1, "$.note": "fine", "$.items[0].qty": -2 }),
      "schema_violation",
      /\$\.discount \(minimum\).*\$\.items\[0\]\.qty \(minimum\)/,
    ));
});

Deno.test("mutation keys must be canonical concrete addresses", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.items.0.qty": 1 }),
      "validation_failed",
      /write it as '\$\.items\[0\]\.qty'/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "discount": 1 }),
      "validation_failed",
      /'\$\.discount'/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.items[*].qty": 1 }),
      "validation_failed",
      /not \[\*\]/,
    );
    await rejectsWith(() => runtime.evaluateMutation([] as never), "bad_request", /JSON object/);
  });
});

Deno.test("an empty mutation writes nothing", async () => {
  const runtime = await orderRuntime();
  const before = runtime.state;
  assert.equal(await runtime.evaluateMutation({}), null);
  assert.equal(runtime.state, before);
});

Deno.test("defaultValues fill newly created containers; existing values are kept; mutatedPaths lists them after the caller's keys", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.items[3].price": 7 });
  assert.deepEqual(result!.mutatedPaths, ["$.items[3].price", "$.items[3].qty", "$.items[3].type"]);
  assert.deepEqual(await runtime.readField("$.items[3]"), { price: 7, qty: 1, type: "std", lineTotal: 7 });
  const explicit = await commitMutation(runtime, { "$.items[4]": { qty: 9, price: 1 } });
  assert.deepEqual(explicit!.mutatedPaths, ["$.items[4]", "$.items[4].type"]);
  assert.deepEqual(await runtime.readField("$.items[4]"), { qty: 9, price: 1, type: "std", lineTotal: 9 });
  const existing = await commitMutation(runtime, { "$.items[0].qty": 2 });
  assert.deepEqual(existing!.mutatedPaths, ["$.items[0].qty"], "an existing element is not a new container");
});

Deno.test("schema defaults fill newly created objects", async () => {
  const runtime = await orderRuntime();
  const result = await commitMutation(runtime, { "$.customer.name": "Ada" });
  assert.deepEqual(result!.mutatedPaths, ["$.customer.name", "$.customer.tier"]);
  assert.deepEqual(await runtime.readField("$.customer"), { name: "Ada", tier: "basic" });
  await commitMutation(runtime, { "$.customer.tier": "gold" });
  await commitMutation(runtime, { "$.customer.name": "Bob" });
  assert.deepEqual(await runtime.readField("$.customer"), { name: "Bob", tier: "gold" });
});

Deno.test("removing a statically required field is refused", async () => {
  const runtime = await orderRuntime();
  await commitMutation(runtime, { "$.customer.name": "Ada" });
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluatePatch([{ op: "remove", path: "/customer/name" }]),
      "schema_violation",
      /\$\.customer\.name \(required\)/,
    ));
});

const LAZY = {
  id: "lazy",
  schema: { type: "object", properties: { x: { type: "number" } } },
  derivations: [
    { path: "$.eager", expr: "x + 1" },
    { path: "$.report", expr: "'x is ' & $string(x)", evaluation: "lazy" },
  ],
};

Deno.test("lazy derivations are stale after a commit until a read evaluates them", async () => {
  const { runtime } = await runtimeOf(LAZY);
  const result = await commitMutation(runtime, { "$.x": 1 });
  assert.ok(!result!.derivedUpdated.includes("$.report"), "a lazy derivation is not evaluated in the cycle");
  assert.ok(runtime.state.stale.has("$.report"));
  assert.equal(await runtime.readField("$.report"), "x is 1");
  assert.equal(runtime.state.stale.size, 0, "the read evaluated it");
  await commitMutation(runtime, { "$.x": 2 });
  assert.ok(runtime.state.stale.has("$.report"));
  assert.deepEqual((await runtime.readState() as Record<string, Json>).report, "x is 2");
});

Deno.test("an eager derivation reading a lazy one evaluates it first", async () => {
  const { runtime } = await runtimeOf({
    ...LAZY,
    derivations: [...LAZY.derivations, { path: "$.afterLazy", expr: "report & '!'" }],
  });
  const result = await commitMutation(runtime, { "$.x": 5 });
  assert.deepEqual(result!.derivedUpdated, ["$.eager", "$.report", "$.afterLazy"]);
  assert.equal(runtime.state.doc && (runtime.state.doc as Record<string, Json>).afterLazy, "x is 5!");
  assert.equal(await runtime.readField("$.afterLazy"), "x is 5!");
  assert.equal(await runtime.readField("$.eager"), 6);
});

const METAS = {
  id: "metas",
  schema: {
    type: "object",
    properties: {
      limits: { type: "object" },
      amount: { type: "number" },
      step: { type: "number" },
      text: { type: "string" },
      code: { type: "string" },
      color: { type: "string" },
      locked: { type: "string" },
      email: { type: "string" },
      rows: {
        type: "array",
        items: { type: "object", properties: { qty: { type: "number" }, max: { type: "number" } } },
      },
    },
  },
  metaDerivations: [
    { path: "$.amount", property: "minimum", expr: "limits.min" },
    { path: "$.amount", property: "maximum", expr: "limits.max" },
    { path: "$.step", property: "multipleOf", expr: "limits.step" },
    { path: "$.text", property: "minLength", expr: "limits.minLength" },
    { path: "$.text", property: "maxLength", expr: "limits.maxLength" },
    { path: "$.code", property: "pattern", expr: "limits.pattern" },
    { path: "$.color", property: "enum", expr: "limits.colors" },
    { path: "$.locked", property: "readOnly", expr: "limits.locked" },
    { path: "$.email", property: "required", expr: "limits.emailRequired" },
    { path: "$.rows[*].qty", property: "maximum", expr: "$parent.max" },
  ],
};

async function metaRuntime(): Promise<ModelRuntime> {
  const { runtime } = await runtimeOf(METAS);
  await commitMutation(runtime, {
    "$.email": "a@b.c",
    "$.limits": {
      min: 1,
      max: 10,
      step: 5,
      minLength: 2,
      maxLength: 4,
      pattern: "^[a-z]+$",
      colors: ["red", "blue"],
      locked: true,
      emailRequired: true,
    },
  });
  return runtime;
}

Deno.test("meta values overlay the schema and are enforced on the next mutation", async () => {
  const runtime = await metaRuntime();
  const refused: [Record<string, Json>, RegExp][] = [
    [{ "$.amount": 0 }, /\$\.amount \(minimum\): must be >= 1/],
    [{ "$.amount": 11 }, /\$\.amount \(maximum\): must be <= 10/],
    [{ "$.step": 7 }, /\$\.step \(multipleOf\)/],
    [{ "$.text": "a" }, /\$\.text \(minLength\)/],
    [{ "$.text": "abcde" }, /\$\.text \(maxLength\)/],
    [{ "$.code": "ABC" }, /\$\.code \(pattern\)/],
    [{ "$.color": "green" }, /\$\.color \(enum\)/],
    [{ "$.locked": "x" }, /\$\.locked \(readOnly\)/],
    [{ "$.email": null }, /\$\.email \(required\): is required and cannot be cleared/],
  ];
  for (const [mutation, message] of refused) {
    await assertUntouched(
      runtime,
      () => rejectsWith(() => runtime.evaluateMutation(mutation), "schema_violation", message),
    );
  }
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluatePatch([{ op: "remove", path: "/email" }]),
        "schema_violation",
        /required/,
      ),
  );
  const accepted = await commitMutation(runtime, {
    "$.amount": 10,
    "$.step": 15,
    "$.text": "abcd",
    "$.code": "abc",
    "$.color": "blue",
  });
  assert.deepEqual(accepted!.mutatedPaths.length, 5);
});

Deno.test("a live meta pattern refuses input longer than svc.limits.regex-max-input", async () => {
  const { runtime } = await runtimeOf(METAS, { regexMaxInput: 5 });
  await commitMutation(runtime, { "$.limits": { pattern: "^[a-z]+$" } });
  await commitMutation(runtime, { "$.code": "abcde" });
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.code": "abcdef" }),
      "schema_violation",
      /\$\.code \(pattern\): value of 6 characters exceeds svc\.limits\.regex-max-input \(5\)/,
    ));
});

Deno.test("meta values are enforced on a container write for the leaves below it", async () => {
  const runtime = await metaRuntime();
  await commitMutation(runtime, { "$.rows": [{ qty: 1, max: 3 }] });
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.rows[0]": { qty: 9, max: 3 } }),
      "schema_violation",
      /\$\.rows\[0\]\.qty \(maximum\)/,
    ));
});

Deno.test("meta derivations run per element for [*] paths, keyed by the concrete path", async () => {
  const runtime = await metaRuntime();
  const result = await commitMutation(runtime, { "$.rows": [{ qty: 1, max: 3 }, { qty: 1, max: 5 }] });
  assert.deepEqual(result!.metaUpdated, ["$.rows[0].qty#maximum", "$.rows[1].qty#maximum"]);
  assert.equal(runtime.state.meta.get("$.rows[0].qty#maximum"), 3);
  assert.equal(runtime.state.meta.get("$.rows[1].qty#maximum"), 5);
  await rejectsWith(() => runtime.evaluateMutation({ "$.rows[1].qty": 6 }), "schema_violation", /maximum/);
  const one = await commitMutation(runtime, { "$.rows[1].max": 9 });
  assert.deepEqual(one!.metaUpdated, ["$.rows[1].qty#maximum"]);
  await commitMutation(runtime, { "$.rows[1].qty": 6 });
});

Deno.test("per-element meta values follow their elements on insert and remove, and vanish with them", async () => {
  const runtime = await metaRuntime();
  await commitMutation(runtime, { "$.rows": [{ qty: 1, max: 3 }, { qty: 1, max: 5 }] });
  const rowMetas = () => [...runtime.state.meta].filter(([k]) => k.startsWith("$.rows"));
  await commitPatch(runtime, [{ op: "remove", path: "/rows/0" }]);
  assert.deepEqual(rowMetas(), [["$.rows[0].qty#maximum", 5]]);
  await commitMutation(runtime, { "$.rows[0].qty": 4 }); // the remaining row's own maximum (5) applies
  await commitPatch(runtime, [{ op: "add", path: "/rows/0", value: { qty: 0, max: 1 } }]);
  assert.deepEqual(rowMetas().sort(), [["$.rows[0].qty#maximum", 1], ["$.rows[1].qty#maximum", 5]]);
  await commitMutation(runtime, { "$.rows": [] });
  assert.deepEqual(rowMetas(), []);
  await commitMutation(runtime, { "$.rows[0].qty": 50 }); // no stale maximum left behind
});

Deno.test("meta keys use snake_case property names", async () => {
  const runtime = await metaRuntime();
  assert.deepEqual([...runtime.state.meta.keys()].sort(), [
    "$.amount#maximum",
    "$.amount#minimum",
    "$.code#pattern",
    "$.color#enum",
    "$.email#required",
    "$.locked#read_only",
    "$.step#multiple_of",
    "$.text#max_length",
    "$.text#min_length",
  ]);
});

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

Deno.test("a runaway expression fails its mutation cleanly (timeout) and leaves state untouched", async () => {
  const { runtime } = await runtimeOf({
    id: "runaway",
    schema: { type: "object", properties: { n: { type: "number" } } },
    derivations: [{
      path: "$.spin",
      expr: "n > 0 ? ($f := function($i){ $i > 0 ? $f($i - 1) : 0 }; $f(100000000)) : 0",
    }],
  }, { expressionTimeoutMs: 30, expressionMaxDepth: 100_000_000 });
  await assertUntouched(runtime, () =>
    rejectsWith(
      () => runtime.evaluateMutation({ "$.n": 1 }),
      "validation_failed",
      /Evaluation of derivation \$\.spin failed: D1012: Evaluation timeout/,
    ));
});

Deno.test("deep recursion fails its mutation cleanly (depth guard) and leaves state untouched", async () => {
  const { runtime } = await runtimeOf({
    id: "deep",
    schema: { type: "object", properties: { n: { type: "number" } } },
    derivations: [{ path: "$.depth", expr: "($f := function($i){ $i > 0 ? 1 + $f($i - 1) : 0 }; $f(n))" }],
  }, { expressionMaxDepth: 100 });
  await commitMutation(runtime, { "$.n": 3 });
  assert.equal(await runtime.readField("$.depth"), 3);
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.n": 10_000 }),
        "validation_failed",
        /D1011: Stack overflow/,
      ),
  );
});

Deno.test("an evaluation error in a derivation fails the mutation and names the target", async () => {
  const { runtime } = await runtimeOf({
    id: "err",
    schema: { type: "object", properties: { s: { type: "string" } } },
    derivations: [{ path: "$.n", expr: "$number(s)" }],
  });
  await commitMutation(runtime, { "$.s": "12" });
  await assertUntouched(
    runtime,
    () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.s": "twelve" }),
        "validation_failed",
        /Evaluation of derivation \$\.n failed/,
      ),
  );
});

// ------------------------------------------------------------------- JSON Patch

Deno.test("JSON Patch add with '-' appends; the new element gets defaults and only it is derived", async () => {
  const runtime = await orderRuntime();
  const result = await commitPatch(runtime, [{ op: "add", path: "/items/-", value: { price: 4 } }]);
  assert.deepEqual(result!.mutatedPaths, ["$.items[3]", "$.items[3].qty", "$.items[3].type"]);
  assert.deepEqual(result!.derivedUpdated, ["$.items[3].lineTotal", "$.aQty", "$.subtotal", "$.total"]);
  assert.deepEqual(await runtime.readField("$.items[3]"), { price: 4, qty: 1, type: "std", lineTotal: 4 });
});

Deno.test("JSON Patch insert shifts later elements without recomputing them", async () => {
  const runtime = await orderRuntime();
  const result = await commitPatch(runtime, [{
    op: "add",
    path: "/items/0",
    value: { qty: 2, price: 2, type: "b" },
  }]);
  assert.deepEqual(result!.derivedUpdated, ["$.items[0].lineTotal", "$.aQty", "$.subtotal", "$.total"]);
  const items = await runtime.readField("$.items") as Record<string, Json>[];
  assert.deepEqual(items.map((i) => i.lineTotal), [4, 10, 10, 3]);
  assert.equal(await runtime.readField("$.subtotal"), 27);
});

Deno.test("JSON Patch remove, replace, move (reorder), copy and test", async () => {
  const runtime = await orderRuntime();
  const removed = await commitPatch(runtime, [{ op: "remove", path: "/items/0" }]);
  assert.deepEqual(removed!.derivedUpdated, ["$.aQty", "$.subtotal", "$.total"]);
  assert.equal(await runtime.readField("$.subtotal"), 13);

  await commitPatch(runtime, [{ op: "replace", path: "/items/0/qty", value: 3 }]);
  assert.equal(await runtime.readField("$.items[0].lineTotal"), 15);

  await commitPatch(runtime, [{ op: "move", from: "/items/1", path: "/items/0" }]);
  const reordered = await runtime.readField("$.items") as Record<string, Json>[];
  assert.deepEqual(reordered.map((i) => i.lineTotal), [3, 15]);

  await commitPatch(runtime, [{ op: "copy", from: "/items/1", path: "/items/-" }]);
  assert.equal(await runtime.readField("$.subtotal"), 33);

  const tested = await commitPatch(runtime, [
    { op: "test", path: "/items/0/qty", value: 3 },
    { op: "replace", path: "/discount", value: 3 },
  ]);
  assert.deepEqual(tested!.mutatedPaths, ["$.discount"]);
  assert.equal(await runtime.readField("$.total"), 30);
});

Deno.test("nested per-element derivations: only the touched order recomputes, also when a line is removed", async () => {
  const { runtime } = await runtimeOf({
    id: "orders",
    schema: {
      type: "object",
      properties: {
        orders: {
          type: "array",
          items: { type: "object", properties: { lines: { type: "array", items: { type: "object" } } } },
        },
      },
    },
    derivations: [
      { path: "$.orders[*].lines[*].amount", expr: "$parent.q * 2" },
      { path: "$.orders[*].sum", expr: "$sum($parent.lines.amount)" },
      { path: "$.grand", expr: "$sum(orders.sum)" },
    ],
  });
  await commitMutation(runtime, { "$.orders": [{ lines: [{ q: 1 }, { q: 2 }] }, { lines: [{ q: 3 }] }] });
  const changed = await commitMutation(runtime, { "$.orders[1].lines[0].q": 10 });
  assert.deepEqual(changed!.derivedUpdated, ["$.orders[1].lines[0].amount", "$.orders[1].sum", "$.grand"]);
  const removed = await commitPatch(runtime, [{ op: "remove", path: "/orders/0/lines/0" }]);
  assert.deepEqual(removed!.derivedUpdated, ["$.orders[0].sum", "$.grand"]);
  assert.equal(await runtime.readField("$.orders[0].sum"), 4);
  assert.equal(await runtime.readField("$.grand"), 24);
});

Deno.test("JSON Patch failures leave state untouched: failed test, missing path, bad shape, derived target, schema", async () => {
  const runtime = await orderRuntime();
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () =>
        runtime.evaluatePatch([
          { op: "replace", path: "/discount", value: 1 },
          { op: "test", path: "/discount", value: 2 },
        ]),
      "conflict",
      /Patch operation 1 \(test \/discount\)/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "remove", path: "/nothing/here" }]),
      "validation_failed",
      /Patch operation 0/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "jump", path: "/a" }]),
      "bad_request",
      /Invalid JSON Patch/,
    );
    await rejectsWith(() => runtime.evaluatePatch({} as never), "bad_request", /array of operations/);
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "replace", path: "/subtotal", value: 1 }]),
      "schema_violation",
      /readOnly/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "add", path: "/items/-", value: { qty: -5 } }]),
      "schema_violation",
      /\$\.items\[3\]\.qty \(minimum\)/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "add", path: "/items/x", value: {} }]),
      "validation_failed",
      /not an array index/,
    );
  });
});

// A per-element node that reads no field of its element still belongs to each new element.
const RANKED = {
  id: "ranked",
  schema: {
    type: "object",
    properties: {
      label: { type: "string" },
      items: { type: "array", items: { type: "object", properties: { qty: { type: "number" } } } },
    },
  },
  constants: { unit: "kg" },
  derivations: [
    { path: "$.items[*].unit", expr: "$const.unit" },
    { path: "$.items[*].heading", expr: "$$.label" },
  ],
  metaDerivations: [{ path: "$.items[*].qty", property: "readOnly", expr: "false" }],
};

Deno.test("per-element derivations reading no element field run for elements created by a write", async () => {
  const { runtime } = await runtimeOf(RANKED);
  await commitMutation(runtime, { "$.label": "stock", "$.items[0].qty": 1 });
  await commitMutation(runtime, { "$.items[1].qty": 2 });
  const state = await runtime.readState() as { items: Json[] };
  assert.deepEqual(state.items, [
    { qty: 1, unit: "kg", heading: "stock" },
    { qty: 2, unit: "kg", heading: "stock" },
  ]);
});

Deno.test("per-element derivations reading no element field run for an array replaced or patched in", async () => {
  const { runtime } = await runtimeOf(RANKED);
  await commitMutation(runtime, { "$.items": [{ qty: 1 }, { qty: 2 }] });
  await commitPatch(runtime, [{ op: "add", path: "/items/1", value: { qty: 5 } }]);
  const state = await runtime.readState() as { items: { unit?: string; qty: number }[] };
  assert.deepEqual(state.items.map((i) => [i.qty, i.unit]), [[1, "kg"], [5, "kg"], [2, "kg"]]);
});

const DEFAULTED = {
  id: "defaulted",
  schema: {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          properties: { qty: { type: "integer", default: "many" }, tag: { type: "string" } },
        },
      },
      rows: {
        type: "array",
        items: { type: "object", properties: { size: { type: "integer", minimum: 1 } } },
      },
    },
  },
  defaultValues: [{ path: "$.rows[*]", expr: "{'size': 0}" }],
};

Deno.test("a schema default the schema refuses fails the write naming it, state untouched", async () => {
  const { runtime } = await runtimeOf(DEFAULTED);
  const before = structuredClone(await runtime.readState());
  await rejectsWith(
    () => commitMutation(runtime, { "$.items[0].tag": "a" }),
    "validation_failed",
    /default for \$\.items\[0\]\.qty from the schema default violates the schema/,
  );
  assert.deepEqual(await runtime.readState(), before);
});

Deno.test("a defaultValues rule producing a value the schema refuses fails the write naming the rule", async () => {
  const { runtime } = await runtimeOf(DEFAULTED);
  await rejectsWith(
    () => commitMutation(runtime, { "$.rows[0].size": 3, "$.rows[1]": {} }),
    "validation_failed",
    /defaultValues rule \$\.rows\[\*\]/,
    /minimum|>= 1/,
  );
  assert.deepEqual(await runtime.readState(), {});
});
