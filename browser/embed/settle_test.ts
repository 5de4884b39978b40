import assert from "node:assert/strict";
import {
  type Invoker,
  type Json,
  localInvoker,
  ModelService,
  type ModelSpec,
  operations,
} from "../../engine/mod.ts";
import { evolutionBetween } from "../../engine/evolve/spec_diff.ts";
import { SharedStore } from "../../engine/_test_utils.ts";
import { serviceFeed } from "../host/feed.ts";
import { afterHolds, holdingFeed } from "./held_feed.ts";
import { memoryJournal, OtherTabWrites, settling } from "./_test_utils.ts";
import { settle, StoredModelKept } from "./settle.ts";
import type { Settling } from "./replace_journal.ts";

/** Counter `version`, its schema with the string fields `fields` besides `n`. */
const counter = (version: string, fields: string[] = []): ModelSpec =>
  ({
    id: "counter",
    version,
    schema: {
      type: "object",
      properties: {
        n: { type: "number" },
        ...Object.fromEntries(fields.map((f) => [f, { type: "string" }])),
      },
    },
  }) as unknown as ModelSpec;

/** Another tab's evolution of the stored counter into `version` with `fields` (expecting what it stored). */
async function otherTabEvolves(invoker: Invoker, version: string, fields: string[]): Promise<void> {
  const stored = await invoker.invoke(operations.getSpec, { id: "counter" });
  const evolution = {
    ...evolutionBetween(stored, counter(version, fields)),
    expectedVersion: stored.version,
  };
  await invoker.invoke(operations.evolveSpec, { id: "counter", evolution: evolution as unknown as Json });
}

/**
 * A service holding counter 1.0.0 at n = 7 (one audit record), and an invoker of it whose `evolveSpec`
 * calls go through `around` (the number of the call, and the call itself).
 */
async function storedCounter(around: (call: number, evolve: () => Promise<unknown>) => Promise<unknown>) {
  const model = await ModelService.open({});
  const service = localInvoker(model);
  await service.invoke(operations.createModel, { spec: counter("1.0.0") as unknown as Json });
  await service.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 7 } });
  let calls = 0;
  const invoker: Settling = {
    invoke:
      ((operation, input) =>
        operation === operations.evolveSpec
          ? around(++calls, () => service.invoke(operation, input))
          : service.invoke(operation, input)) as Invoker["invoke"],
    deleteModel: model.deleteModel.bind(model),
    createModel: model.createModel.bind(model),
  };
  const outcome = async () => ({
    spec: await service.invoke(operations.getSpec, { id: "counter" }),
    state: await service.invoke(operations.getState, { id: "counter" }),
    trail: (await service.invoke(operations.getAudit, { id: "counter" })).map((r) => r.modelVersion),
  });
  return { service, invoker, calls: () => calls, outcome };
}

Deno.test("another tab evolved the stored model first (409): the evolution starts again from what it stored", async () => {
  const { service, invoker, calls, outcome } = await storedCounter(async (call, evolve) => {
    if (call === 1) await otherTabEvolves(service, "1.1.0", ["note"]);
    return await evolve();
  });
  const journal = memoryJournal();
  await settle(invoker, journal, counter("2.0.0", ["total"]));
  const { spec, state, trail } = await outcome();
  assert.deepEqual(spec, counter("2.0.0", ["total"]));
  // Evolved, not replaced: the data and the trail stay.
  assert.deepEqual(state, { n: 7 });
  assert.deepEqual(trail, ["1.0.0"]);
  assert.equal(calls(), 2);
  assert.equal(journal.records.size, 0);
});

Deno.test("another tab evolving it before each of three tries: the stored model is kept as it left it, saying to reload", async () => {
  const { service, invoker, calls, outcome } = await storedCounter(async (call, evolve) => {
    await otherTabEvolves(service, `1.${call}.0`, []);
    return await evolve();
  });
  // A StoredModelKept: the element shows the stored model under the alert, as for a refused spec.
  await assert.rejects(settle(invoker, memoryJournal(), counter("2.0.0", ["total"])), (err) => {
    assert.ok(err instanceof StoredModelKept);
    assert.equal(err.id, "counter");
    assert.equal(
      err.message,
      "Model 'counter' keeps its stored version 1.3.0 and its data: version 2.0.0 of its spec could not " +
        "replace it (other tabs kept changing its stored spec meanwhile: reload the page to try again)",
    );
    return true;
  });
  assert.equal(calls(), 3);
  const { spec, state } = await outcome();
  assert.deepEqual([spec.version, state], ["1.3.0", { n: 7 }]);
});

