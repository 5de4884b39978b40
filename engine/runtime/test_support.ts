/**
 * Fixtures shared by the unit tests of the mutation cycle's jobs: an order
 * model with per-element line totals, a model with live meta values, an
 * assertion that a refused write left the runtime untouched, and random
 * writes for property tests.
 *
 * @module
 */
import assert from "node:assert/strict";
import { commitMutation, runtimeOf } from "../_test_utils.ts";
import { getAt } from "../json/document.ts";
import { formatPath, pathToPointer, type Segment } from "../json/path.ts";
import { childPath, presentPath, randomPath, randomValue } from "../json/test_support.ts";
import { cloneJson, type Json } from "../json/value.ts";
import type { PatchOperation } from "./results.ts";
import type { ModelRuntime } from "./runtime.ts";

/** An order: per-element line totals, an aggregate over them, and a total. */
export const ORDER = {
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

/** Three order lines, two of type `a`. */
export const THREE_ITEMS = {
  "$.items": [{ qty: 1, price: 10, type: "a" }, { qty: 2, price: 5, type: "b" }, {
    qty: 3,
    price: 1,
    type: "a",
  }],
};

/** A runtime of {@link ORDER} holding {@link THREE_ITEMS}. */
export async function orderRuntime(overrides = {}): Promise<ModelRuntime> {
  const { runtime } = await runtimeOf(ORDER, overrides);
  await commitMutation(runtime, THREE_ITEMS);
  return runtime;
}

/** Asserts that a failed write left the runtime exactly as it was. */
export async function assertUntouched(runtime: ModelRuntime, write: () => Promise<unknown>): Promise<void> {
  const before = runtime.state;
  const history = runtime.historyTimestamps();
  const doc = cloneJson(before.doc);
  try {
    await write();
  } finally {
    assert.equal(runtime.state, before, "the committed state object is unchanged");
    assert.deepEqual(runtime.state.doc, doc);
    assert.deepEqual(runtime.historyTimestamps(), history);
  }
}

/** A model whose meta derivations compute every enforced property from `limits`. */
export const METAS = {
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

/** A runtime of {@link METAS} with limits set (1..10, step 5, length 2..4, …). */
export async function metaRuntime(): Promise<ModelRuntime> {
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

/** A write of a property test: a flat mutation or a JSON Patch. */
export type RandomWrite = { mutation: Record<string, Json> } | { patch: PatchOperation[] };

/**
 * A random write against `doc`: a mutation of one or two addresses (now and
 * then the root), or a patch operation of every kind — `add` (`-` appending
 * to arrays), `remove`, `replace`, `move`, `copy`, `test` —
 * between present and random paths, so some are refused.
 */
export function randomWrite(random: (below: number) => number, doc: Json): RandomWrite {
  const kind = random(12);
  if (kind < 5) {
    if (kind === 0 && !random(4)) return { mutation: { $: { a: randomValue(random), list: [] } } };
    const mutation: Record<string, Json> = {};
    for (let n = 1 + random(2); n > 0; n--) {
      mutation[formatPath(randomPath(random, doc))] = randomValue(random);
    }
    return { mutation };
  }
  const somewhere = () => {
    const path = childPath(random, doc);
    return path[path.length - 1] === "-"
      ? `${pathToPointer(path.slice(0, -1) as Segment[])}/-`
      : pathToPointer(path as Segment[]);
  };
  const present = () => pathToPointer(presentPath(random, doc));
  const ops: PatchOperation[] = [
    { op: "add", path: somewhere(), value: randomValue(random) },
    { op: "remove", path: present() },
    { op: "replace", path: present(), value: randomValue(random) },
    { op: "move", from: present(), path: somewhere() },
    { op: "copy", from: present(), path: somewhere() },
    { op: "test", path: present(), value: getAt(doc, presentPath(random, doc)) ?? null },
  ];
  return { patch: [ops[kind - 5] ?? ops[3]] };
}
