import assert from "node:assert/strict";
import { commitMutation, commitPatch, rejectsWith, runtimeOf } from "../_test_utils.ts";
import type { Json } from "../json/value.ts";
import { assertUntouched, orderRuntime } from "./test_support.ts";

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

const FREE = { id: "free", schema: { type: "object" } };

Deno.test("JSON Patch move into its own child is refused (RFC 6902 §4.4), the root's too; onto itself it changes nothing", async () => {
  const { runtime } = await runtimeOf(FREE);
  await commitMutation(runtime, { "$.o": { k: 1 }, "$.list": [1, 2] });
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "move", from: "", path: "/x" }]),
      "validation_failed",
      /^Patch operation 0 \(move \/x\): the document root cannot be moved into one of its own children$/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "move", from: "/o", path: "/o/child" }]),
      "validation_failed",
      /^Patch operation 0 \(move \/o\/child\): '\/o' cannot be moved into one of its own children$/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "move", from: "/list", path: "/list/0" }]),
      "validation_failed",
      /cannot be moved into one of its own children/,
    );
  });
  assert.equal(await runtime.evaluatePatch([{ op: "move", from: "/o", path: "/o" }]), null);
  assert.equal(await runtime.evaluatePatch([{ op: "move", from: "", path: "" }]), null);
  // A sibling whose name starts like the source is no child of it.
  await commitPatch(runtime, [{ op: "move", from: "/o", path: "/ok" }]);
  assert.deepEqual(runtime.state.doc, { ok: { k: 1 }, list: [1, 2] });
});

Deno.test("JSON Patch copy of the root or a container into itself is a deep copy: no cycle, no shared member", async () => {
  const { runtime } = await runtimeOf(FREE);
  await commitMutation(runtime, { "$.o": { k: 1 } });
  await commitPatch(runtime, [
    { op: "copy", from: "", path: "/self" },
    { op: "copy", from: "/o", path: "/o/again" },
    { op: "replace", path: "/self/o/k", value: 2 },
    { op: "add", path: "/o/again/n", value: 3 },
  ]);
  assert.deepEqual(JSON.parse(JSON.stringify(runtime.state.doc)), {
    o: { k: 1, again: { k: 1, n: 3 } },
    self: { o: { k: 2 } },
  });
});

Deno.test("JSON Patch copy and move are refused when they would nest the document deeper than svc.limits.max-depth", async () => {
  const { runtime } = await runtimeOf(FREE, { maxDepth: 6 });
  // The root, y and its two objects below: 4 levels.
  await commitMutation(runtime, { "$.y": { a: { a: { a: 1 } } } });
  const room = { op: "add", path: "/p", value: { q: { r: {} } } };
  await assertUntouched(runtime, async () => {
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "copy", from: "/y", path: "/y/a/a/b" }]),
      "validation_failed",
      /^Patch operation 0 \(copy \/y\/a\/a\/b\): the document would be nested deeper than svc\.limits\.max-depth \(6 levels\)$/,
    );
    for (const op of ["copy", "move"]) {
      await rejectsWith(
        () => runtime.evaluatePatch([room, { op, from: "/y", path: "/p/q/r/s" }]),
        "validation_failed",
        new RegExp(`^Patch operation 1 \\(${op} /p/q/r/s\\): .*max-depth \\(6 levels\\)$`),
      );
    }
  });
  // Up to the limit is allowed.
  await commitPatch(runtime, [
    room,
    { op: "copy", from: "/y", path: "/p/q/s" },
    { op: "move", from: "/y/a", path: "/p/q/r/s" },
  ]);
  assert.deepEqual(runtime.state.doc, {
    y: {},
    p: { q: { r: { s: { a: { a: 1 } } }, s: { a: { a: { a: 1 } } } } },
  });
});

