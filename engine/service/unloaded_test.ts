import assert from "node:assert/strict";
import { rejectsWith, serviceOf, SharedStore } from "../_test_utils.ts";
import type { JobChanges } from "../effects/job.ts";
import type { ModelSpec } from "../model/types.ts";
import { MemoryAuditTrail, MemoryModelStore } from "./memory.ts";
import type { LoadedModel, ModelRefresh, PersistedState } from "./ports.ts";
import type { ServiceEvent } from "./service.ts";

const VALID = {
  id: "old",
  version: "1.0.0",
  schema: { type: "object", properties: { qty: { type: "number" }, price: { type: "number" } } },
  derivations: [{ path: "$.total", expr: "qty * price" }],
};

const REMIND = { id: "remind", executor: "caller", trigger: "qty > 100" };

/** As an earlier version stored it: checks added since refuse its version and its effect's time limit. */
const STORED = {
  ...VALID,
  version: "1.0",
  effects: [{ ...REMIND, policy: { timeoutMs: 3_000_000_000 } }],
} as unknown as ModelSpec;

/** The repair: both findings fixed. */
const REPAIR = { newVersion: "1.1.0", upsertEffects: [{ ...REMIND, policy: { timeoutMs: 60_000 } }] };

/** A memory store holding the model an earlier version stored (its trail in `audit`), recording writes. */
class StoreWithAnOldModel extends MemoryModelStore {
  readonly saved: ModelSpec[] = [];
  readonly deleted: string[] = [];
  readonly #stored: LoadedModel;
  constructor(audit: MemoryAuditTrail, stored: LoadedModel) {
    super(audit);
    this.#stored = stored;
  }
  override load() {
    return Promise.resolve([structuredClone(this.#stored)]);
  }
  override save(spec: ModelSpec, state: PersistedState, options?: { created?: boolean; jobs?: JobChanges }) {
    this.saved.push(spec);
    return super.save(spec, state, options);
  }
  override delete(modelId: string) {
    this.deleted.push(modelId);
    return super.delete(modelId);
  }
}

/**
 * A service over a store holding the old model: a base state, one logged write
 * after it, two audit records (`stored` overrides what the store loads of it).
 */
async function withOldModel(stored: Partial<LoadedModel> = {}) {
  const audit = new MemoryAuditTrail();
  const { service: earlier } = await serviceOf({}, { store: new MemoryModelStore(audit) });
  await earlier.createModel(VALID);
  await earlier.mutate("old", { "$.qty": 2, "$.price": 3 });
  await earlier.mutate("old", { "$.qty": 4 });
  const store = new StoreWithAnOldModel(audit, {
    spec: STORED,
    base: { doc: { qty: 2, price: 3, total: 6 }, meta: [], stale: [] },
    log: [{ at: Date.parse("2030-01-01T00:00:00Z"), source: "client", request: { "$.qty": 4 } }],
    ...stored,
  });
  const warnings: string[] = [];
  const { service } = await serviceOf({}, { store, observer: { warn: (m: string) => warnings.push(m) } });
  const events: ServiceEvent[] = [];
  service.subscribe((event) => events.push(event));
  return { service, store, warnings, events };
}

Deno.test("a stored model whose spec no longer validates answers 409 with its findings, and is listed apart", async () => {
  const { service, warnings } = await withOldModel();
  assert.match(warnings.join("\n"), /model 'old' not loaded: its stored spec no longer validates: version/);
  assert.deepEqual(await service.listModels(), []);
  const findings = [
    { location: "version", message: "'1.0' is not a semantic version (MAJOR.MINOR.PATCH)" },
    {
      location: "effects[0].policy.timeoutMs",
      message:
        "timeoutMs 3000000000 is longer than an attempt may wait: at most 2147483647 ms (about 24.8 days)",
    },
  ];
  assert.deepEqual(await service.listUnloadedModels(), [{ id: "old", errors: findings }]);
  const err = await rejectsWith(
    () => service.getInfo("old"),
    "conflict",
    /^Model 'old' is stored but not loaded: its stored spec no longer validates: version: /,
    /Repair it with an evolution that fixes these \(POST \/models\/old\/spec\/evolve;/,
    /discard its stored state and audit trail \(DELETE \/models\/old\)$/,
  );
  assert.deepEqual(err.body, {
    error: "Model not loaded",
    detail: err.message,
    modelId: "old",
    errors: findings,
  });
  for (
    const read of [
      () => service.getState("old"),
      () => service.getAudit("old"),
      () => service.verifyAudit("old"),
      () => service.mutate("old", { "$.qty": 1 }),
    ]
  ) await rejectsWith(read, "conflict", /is stored but not loaded/);
  // The stored spec is readable: it is what a repair evolves.
  assert.deepEqual(await service.getSpec("old"), STORED);
  await rejectsWith(() => service.getInfo("ghost"), "not_found", /Model 'ghost' not found/);
});

Deno.test("an evolution that leaves findings, or that its stored state does not fit, changes nothing", async () => {
  const { service, store } = await withOldModel();
  const err = await rejectsWith(
    () => service.evolveSpec("old", { newVersion: "1.1.0" }),
    "validation_failed",
    /effects\[0\]\.policy\.timeoutMs/,
  );
  assert.deepEqual((err.body?.errors as { location: string }[]).map((f) => f.location), [
    "effects[0].policy.timeoutMs",
  ]);
  await rejectsWith(
    () => service.evolveSpec("old", { ...REPAIR, expectedVersion: "1.0.0" }),
    "version_conflict",
  );
  // The logged write ($.qty = 4) is over the evolved schema's maximum.
  await rejectsWith(
    () =>
      service.evolveSpec("old", {
        ...REPAIR,
        upsertSchemaNodes: [{ path: "$.qty", schema: { maximum: 3 } }],
      }),
    "validation_failed",
    /Evolution refused: state: a stored write does not replay: .*\$\.qty/,
  );
  // The base state's price is a number.
  await rejectsWith(
    () =>
      service.evolveSpec("old", {
        ...REPAIR,
        upsertSchemaNodes: [{ path: "$.price", schema: { type: "string" } }],
      }),
    "validation_failed",
    /would strand state at \$\.price/,
  );
  assert.equal(store.saved.length, 0, "nothing was written");
  assert.deepEqual(await service.listModels(), []);
  await rejectsWith(() => service.getInfo("old"), "conflict", /not loaded/);
});

Deno.test("an evolution fixing the findings loads the model with its stored state; its trail continues", async () => {
  const { service, store, events } = await withOldModel();
  assert.deepEqual(await service.evolveSpec("old", { ...REPAIR, expectedVersion: "1.0" }), {
    id: "old",
    version: "1.1.0",
  });
  assert.deepEqual(store.saved.map((s) => s.version), ["1.1.0"]);
  assert.deepEqual(events.map((e) => e.type), ["spec-evolved", "created"]);
  assert.deepEqual(await service.listModels(), ["old"]);
  assert.deepEqual(await service.listUnloadedModels(), []);
  assert.equal((await service.getInfo("old")).effectCount, 1);
  assert.deepEqual(await service.getState("old"), { qty: 4, price: 3, total: 12 });
  await service.mutate("old", { "$.price": 5 });
  assert.deepEqual(await service.getState("old"), { qty: 4, price: 5, total: 20 });
  assert.deepEqual(await service.verifyAudit("old"), {
    valid: true,
    recordsChecked: 3,
    firstBrokenSequence: null,
    detail: "ok",
  });
  await rejectsWith(() => service.createModel(VALID), "conflict", /already exists/);
});

Deno.test("a stored model that does not load keeps its id until deleted: a create would discard its data", async () => {
  const { service, store } = await withOldModel();
  await rejectsWith(() => service.createModel(VALID), "conflict", /Model 'old' is stored but not loaded/);
  assert.equal(store.saved.length, 0, "nothing was written over it");
  await service.deleteModel("old");
  assert.deepEqual(store.deleted, ["old"]);
  assert.deepEqual(await service.listUnloadedModels(), []);
  await rejectsWith(() => service.evolveSpec("old", REPAIR), "not_found");
  await service.createModel(VALID);
  assert.deepEqual(store.saved.map((s) => s.id), ["old"]);
  assert.deepEqual(await service.getAudit("old"), [], "the stored trail went with it");
  await rejectsWith(() => service.deleteModel("ghost"), "not_found", /ghost/);
});

Deno.test("a deletion that keeps the model's snapshot first is refused for a stored model that does not load: it has none", async () => {
  const { service, store } = await withOldModel();
  const kept: unknown[] = [];
  await rejectsWith(
    () => service.deleteModel("old", (snapshot) => Promise.resolve(void kept.push(snapshot))),
    "conflict",
    /Model 'old' is stored but not loaded/,
  );
  assert.deepEqual([kept, store.deleted], [[], []]);
  assert.deepEqual((await service.listUnloadedModels()).map((m) => m.id), ["old"]);
});

Deno.test("one repair or deletion of a stored model at a time", async () => {
  const { service, store } = await withOldModel();
  const [repair, second, deletion] = await Promise.allSettled([
    service.evolveSpec("old", REPAIR),
    service.evolveSpec("old", REPAIR),
    service.deleteModel("old"),
  ]);
  assert.equal(repair.status, "fulfilled");
  for (const refused of [second, deletion]) {
    assert.match(
      String((refused as PromiseRejectedResult).reason),
      /Model 'old' is being repaired or deleted/,
    );
  }
  assert.equal(store.saved.length, 1);
  assert.deepEqual(store.deleted, []);
});

Deno.test("a repaired model whose stored state cannot be read is kept for recovery and reset, as at a start", async () => {
  const { service, store, warnings } = await withOldModel({
    base: null,
    problem: "its base state is unreadable",
  });
  await service.evolveSpec("old", REPAIR);
  assert.deepEqual(await service.getState("old"), {});
  assert.deepEqual((await store.getRecovery("old")).map((r) => [r.reason, r.spec.version]), [
    ["its base state is unreadable", "1.0"],
  ]);
  assert.match(warnings.join("\n"), /model 'old': state could not be reconstructed .*RECOVERY NEEDED/);
});

for (const deletedBy of ["this process", "the other process"]) {
  Deno.test(`a model another process gives a spec that does not compile here is heard gone once (deleted by ${deletedBy})`, async () => {
    const store = new SharedStore();
    const { service } = await serviceOf({}, { store });
    await service.createModel(VALID);
    const heard: ServiceEvent[] = [];
    service.subscribe((event) => heard.push(event));
    const replaced: ModelRefresh = {
      kind: "replaced",
      model: { spec: STORED, base: { doc: { qty: 1 }, meta: [], stale: [] }, log: [] },
    };
    await store.changed("old", replaced);
    assert.deepEqual(heard, [{ type: "deleted", modelId: "old", unloaded: true }], "gone from this service");
    assert.deepEqual([await service.listModels(), (await service.listUnloadedModels()).map((u) => u.id)], [
      [],
      ["old"],
    ]);
    // The other process writes it again: it is loaded anew, and still does not load.
    await store.changed("old", replaced);
    if (deletedBy === "this process") await service.deleteModel("old");
    else await store.changed("old", { kind: "deleted" });
    assert.deepEqual(await service.listUnloadedModels(), []);
    assert.deepEqual(
      heard,
      [{ type: "deleted", modelId: "old", unloaded: true }],
      "its deletion not heard again",
    );
    await service.close();
  });
}
