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
import { memoryJournal } from "./_test_utils.ts";
import { settle, StoredModelKept } from "./settle.ts";

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
  const service = localInvoker(await ModelService.open({}));
  await service.invoke(operations.createModel, { spec: counter("1.0.0") as unknown as Json });
  await service.invoke(operations.mutate, { id: "counter", mutations: { "$.n": 7 } });
  let calls = 0;
  const invoker: Invoker = {
    invoke:
      ((operation, input) =>
        operation === operations.evolveSpec
          ? around(++calls, () => service.invoke(operation, input))
          : service.invoke(operation, input)) as Invoker["invoke"],
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
  const logged = (invoker: Invoker): Invoker => ({
    invoke: ((operation, input) => {
      if (operation === operations.snapshot) note("snapshot");
      return invoker.invoke(operation, input);
    }) as Invoker["invoke"],
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