Deno.test("JSON Patch cannot remove the document root nor make it anything but an object", async () => {
  // No type at the root: the document is an object all the same (a snapshot of anything else cannot be restored).
  for (const schema of [{ type: "object" }, {}]) {
    const { runtime } = await runtimeOf({ id: "r", schema });
    await commitMutation(runtime, { "$.a": 1 });
    await assertUntouched(runtime, async () => {
      await rejectsWith(
        () => runtime.evaluatePatch([{ op: "remove", path: "" }]),
        "schema_violation",
        /\$ \(required\): is the document root and cannot be removed/,
      );
      for (const value of [5, null, [1], "s"]) {
        for (const op of ["replace", "add"]) {
          await rejectsWith(
            () => runtime.evaluatePatch([{ op, path: "", value }]),
            "schema_violation",
            /\$ \(type\): must be object/,
          );
        }
        await rejectsWith(
          () => runtime.evaluateMutation({ $: value }),
          "schema_violation",
          /\$ \(type\): must be object/,
        );
      }
      await rejectsWith(
        () => runtime.evaluatePatch([{ op: "copy", from: "/a", path: "" }]),
        "schema_violation",
        /\$ \(type\): must be object/,
      );
    });
    await commitPatch(runtime, [{ op: "replace", path: "", value: { b: 2 } }]);
    assert.deepEqual(runtime.state.doc, { b: 2 });
  }
});

Deno.test("JSON Patch reads members as own members: names of Object.prototype are new members, never inherited ones", async () => {
  const { runtime } = await runtimeOf(FREE);
  await assertUntouched(runtime, async () => {
    for (const op of ["copy", "move"]) {
      await rejectsWith(
        () => runtime.evaluatePatch([{ op, from: "/toString", path: "/t" }]),
        "validation_failed",
        /^Patch operation 0 \((copy|move) \/t\): there is no value at '\/toString'$/,
      );
    }
    for (const op of ["remove", "replace"]) {
      await rejectsWith(
        () => runtime.evaluatePatch([{ op, path: "/valueOf", value: 1 }]),
        "validation_failed",
        /there is no value at the path/,
      );
    }
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "add", path: "/hasOwnProperty/x", value: 1 }]),
      "validation_failed",
      /there is no object or array to add to at the path's parent/,
    );
    await rejectsWith(
      () => runtime.evaluatePatch([{ op: "test", path: "/toString/name", value: "toString" }]),
      "conflict",
      /Test operation failed/,
    );
  });
  await commitPatch(runtime, [
    { op: "add", path: "/valueOf", value: {} },
    { op: "add", path: "/valueOf/x", value: 1 },
    { op: "copy", from: "/valueOf", path: "/constructor" },
    { op: "test", path: "/constructor/x", value: 1 },
  ]);
  assert.deepEqual(runtime.state.doc, { valueOf: { x: 1 }, constructor: { x: 1 } });
});

Deno.test("JSON Patch naming '__proto__' or 'constructor/prototype' is refused in the service's words; nothing changes", async () => {
  const { runtime } = await runtimeOf(FREE);
  await commitMutation(runtime, { "$.o": { k: 1 } });
  await assertUntouched(runtime, async () => {
    for (
      const op of [
        { op: "add", path: "/o/__proto__", value: { polluted: true } },
        { op: "replace", path: "/constructor/prototype", value: 1 },
        { op: "move", from: "/o/__proto__", path: "/x" },
      ]
    ) {
      await rejectsWith(
        () => runtime.evaluatePatch([op as never]),
        "validation_failed",
        /^Patch operation 0 \(\w+ \/[\w/]+\): a JSON Patch cannot name a member '__proto__' or 'constructor\/prototype'; a mutation can/,
      );
    }
  });
  // The same member written by a mutation is an ordinary member.
  await commitMutation(runtime, { "$.o['__proto__']": 2 });
  const o = (runtime.state.doc as Record<string, Json>).o as object;
  assert.equal(Object.getPrototypeOf(o), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(o, "__proto__")?.value, 2);
});

Deno.test("a patch op named after an inherited member ('constructor', '_get') is refused and changes nothing", async () => {
  // The patch library looks ops up in a plain object: 'constructor' passed its check and was applied as a
  // call of Object, which left the document's root undefined (a page or the embedded invoker hands patches
  // over unparsed; the server's input schema refuses other ops before).
  const runtime = await orderRuntime();
  for (const op of ["constructor", "_get", "toString"]) {
    await assertUntouched(runtime, () =>
      rejectsWith(
        () => runtime.evaluatePatch([{ op, path: "/discount", value: 1 }] as never),
        "bad_request",
        /^Invalid JSON Patch: Operation `op` property is not one of operations defined in RFC-6902 \[OPERATION_OP_INVALID\]$/,
      ));
  }
});
