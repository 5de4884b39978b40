import assert from "node:assert/strict";
import { commitMutation, rejectsWith, runtimeOf } from "../_test_utils.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { assertUntouched, metaRuntime, METAS, orderRuntime } from "./test_support.ts";
import { MAX_TRACED_CHARS } from "./traces.ts";
import { checkMetaOverlay, writeKey } from "./write_checks.ts";

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

Deno.test("schema validation: a field whose $ref has sibling keywords is checked against them too", async () => {
  const { runtime } = await runtimeOf({
    id: "sibling-ref",
    schema: {
      type: "object",
      properties: { qty: { $ref: "#/$defs/Count", maximum: 5 }, spare: { $ref: "#/$defs/Count" } },
      $defs: { Count: { type: "integer", minimum: 0 } },
    },
  });
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.qty": 6 }),
      "schema_violation",
      /\$\.qty \(maximum\)/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.qty": -1 }),
      "schema_violation",
      /\$\.qty \(minimum\)/,
    );
  });
  await commitMutation(runtime, { "$.qty": 5, "$.spare": 6 });
  assert.deepEqual(await runtime.readState(), { qty: 5, spare: 6 });
});

Deno.test("schema validation: a write under a container may not break the container's upper bounds", async () => {
  const { runtime } = await runtimeOf({
    id: "bounded",
    schema: {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string" }, maxItems: 3, uniqueItems: true, minItems: 2 },
        box: {
          type: "object",
          properties: { w: { type: "number" }, h: { type: "number" } },
          maxProperties: 1,
          required: ["w", "h"],
        },
        labels: {
          type: "object",
          additionalProperties: { type: "string" },
          propertyNames: { pattern: "^[a-z]+$" },
        },
      },
    },
  });
  // Lower bounds (minItems, required) are a whole container's: filling it one member at a time is allowed.
  await commitMutation(runtime, { "$.tags[0]": "a" });
  await commitMutation(runtime, { "$.tags[1]": "b", "$.tags[2]": "c", "$.box.w": 1, "$.labels.ok": "x" });
  await assertUntouched(runtime, async () => {
    const refused: [Record<string, Json>, RegExp][] = [
      [{ "$.tags[3]": "d" }, /\$\.tags \(maxItems\)/],
      [{ "$.tags[0]": "b" }, /\$\.tags \(uniqueItems\)/],
      [{ "$.box.h": 2 }, /\$\.box \(maxProperties\)/],
      [{ "$.labels.Bad": "x" }, /\$\.labels \(propertyNames\)/],
    ];
    for (const [mutation, reason] of refused) {
      await rejectsWith(() => runtime.evaluateMutation(mutation), "schema_violation", reason);
    }
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "add", path: "/tags/0", value: "z" }]),
      "schema_violation",
      /\$\.tags \(maxItems\)/,
    );
  });
  // Within the bounds, the same containers take writes.
  await commitMutation(runtime, { "$.tags[0]": "z", "$.box.w": 2, "$.labels.fine": "y" });
  assert.deepEqual(await runtime.readState(), {
    tags: ["z", "b", "c"],
    box: { w: 2 },
    labels: { ok: "x", fine: "y" },
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

Deno.test("a write under a container may not break its conditions; what it broke before, or lacks, is not held against it", async () => {
  const { runtime } = await runtimeOf({
    id: "conditions",
    schema: {
      type: "object",
      properties: {
        pair: {
          type: "object",
          properties: { lo: { type: "number" }, hi: { type: "number" } },
          if: { properties: { lo: { const: 0 } }, required: ["lo"] },
          then: { properties: { hi: { maximum: 10 } }, required: ["hi"] },
        },
        point: { type: "object", enum: [{ x: 0, y: 0 }, { x: 1, y: 1 }] },
      },
    },
  });
  // `then` requires hi: a lower bound, which filling the pair field by field passes through.
  await commitMutation(runtime, { "$.pair.lo": 0 });
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.pair.hi": 50 }),
      "schema_violation",
      /\$\.pair\.hi \(maximum\)/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.pair.lo": 0, "$.pair.hi": 11 }),
      "schema_violation",
      /maximum/,
    );
  });
  await commitMutation(runtime, { "$.pair.hi": 10, "$.point": { x: 1, y: 1 } });
  await rejectsWith(
    () => runtime.evaluateMutation({ "$.point.y": 0 }),
    "schema_violation",
    /\$\.point \(enum\)/,
  );
  // A pair that broke its condition before (state as restored) takes writes that do not make it worse.
  const { state } = runtime;
  runtime.replaceState({ ...state, doc: { ...(state.doc as JsonObject), pair: { lo: 0, hi: 99 } } }, {
    clearHistory: false,
  });
  await commitMutation(runtime, { "$.pair.note": "kept" });
  assert.deepEqual((await runtime.readState() as JsonObject).pair, { lo: 0, hi: 99, note: "kept" });
});

