import assert from "node:assert/strict";
import { type Invoker, type Json, ModelService, type ModelSpec, operations } from "../../engine/mod.ts";
import { MemoryAuditTrail, MemoryModelStore } from "../../engine/service/memory.ts";
import type { LoadedModel } from "../../engine/service/ports.ts";
import { memoryJournal, OtherTabWrites, settling } from "./_test_utils.ts";
import { createWithState, finishInterrupted, type Settling } from "./replace_journal.ts";

/** A counter model of `version`; 2.0.0 adds a field. */
const counter = (version: string): ModelSpec =>
  ({
    id: "counter",
    version,
    schema: {
      type: "object",
      properties: { n: { type: "number" }, ...version === "2.0.0" ? { note: { type: "string" } } : {} },
    },
  }) as unknown as ModelSpec;

/**
 * A service holding counter 1.0.0 at n = 7, and the journal a replacement by
 * 2.0.0 wrote before its delete; `midway` then does what the tab did before it went.
 */
async function interrupted(
  midway: (invoker: Invoker, snapshot: Record<string, unknown>) => Promise<unknown>,
) {
  const invoker = settling(await ModelService.open({}));
  const stored = counter("1.0.0");
  await invoker.invoke(operations.createModel, { spec: stored as unknown as Json });
  await invoker.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 7 } });
  const snapshot = await invoker.invoke(operations.snapshot, { id: "counter" }) as unknown as Record<
    string,
    unknown
  >;
  const journal = memoryJournal();
  await journal.write("counter", { stored, snapshot, version: "2.0.0" });
  await invoker.invoke(operations.deleteModel, { id: "counter" });
  await midway(invoker, snapshot);
  await finishInterrupted(invoker, journal, "counter");
  assert.equal(journal.records.size, 0, "the record is dropped once the replacement is finished");
  const spec = await invoker.invoke(operations.getSpec, { id: "counter" });
  const state = await invoker.invoke(operations.getState, { id: "counter" });
  return { version: spec.version, state };
}

const create = (version: string) => (invoker: Invoker) =>
  invoker.invoke(operations.createModel, { spec: counter(version) as unknown as Json });

Deno.test("a replacement left midway: the stored model and its data are put back", async () => {
  // Gone after the delete.
  assert.deepEqual(await interrupted(() => Promise.resolve()), { version: "1.0.0", state: { n: 7 } });
  // Created from the new spec, not restored.
  assert.deepEqual(await interrupted(create("2.0.0")), { version: "1.0.0", state: { n: 7 } });
  // Put back (the new spec refused), created but not restored.
  assert.deepEqual(await interrupted(create("1.0.0")), { version: "1.0.0", state: { n: 7 } });
});

Deno.test("a replacement left after its restore keeps the new model, and writes made to it since", async () => {
  const restored = async (invoker: Invoker, snapshot: Record<string, unknown>) => {
    await create("2.0.0")(invoker);
    await invoker.invoke(operations.restore, { id: "counter", snapshot });
  };
  assert.deepEqual(await interrupted(restored), { version: "2.0.0", state: { n: 7 } });
  // Restored, then written by another tab before the next open: that write stays.
  const written = async (invoker: Invoker, snapshot: Record<string, unknown>) => {
    await restored(invoker, snapshot);
    await invoker.invoke(operations.mutate, { id: "counter", mutations: { "$.note": "kept" } });
  };
  assert.deepEqual(await interrupted(written), { version: "2.0.0", state: { n: 7, note: "kept" } });
});

Deno.test("a replacement left after its restore: the state is back, the model untouched", async () => {
  const invoker = settling(await ModelService.open({}));
  await create("2.0.0")(invoker);
  await invoker.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 7 } });
  const snapshot = await invoker.invoke(operations.snapshot, { id: "counter" }) as unknown as Record<
    string,
    unknown
  >;
  const journal = memoryJournal();
  await journal.write("counter", { stored: counter("1.0.0"), snapshot, version: "2.0.0" });
  assert.equal(await finishInterrupted(invoker, journal, "counter"), "back");
  assert.equal(journal.records.size, 0);
  assert.equal((await invoker.invoke(operations.getSpec, { id: "counter" })).version, "2.0.0");
  assert.equal((await invoker.invoke(operations.getAudit, { id: "counter" })).length, 1);
});