Deno.test("evolved, but what is stored then differs from the spec: it is replaced by the spec, its data kept", async () => {
  const { service, invoker, calls, outcome } = await storedCounter(async (_, evolve) => {
    const evolved = await evolve();
    // Another tab evolved it again at once (or the evolution could not say all of the change).
    await otherTabEvolves(service, "2.0.1", ["note"]);
    return evolved;
  });
  const journal = memoryJournal();
  await settle(invoker, journal, counter("2.0.0", ["total"]));
  const { spec, state, trail } = await outcome();
  assert.deepEqual(spec, counter("2.0.0", ["total"]));
  assert.deepEqual(state, { n: 7 });
  // A replacement: the trail starts anew; the journal's record is gone once it finished.
  assert.deepEqual(trail, []);
  assert.equal(calls(), 1);
  assert.equal(journal.records.size, 0);
});

Deno.test("a replacement says so before it reads the stored model's state; an evolution does not", async () => {
  const order: string[] = [];
  const note = (what: string) => void order.push(what);
  const logged = (invoker: Settling): Settling => ({
    ...invoker,
    deleteModel: (id, keep) => invoker.deleteModel(id, (snapshot) => (note("snapshot"), keep!(snapshot))),
  });
  // Calls on the model wait from there (api.ts stalls the open's hold): a write made later misses no snapshot.
  const evolving = await storedCounter((_, evolve) => evolve());
  await settle(
    logged(evolving.invoker),
    memoryJournal(),
    counter("2.0.0", ["total"]),
    () => note("replacing"),
  );
  assert.deepEqual(order, []);
  const replacing = await storedCounter((_, evolve) => evolve());
  await settle(
    logged(replacing.invoker),
    memoryJournal(),
    { ...counter("2.0.0"), _name: "Renamed" } as ModelSpec,
    () => note("replacing"),
  );
  assert.deepEqual(order, ["replacing", "snapshot"]);
  assert.deepEqual((await replacing.outcome()).state, { n: 7 });
});

/**
 * Counter 1.0.0 at n = 7 in a service over `store`, the service as settle calls it, and a journal that
 * keeps the n of each state it is given, calling `written` with their count before it keeps one.
 */
async function sharedCounter(store: SharedStore, written: (count: number) => Promise<void>) {
  const service = await ModelService.open({ store });
  const invoker = localInvoker(service);
  await invoker.invoke(operations.createModel, { spec: counter("1.0.0") as unknown as Json });
  await invoker.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 7 } });
  const journal = memoryJournal();
  const journaled: unknown[] = [];
  const write = journal.write;
  journal.write = async (id, record) => {
    journaled.push((record.snapshot.baseDoc as { n: number }).n);
    await written(journaled.length);
    await write(id, record);
  };
  const page = settling(service);
  return { service, invoker, page, journal, journaled };
}

/** A spec no evolution says: the stored counter is replaced by it. */
const renamed = { ...counter("2.0.0"), _name: "Renamed" } as ModelSpec;

for (const heard of [false, true]) {
  Deno.test(`another tab's write committed once a replacement read the state is kept (${heard ? "" : "not "}heard before the deletion)`, async () => {
    const store = new OtherTabWrites();
    const { service, invoker, page, journal, journaled } = await sharedCounter(store, async (count) => {
      if (count === 1) await store.write("counter", { "$.n": 9 }, heard);
    });
    await settle(page, journal, renamed);
    assert.deepEqual(await invoker.invoke(operations.getSpec, { id: "counter" }), renamed);
    // The deletion went ahead only once the state journaled was the one it deleted.
    assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 9 });
    assert.deepEqual(journaled, [7, 9]);
    assert.equal(journal.records.size, 0);
    await service.close();
  });
}

for (const heard of [false, true]) {
  Deno.test(`another tab's write to the model a replacement created is kept, over the state it carried (${heard ? "" : "not "}heard)`, async () => {
    const store = new OtherTabWrites();
    const { service, invoker, page, journal } = await sharedCounter(store, () => Promise.resolve());
    // The other tab writes as soon as the model of the new spec is stored, before anything else.
    const save = store.save.bind(store);
    store.save = async (...args) => {
      await save(...args);
      if (args[2]?.created) await store.write("counter", { "$.note": "kept" }, heard);
    };
    const spec = { ...counter("2.0.0", ["note"]), _name: "Renamed" } as ModelSpec;
    await settle(page, journal, spec);
    // This tab hears of it (if it had not yet).
    await store.changed("counter", { kind: "current" });
    assert.deepEqual(await invoker.invoke(operations.getSpec, { id: "counter" }), spec);
    assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 7, note: "kept" });
    // Its trail holds that write alone (the creation in the state carried audits nothing), chained as stored.
    const trail = await invoker.invoke(operations.getAudit, { id: "counter" });
    assert.deepEqual(trail.map((record) => [record.sequence, record.mutations]), [[0, { "$.note": "kept" }]]);
    assert.equal((await invoker.invoke(operations.verifyAudit, { id: "counter" })).valid, true);
    assert.equal(journal.records.size, 0);
    await service.close();
  });
}