Deno.test("read-only holds for a container's members and for removals; a fold-back may still write", async () => {
  const { runtime } = await runtimeOf({
    id: "locked",
    schema: {
      type: "object",
      properties: {
        config: { type: "object", readOnly: true, properties: { x: { type: "number" } } },
        list: { type: "array", readOnly: true, items: { type: "number" } },
        locked: { type: "number", readOnly: true, default: 5 },
        open: { type: "object", properties: { y: { type: "number" } } },
        mode: { type: "string" },
      },
    },
    metaDerivations: [{ path: "$.open", property: "readOnly", expr: "mode = 'frozen'" }],
  });
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.config.x": 1 }),
      "schema_violation",
      /\$\.config\.x \(readOnly\): is inside \$\.config, which is read-only/,
    );
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.list[0]": 1 }),
      "schema_violation",
      /inside \$\.list/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "remove", path: "/locked" }]),
      "schema_violation",
      /\$\.locked \(readOnly\): is read-only/,
    );
  });
  // A live readOnly on a container binds its members as it stands.
  await commitMutation(runtime, { "$.open.y": 1 });
  await commitMutation(runtime, { "$.mode": "frozen" });
  await rejectsWith(() => runtime.evaluateMutation({ "$.open.y": 2 }), "schema_violation", /inside \$\.open/);
  const folded = await runtime.evaluateMutation({ "$.config.x": 7, "$.open.y": 3 }, "foldback");
  runtime.commit(folded!);
  assert.deepEqual(await runtime.readState(), {
    locked: 5,
    open: { y: 3 },
    mode: "frozen",
    config: { x: 7 },
  });
});

Deno.test("a container written whole keeps its read-only members as they are; derived members are computed", async () => {
  const { runtime } = await runtimeOf({
    id: "quote",
    schema: {
      type: "object",
      properties: {
        quote: {
          type: "object",
          properties: {
            price: { type: "number", readOnly: true },
            note: { type: "string" },
            qty: { type: "number" },
            total: { type: "number", readOnly: true },
          },
        },
      },
    },
    derivations: [{ path: "$.quote.total", expr: "quote.price * quote.qty" }],
  });
  // An executor's fold-back sets the read-only price.
  runtime.commit((await runtime.evaluateMutation({ "$.quote": { price: 10, note: "a" } }, "foldback"))!);
  await assertUntouched(runtime, async () => {
    for (const quote of [{ price: 0, note: "b" }, { note: "b" }, null] as Json[]) {
      await rejectsWith(
        () => runtime.evaluateMutation({ "$.quote": quote }),
        "schema_violation",
        /\$\.quote\.price \(readOnly\): is read-only: the write would change it/,
      );
    }
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "remove", path: "/quote" }]),
      "schema_violation",
      /price/,
    );
  });
  // Unchanged read-only members, and derived ones whatever they hold, let the write through.
  await commitMutation(runtime, { "$.quote": { price: 10, note: "b", qty: 3, total: -1 } });
  assert.deepEqual(await runtime.readState(), { quote: { price: 10, note: "b", qty: 3, total: 30 } });
});

Deno.test("the containers a write creates on its way must be of the kind their schema allows", async () => {
  const { runtime } = await runtimeOf({
    id: "kinds",
    schema: {
      type: "object",
      properties: {
        list: { type: "array", items: { type: "number" } },
        n: { type: "number" },
        obj: { type: "object", properties: { k: { type: "string" } } },
        maybe: { type: ["object", "null"], properties: { k: { type: "string" } } },
      },
    },
  });
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.list.b": 1 }),
      "schema_violation",
      /\$\.list \(type\): must be array: writing \$\.list\.b would make it an object/,
    );
    await rejectsWith(() => runtime.evaluateMutation({ "$.n.x": 1 }), "schema_violation", /\$\.n \(type\)/);
    await rejectsWith(
      () => runtime.evaluateMutation({ "$.obj[0]": "s" }),
      "schema_violation",
      /would make it an array/,
    );
  });
  await commitMutation(runtime, { "$.maybe": null });
  await commitMutation(runtime, { "$.list[0]": 1, "$.obj.k": "s", "$.maybe.k": "t", "$.free.y": 2 });
  assert.deepEqual(await runtime.readState(), {
    maybe: { k: "t" },
    list: [1],
    obj: { k: "s" },
    free: { y: 2 },
  });
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

