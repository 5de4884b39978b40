import assert from "node:assert/strict";
import jsonata from "jsonata";
import { commitMutation, commitPatch, runtimeOf } from "../../_test_utils.ts";
import { Random } from "../../expr/compiled/test_support.ts";
import { DirtySet } from "../../graph/dirty.ts";
import { DocumentDraft } from "../../json/document.ts";
import type { Json } from "../../json/value.ts";
import type { DerivedNode } from "../../model/nodes.ts";
import type { ModelRuntime } from "../runtime.ts";
import { AggregateStore } from "./incremental.ts";

const AGGREGATES = {
  subtotal: "$sum(items.lineTotal)",
  lines: "$count(items.lineTotal)",
  mean: "$average(items.lineTotal)",
  largest: "$max($.items.lineTotal)",
  smallest: "$min($$.items.lineTotal)",
};

const SPEC = {
  id: "incremental",
  schema: {
    type: "object",
    properties: {
      cap: { type: "number" },
      items: {
        type: "array",
        items: { type: "object", properties: { price: { type: "number" }, qty: { type: "number" } } },
      },
    },
  },
  derivations: [
    { path: "$.items[*].lineTotal", expr: "$parent.price * $parent.qty" },
    ...Object.entries(AGGREGATES).map(([name, expr]) => ({ path: `$.${name}`, expr })),
  ],
  constraints: [{ id: "cap", expr: "$not(subtotal > cap)", message: "over the cap", policy: "rollback" }],
};

/** What in-order evaluation gives on the committed document. */
async function expected(doc: Json): Promise<Record<string, Json | undefined>> {
  const out: Record<string, Json | undefined> = {};
  for (const [name, expr] of Object.entries(AGGREGATES)) out[name] = await jsonata(expr).evaluate(doc);
  return out;
}

async function assertAggregates(runtime: ModelRuntime, what: string): Promise<void> {
  const doc = runtime.state.doc as Record<string, Json>;
  const want = await expected(doc);
  for (const name of Object.keys(AGGREGATES)) {
    assert.ok(Object.is(doc[name], want[name]), `${what}: ${name} = ${doc[name]}, in order ${want[name]}`);
  }
}

const price = (random: Random) => random.pick([19.99, 0.1, 0.25, 3, 1e-3, 2.5, 1234.56, 7]);

Deno.test("incremental aggregates equal in-order evaluation through writes, inserts, removals and rollbacks", async () => {
  const random = new Random(42);
  const { runtime } = await runtimeOf(SPEC);
  const items = Array.from({ length: 40 }, () => ({ price: price(random), qty: random.int(5) }));
  await commitMutation(runtime, { "$.cap": 1e9, "$.items": items });
  await assertAggregates(runtime, "seed");
  let rollbacks = 0;
  for (let step = 0; step < 300; step++) {
    const length = (runtime.state.doc as { items: unknown[] }).items.length;
    const k = random.int(Math.max(length, 1));
    const roll = random.int(10);
    const what = `step ${step} (${roll})`;
    try {
      if (roll < 5 && length) await commitMutation(runtime, { [`$.items[${k}].qty`]: random.int(20) });
      else if (roll < 7 && length) await commitMutation(runtime, { [`$.items[${k}].price`]: price(random) });
      else if (roll === 7) {
        await commitPatch(runtime, [{ op: "add", path: `/items/${k}`, value: { price: 1.5, qty: 2 } }]);
      } else if (roll === 8 && length) await commitPatch(runtime, [{ op: "remove", path: `/items/${k}` }]);
      else {
        // A cap just above the subtotal: later writes that raise it roll back after updating the index.
        const subtotal = (runtime.state.doc as { subtotal?: number }).subtotal ?? 0;
        await commitMutation(runtime, { "$.cap": random.chance(0.3) ? 1e9 : subtotal + random.int(50) });
      }
    } catch (err) {
      assert.match((err as Error).message, /over the cap/, what); // a rollback: the state stays as it was
      rollbacks++;
    }
    await assertAggregates(runtime, what);
  }
  assert.ok(rollbacks > 10, `only ${rollbacks} rollbacks`);
});

Deno.test("an element without the field counts as absent; no elements give JSONata's empty results", async () => {
  const { runtime } = await runtimeOf(SPEC);
  await commitMutation(runtime, { "$.cap": 100, "$.items": [{ price: 2 }, { price: 1, qty: 3 }] });
  await assertAggregates(runtime, "one absent");
  await commitMutation(runtime, { "$.items[1].qty": 4 });
  await assertAggregates(runtime, "update beside an absent one");
  await commitMutation(runtime, { "$.items": [] });
  await assertAggregates(runtime, "empty");
  assert.equal((runtime.state.doc as Record<string, Json>).lines, 0);
});

Deno.test("a cycle updates the index from the changed elements only", async () => {
  const { model } = await runtimeOf(SPEC);
  const node = model.graph.derivedOrder.find((d) => d.key === "$.subtotal") as DerivedNode;
  const store = new AggregateStore();
  const plan = store.planOf(node)!;
  assert.deepEqual(plan.fieldKeys, ["lineTotal"]);
  const base: Json = { items: [{ lineTotal: 1 }, { lineTotal: 2 }, { lineTotal: 3 }] };
  assert.equal(store.value(node, plan, { base: {}, doc: base, dirty: new DirtySet() }), 6);

  const draft = new DocumentDraft(base);
  draft.set(["items", 1, "lineTotal"], 20);
  draft.set(["items", 2, "lineTotal"], 30); // changed, but not reported: the index must not look at it
  const dirty = new DirtySet();
  dirty.add(["items", 1, "lineTotal"]);
  assert.equal(store.value(node, plan, { base, doc: draft.root, dirty }), 1 + 20 + 3);

  // A draft not started from the array the index reflects: rebuilt from the document.
  assert.equal(store.value(node, plan, { base, doc: draft.root, dirty }), 1 + 20 + 30);
});

Deno.test("data the index cannot hold is evaluated as usual", async () => {
  const { runtime } = await runtimeOf({
    id: "strings",
    schema: { type: "object", properties: { items: { type: "array" } } },
    derivations: [{ path: "$.n", expr: "$count(items.v)" }, { path: "$.s", expr: "$max(items.v)" }],
  });
  await commitMutation(runtime, { "$.items": [{ v: [1, 2] }, { v: 3 }] });
  assert.equal((runtime.state.doc as Record<string, Json>).s, 3);
  assert.equal((runtime.state.doc as Record<string, Json>).n, 3);
  await commitMutation(runtime, { "$.items[1].v": 5 });
  assert.equal((runtime.state.doc as Record<string, Json>).s, 5);
  await assert.rejects(commitMutation(runtime, { "$.items[1].v": "b" }), /T0412/);
  assert.equal((runtime.state.doc as Record<string, Json>).s, 5);
});