Deno.test("another tab writing each time a replacement read the state, three times: the stored model is kept, saying to reload", async () => {
  const store = new OtherTabWrites();
  const { service, invoker, page, journal, journaled } = await sharedCounter(store, async (count) => {
    await store.write("counter", { "$.n": 10 + count }, false);
  });
  await assert.rejects(settle(page, journal, renamed), (err) => {
    assert.ok(err instanceof StoredModelKept);
    assert.equal(
      err.message,
      "Model 'counter' keeps its stored version 1.0.0 and its data: version 2.0.0 of its spec could not " +
        "replace it (other tabs kept writing to it meanwhile: reload the page to try again)",
    );
    return true;
  });
  assert.deepEqual(journaled, [7, 11, 12]);
  // Nothing deleted: the model as the other tab left it, and no replacement left midway for the next open.
  assert.deepEqual(await invoker.invoke(operations.getSpec, { id: "counter" }), counter("1.0.0"));
  assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 13 });
  assert.equal(journal.records.size, 0);
  await service.close();
});

Deno.test("a write on the page that passed the hold just before the replacement stalled it applies to the model as it came out", async () => {
  // It checked released() before the stall, and enters the service only once the state was read.
  const entered = Promise.withResolvers<void>();
  const { service, invoker, page, journal } = await sharedCounter(new SharedStore(), async () => {
    entered.resolve();
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  });
  const feed = holdingFeed(serviceFeed(service));
  const late: Invoker = {
    invoke: (async (operation, input) => {
      await entered.promise;
      return await invoker.invoke(operation, input);
    }) as Invoker["invoke"],
  };
  // As api.ts opens the model: held, stalled once it is replaced, released with its version.
  const release = feed.hold("counter");
  let write: Promise<unknown> | undefined;
  await settle(page, journal, renamed, () => {
    write = afterHolds(late, feed).invoke(operations.mutate, { id: "counter", mutations: { "$.n": 9 } });
    feed.stall("counter");
  });
  release("2.0.0");
  await write;
  assert.deepEqual(await invoker.invoke(operations.getState, { id: "counter" }), { n: 9 });
  await service.close();
});

/** The model another writer stores under the id as a replacement creates its own, and what comes of it. */
const foundCases = [
  {
    found: "unwritten, the stored model is put back over it",
    n: 1,
    write: null,
    lost: false,
    kept: ["1.0.0", { n: 7 }],
  },
  // n = 7 is held nowhere: copied to the console, the alert says so.
  {
    found: "written to, it is kept",
    n: 1,
    write: { "$.note": "theirs" },
    lost: true,
    kept: ["3.0.0", { n: 1, note: "theirs" }],
  },
  // Every value of the state it lacks was written over since: none is lost to the replacement.
  {
    found: "written over the stored state, it is kept",
    n: 1,
    write: { "$.n": 2 },
    lost: false,
    kept: ["3.0.0", { n: 2 }],
  },
  // The state is where it was: nothing to put back, nothing to copy to the console.
  {
    found: "holding the stored state, it is kept: the state is back",
    n: 7,
    write: null,
    lost: false,
    kept: ["3.0.0", { n: 7 }],
  },
] as const;