Deno.test("a replacement left midway over a model another tab writes to as it is finished: the write stays, with the model", async () => {
  // Left after its creation from the new spec; the other tab writes to that model once the open judged it unwritten.
  const store = new OtherTabWrites();
  const service = await ModelService.open({ store });
  const direct = settling(service);
  const invoker: Settling = {
    ...direct,
    invoke: (async (operation, input) => {
      const answer = await direct.invoke(operation, input);
      if (operation === operations.getAudit) await store.write("counter", { "$.note": "theirs" }, false);
      return answer;
    }) as Invoker["invoke"],
  };
  await direct.invoke(operations.createModel, { spec: counter("2.0.0") as unknown as Json });
  const journal = memoryJournal();
  const snapshot = {
    modelId: "counter",
    modelVersion: "1.0.0",
    baseDoc: { n: 7 },
    derivedCache: {},
    metaCache: {},
  };
  const record = { stored: counter("1.0.0"), snapshot, version: "2.0.0" };
  await journal.write("counter", record);
  // The model holds none of the journaled state: the record, dropped, is what it does not hold.
  assert.deepEqual(await finishInterrupted(invoker, journal, "counter"), record);
  assert.equal(journal.records.size, 0);
  assert.equal((await direct.invoke(operations.getSpec, { id: "counter" })).version, "2.0.0");
  assert.deepEqual(await direct.invoke(operations.getState, { id: "counter" }), { note: "theirs" });
  await service.close();
});

Deno.test("without a record, an open touches nothing", async () => {
  const invoker = settling(await ModelService.open({}));
  await invoker.invoke(operations.createModel, { spec: counter("2.0.0") as unknown as Json });
  await finishInterrupted(invoker, memoryJournal(), "counter");
  assert.equal((await invoker.invoke(operations.getSpec, { id: "counter" })).version, "2.0.0");
});

/** A memory store holding `stored` from the start, as a database an earlier version wrote. */
class StoreHolding extends MemoryModelStore {
  constructor(readonly stored: LoadedModel) {
    super(new MemoryAuditTrail());
  }
  override load() {
    return Promise.resolve([structuredClone(this.stored)]);
  }
}

Deno.test("a replacement left midway over a model that did not load: the open says so, and a deletion lets it finish", async () => {
  // The record of a replacement of 1.0.0 (n = 7) by 2.0.0, which a tab left after creating 2.0.0, stored
  // by an earlier version under a version this one refuses ("2.0"): the stored model does not load.
  const earlier = settling(await ModelService.open({}));
  await earlier.invoke(operations.createModel, { spec: counter("1.0.0") as unknown as Json });
  await earlier.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 7 } });
  const snapshot = await earlier.invoke(operations.snapshot, { id: "counter" }) as unknown as Record<
    string,
    unknown
  >;
  const journal = memoryJournal();
  await journal.write("counter", { stored: counter("1.0.0"), snapshot, version: "2.0.0" });
  const unloadable = { ...counter("2.0.0"), version: "2.0" } as ModelSpec;
  const store = new StoreHolding({ spec: unloadable, base: { doc: {}, meta: [], stale: [] }, log: [] });
  const invoker = settling(await ModelService.open({ store, observer: { warn: () => {} } }));

  await assert.rejects(
    () => finishInterrupted(invoker, journal, "counter"),
    (err: Error) => {
      assert.match(
        err.message,
        /^Model 'counter' is stored but this version cannot load it: its stored spec no longer validates \(version: '2\.0' is not a semantic version \(MAJOR\.MINOR\.PATCH\)\)\. /,
      );
      assert.match(
        err.message,
        /A replacement of its version 1\.0\.0 by 2\.0\.0 was left midway: the data it had before is kept in memory \(key 'counter'\), and the next open puts it back once the stored model is deleted/,
      );
      return true;
    },
  );
  // Neither the model nor the record was touched: the data of either may be the person's.
  assert.equal(journal.records.size, 1);
  assert.deepEqual(await invoker.invoke(operations.getSpec, { id: "counter" }), unloadable);

  await invoker.invoke(operations.deleteModel, { id: "counter" });
  await finishInterrupted(invoker, journal, "counter");
  assert.equal(journal.records.size, 0);
  assert.equal((await invoker.invoke(operations.getSpec, { id: "counter" })).version, "1.0.0");
  assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 7 });
});