Deno.test("a mutation key parsed before gives its path and canonical address, a bad key the same error every time", async () => {
  const runtime = await orderRuntime();
  const key = "$.items[0].qty";
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(writeKey(key), { path: ["items", 0, "qty"], address: key });
    assert.deepEqual(writeKey("$['items'][0]['qty']"), { path: ["items", 0, "qty"], address: key });
    // The write names its path by the canonical address, parsed once or again.
    const outcome = await runtime.evaluateMutation({ "$['items'][0]['qty']": 2 + i });
    assert.deepEqual(outcome!.result.mutatedPaths, [key]);
  }
  for (let i = 0; i < 2; i++) {
    await rejectsWith(
      () => commitMutation(runtime, { "$.items.0.qty": 1 }),
      "validation_failed",
      /^Invalid mutation path: '\$\.items\.0\.qty' uses the legacy dot-index form; write it as '\$\.items\[0\]\.qty'$/,
    );
    await rejectsWith(
      () => commitMutation(runtime, { "$.items[*].qty": 1 }),
      "validation_failed",
      /not \[\*\]/,
    );
  }
  const long = `$.${"x".repeat(300)}`;
  assert.deepEqual(writeKey(long), { path: ["x".repeat(300)], address: long });
  assert.deepEqual(writeKey(long), { path: ["x".repeat(300)], address: long });
});

Deno.test("a write under a new member named like an Object.prototype property is a write like any other", async () => {
  const { runtime } = await runtimeOf({ id: "proto-names", schema: { type: "object" } });
  await commitMutation(runtime, {
    "$.constructor.name": "Ferrari",
    "$.toString.x": 1,
    "$.list[1].valueOf": 2,
  });
  assert.deepEqual(runtime.state.doc, {
    constructor: { name: "Ferrari" },
    toString: { x: 1 },
    list: [null, { valueOf: 2 }],
  });
  // A scalar on the way still refuses, named as its own.
  await rejectsWith(
    () => runtime.evaluateMutation({ "$.constructor.name.first": "F" }),
    "schema_violation",
    /\$\.constructor\.name \(type\): holds a string: cannot write \$\.constructor\.name\.first under it/,
  );
});

Deno.test("a meta value of the wrong type fails the write computing it, naming the meta; none is published", async () => {
  const runtime = await metaRuntime();
  const schemaBefore = runtime.effectiveSchema("$.amount");
  const wrong: [Json, RegExp][] = [
    [{ min: "5" }, /\$\.amount#minimum failed: the value must be a number, not "5"/],
    [{ max: true }, /\$\.amount#maximum failed: the value must be a number/],
    [{ step: 0 }, /\$\.step#multiple_of failed: the value must be a number greater than 0, not 0/],
    [{ minLength: 1.5 }, /\$\.text#min_length failed: the value must be an integer of at least 0/],
    [{ maxLength: -1 }, /\$\.text#max_length failed/],
    [{ pattern: 5 }, /\$\.code#pattern failed: the value must be a regular expression/],
    [{ pattern: "(" }, /\$\.code#pattern failed: pattern "\(" is not usable/],
    [{ pattern: "(?=x)" }, /\$\.code#pattern failed: pattern "\(\?=x\)" is not usable/],
    [{ colors: "red" }, /\$\.color#enum failed: the value must be an array of the allowed values, not "red"/],
    [{ locked: "yes" }, /\$\.locked#read_only failed: the value must be true or false, not "yes"/],
    [{ emailRequired: 1 }, /\$\.email#required failed: the value must be true or false, not 1/],
  ];
  for (const [limits, message] of wrong) {
    await assertUntouched(runtime, () =>
      rejectsWith(
        () => runtime.evaluateMutation({ "$.limits": limits }),
        "validation_failed",
        /^Evaluation of meta derivation /,
        message,
      ));
  }
  assert.deepEqual(runtime.effectiveSchema("$.amount"), schemaBefore);
  await commitMutation(runtime, { "$.limits": { min: null, max: 3, locked: false, emailRequired: false } });
  assert.deepEqual(runtime.effectiveSchema("$.amount"), { type: "number", maximum: 3 }, "null sets no limit");
  assert.deepEqual(runtime.effectiveSchema("$.locked"), { type: "string", readOnly: false });
});

Deno.test("a live pattern or enum is quoted cut in its message, as a trace's result, never whole", async () => {
  const runtime = await metaRuntime();
  const pattern = `^(${"x".repeat(5000)})$`;
  const allowed = Array.from({ length: 5000 }, (_, i) => `c${i}`);
  const meta = new Map<string, Json>([["$.code#pattern", pattern], ["$.color#enum", allowed]]);
  const state = { meta, model: runtime.model };
  const [byPattern] = checkMetaOverlay(state, ["code"], "abc", "$.code");
  assert.equal(
    byPattern.message,
    `must match pattern "${pattern.slice(0, MAX_TRACED_CHARS)}… (${pattern.length} characters)"`,
  );
  const [byEnum] = checkMetaOverlay(state, ["color"], "green", "$.color");
  const json = JSON.stringify(allowed);
  assert.equal(
    byEnum.message,
    `must be equal to one of the allowed values: ${
      json.slice(0, MAX_TRACED_CHARS)
    }… (${json.length} characters)`,
  );
  // A short limit is quoted whole, as before.
  meta.set("$.color#enum", ["red"]);
  assert.equal(
    checkMetaOverlay(state, ["color"], "green", "$.color")[0].message,
    'must be equal to one of the allowed values: ["red"]',
  );
});