for (const { found, n, write, lost, kept } of foundCases) {
  Deno.test(`another writer stores a model under the id as a replacement creates its own (refused): ${found}`, async () => {
    const store = new SharedStore();
    const { service, invoker, page, journal } = await sharedCounter(store, () => Promise.resolve());
    const create = page.createModel;
    page.createModel = async (...args) => {
      page.createModel = create;
      // Between the deletion and the creation, another tab creates the model (this tab hears of it), and
      // the app's own service may write to it: the replacement's creation is refused (its id is taken).
      const model = { spec: counter("3.0.0", ["note"]), base: { doc: { n }, meta: [], stale: [] }, log: [] };
      await store.changed("counter", { kind: "replaced", model });
      store.next = { kind: "current" };
      if (write) await invoker.invoke(operations.mutate, { id: "counter", mutations: write });
      return await create(...args);
    };
    const logged: unknown[][] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      await assert.rejects(settle(page, journal, renamed), (err) => {
        assert.ok(err instanceof StoredModelKept);
        assert.match(
          err.message,
          lost
            ? /^Model 'counter' could not take version 2\.0\.0 of its spec \(.+\), and another writer stored a model under its id meanwhile and wrote to it: that model is kept, and the state of version 1\.0\.0 is in the console$/
            : new RegExp(
              `^Model 'counter' keeps its stored version ${
                kept[0].replaceAll(".", "\\.")
              } and its data: version 2\\.0\\.0 of its spec could not replace it \\(.+\\)$`,
            ),
        );
        return true;
      });
    } finally {
      console.error = error;
    }
    const spec = await invoker.invoke(operations.getSpec, { id: "counter" });
    const state = await invoker.invoke(operations.getState, { id: "counter" });
    // The other writer's committed write stays; the stored model's data goes back only where none would be lost.
    assert.deepEqual([spec.version, state], kept);
    // A copy of the data the model under the id does not hold, for a person to find.
    const copies = logged.map(([what, snapshot]) => [what, (snapshot as { baseDoc: Json }).baseDoc]);
    const copy = ["svc-embed: the state of model 'counter', which could not be put back:", { n: 7 }];
    assert.deepEqual(copies, lost ? [copy] : []);
    assert.equal(journal.records.size, 0);
    await service.close();
  });
}

/** A model found under the id as an open finishes a replacement of counter 1.0.0 at n = 7 by 2.0.0 left midway. */
const foundMidway = [
  // Created in the journaled state (in one step, as the replacement creates it), then written to.
  {
    found: "the replacement's own, restored, then written to",
    restored: true,
    write: { "$.note": "added" },
    state: { n: 7, note: "added" },
  },
  // The same, a value of the state written over: nothing of it is lost (before, an alert said it was).
  {
    found: "the replacement's own, restored, then written over",
    restored: true,
    write: { "$.n": 8 },
    state: { n: 8 },
  },
  // Created without it (another writer's createModelService() service, say), then written to: n = 7 is lost.
  {
    found: "another writer's, created without the state, then written to",
    restored: false,
    write: { "$.note": "theirs" },
    state: { note: "theirs" },
  },
] as const;

for (const { found, restored, write, state: expected } of foundMidway) {
  Deno.test(`an open finishing a replacement left midway over a model written since: ${found}`, async () => {
    const service = await ModelService.open({});
    const page = settling(service);
    const spec = counter("2.0.0", ["note"]);
    const snapshot = {
      modelId: "counter",
      modelVersion: "1.0.0",
      baseDoc: { n: 7 },
      derivedCache: {},
      metaCache: {},
    };
    await page.createModel(spec, restored ? snapshot : undefined);
    await page.invoke(operations.mutate, { id: "counter", mutations: write });
    const journal = memoryJournal();
    await journal.write("counter", { stored: counter("1.0.0"), snapshot, version: "2.0.0" });
    const logged: unknown[][] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const opened = settle(page, journal, spec);
      if (restored) await opened;
      else {
        // The state it took the place of is held nowhere else: the alert says so, as for a refused creation's.
        await assert.rejects(opened, (err) => {
          assert.ok(err instanceof StoredModelKept);
          assert.equal(
            err.message,
            "Model 'counter': a replacement of its version 1.0.0 by 2.0.0 was left midway, and another writer " +
              "stored a model under its id meanwhile and wrote to it: that model is kept, and the state of " +
              "version 1.0.0 is in the console",
          );
          return true;
        });
      }
    } finally {
      console.error = error;
    }
    // The model found keeps its place and its writes either way.
    assert.equal((await page.invoke(operations.getSpec, { id: "counter" })).version, "2.0.0");
    const state = await page.invoke(operations.getState, { id: "counter" });
    assert.deepEqual(state, expected);
    // A copy of the state for a person to find, only where the model does not hold it.
    const copies = logged.map(([what, copy]) => [what, (copy as { baseDoc: Json }).baseDoc]);
    const copy = ["svc-embed: the state of model 'counter', which could not be put back:", { n: 7 }];
    assert.deepEqual(copies, restored ? [] : [copy]);
    assert.equal(journal.records.size, 0);
    await service.close();
  });
}