Deno.test("a replacement left midway whose stored spec this version refuses: the spec being opened takes the data", async () => {
  const invoker = settling(await ModelService.open({}));
  await invoker.invoke(operations.createModel, { spec: counter("1.0.0") as unknown as Json });
  await invoker.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 7 } });
  const snapshot = await invoker.invoke(operations.snapshot, { id: "counter" }) as unknown as Record<
    string,
    unknown
  >;
  await invoker.invoke(operations.deleteModel, { id: "counter" });
  // Journaled by an earlier version, which took "1.0" for a version.
  const journal = memoryJournal();
  const stored = { ...counter("1.0.0"), version: "1.0" } as ModelSpec;
  await journal.write("counter", { stored, snapshot, version: "2.0.0" });

  // Without the spec being opened, nothing can take the data: the record stays.
  await assert.rejects(
    () => finishInterrupted(invoker, journal, "counter"),
    /Spec validation failed: version/,
  );
  assert.equal(journal.records.size, 1);
  await finishInterrupted(invoker, journal, "counter", counter("2.0.0"));
  assert.equal(journal.records.size, 0);
  assert.equal((await invoker.invoke(operations.getSpec, { id: "counter" })).version, "2.0.0");
  assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 7 });
});

Deno.test("a model created with a state computes its values under its own spec, not the snapshot's", async () => {
  const invoker = settling(await ModelService.open({}));
  const doubled = (factor: number, derived: string) =>
    ({
      ...counter("1.0.0"),
      derivations: [{ path: `$.${derived}`, expr: `n * ${factor}` }],
      metaDerivations: [{ path: "$.n", property: "maximum", expr: `${factor * 10}` }],
    }) as ModelSpec;
  await invoker.invoke(operations.createModel, { spec: doubled(2, "result") as unknown as Json });
  await invoker.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 4 } });
  const snapshot = await invoker.invoke(operations.snapshot, { id: "counter" }) as unknown as Record<
    string,
    unknown
  >;
  await invoker.invoke(operations.deleteModel, { id: "counter" });
  // The new spec changes the derivation's expression; another one computes a field the snapshot lacks.
  await createWithState(invoker, doubled(5, "result"), snapshot);
  assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 4, result: 20 });
  const { metaCache } = await invoker.invoke(operations.snapshot, { id: "counter" }) as unknown as {
    metaCache: Record<string, Json>;
  };
  assert.deepEqual(Object.values(metaCache), [50]);
  // One whose derivation the snapshot's cache does not know at all (the old one gone) takes it too.
  await invoker.invoke(operations.deleteModel, { id: "counter" });
  await createWithState(invoker, doubled(3, "tripled"), snapshot);
  assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 4, tripled: 12 });
});

Deno.test("a replacement left after its restore, then an element appended to a list: the state is back, no conflict", async () => {
  const invoker = settling(await ModelService.open({}));
  const list = (version: string) =>
    ({
      id: "list",
      version,
      schema: {
        type: "object",
        properties: {
          items: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
        },
      },
    }) as unknown as ModelSpec;
  await invoker.invoke(operations.createModel, { spec: list("2.0.0") as unknown as Json });
  await invoker.invoke(operations.mutate, { id: "list", mutations: { "$.items": [{ name: "a" }] } });
  const snapshot = await invoker.invoke(operations.snapshot, { id: "list" }) as unknown as Record<
    string,
    unknown
  >;
  // Another tab appends an element, and edits nothing the journal holds.
  await invoker.invoke(operations.mutate, { id: "list", mutations: { "$.items[1]": { name: "b" } } });
  const journal = memoryJournal();
  await journal.write("list", { stored: list("1.0.0"), snapshot, version: "2.0.0" });
  assert.equal(await finishInterrupted(invoker, journal, "list"), "back");
  assert.deepEqual(await invoker.invoke(operations.getState, { id: "list" }), {
    items: [{ name: "a" }, { name: "b" }],
  });
});
