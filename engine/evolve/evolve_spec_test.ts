import assert from "node:assert/strict";
import type { ServiceError } from "../errors.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { checkInput } from "../operations/input.ts";
import { evolveSpec } from "../operations/models.ts";
import type { EffectRequest } from "../runtime/results.ts";
import { MemoryModelStore } from "../service/memory.ts";
import type { LoadedModel, PersistedState } from "../service/ports.ts";
import { ModelService, type ServiceEvent } from "../service/service.ts";
import { rejectsWith, serviceOf } from "../_test_utils.ts";
import type { ModelSpec } from "../model/types.ts";

/** A memory store that records what is saved, and can be told to fail. */
class RecordingStore extends MemoryModelStore {
  saved: { spec: ModelSpec; state: PersistedState }[] = [];
  failNextSave = false;
  override save(spec?: ModelSpec, state?: PersistedState): Promise<void> {
    if (this.failNextSave) {
      this.failNextSave = false;
      return Promise.reject(new Error("disk full"));
    }
    this.saved.push(structuredClone({ spec: spec!, state: state! }));
    return Promise.resolve();
  }
  /** The last saved spec and state of each model (commits after it are not kept). */
  override load(): Promise<LoadedModel[]> {
    const last = new Map(this.saved.map((s) => [s.spec.id, s]));
    return Promise.resolve([...last.values()].map(({ spec, state }) => ({ spec, base: state, log: [] })));
  }
}

const SHOP: ModelSpec = {
  id: "shop",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      name: { type: "string" },
      qty: { type: "integer" },
      price: { type: "number" },
      note: { type: "string" },
      items: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
    },
  },
  constants: { rate: 0.5 },
  derivations: [
    { path: "$.total", expr: "qty * price" },
    { path: "$.gross", expr: "total * (1 + $const.rate)" },
    { path: "$.label", expr: "name & '!'", evaluation: "lazy" },
  ],
  metaDerivations: [{ path: "$.note", property: "relevant", expr: "qty > 1" }],
  constraints: [{
    id: "positive",
    expr: "qty >= 0",
    message: "qty must not be negative",
    policy: "rollback",
  }],
  effects: [{ id: "big", executor: "server", trigger: "qty > 1" }],
  tests: [{ given: { "$.qty": 2, "$.price": 3 }, expect: { "$.total": 6 } }],
};

interface Fixture {
  service: ModelService;
  store: RecordingStore;
  events: ServiceEvent[];
  requested: EffectRequest[][];
}

async function withShop(run: (fixture: Fixture) => Promise<void>): Promise<void> {
  const store = new RecordingStore();
  const requested: EffectRequest[][] = [];
  const service = await ModelService.open({
    store,
    observer: { effectsRequested: (_, r) => requested.push(r) },
  });
  try {
    await service.createModel(SHOP);
    await service.mutate("shop", { "$.name": "pen", "$.qty": 2, "$.price": 3, "$.note": "n" });
    await service.getState("shop"); // evaluates the lazy label
    const events: ServiceEvent[] = [];
    service.subscribe((event) => events.push(event));
    store.saved = [];
    requested.length = 0;
    await run({ service, store, events, requested });
  } finally {
    await service.close();
  }
}

async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (err) {
    return err as ServiceError;
  }
  assert.fail("expected a rejection");
}

Deno.test("evolveSpec applies the evolution, recomputes derived values and persists spec and state", async () => {
  await withShop(async ({ service, store, events }) => {
    const result = await service.evolveSpec("shop", {
      newVersion: "1.1.0",
      expectedVersion: "1.0.0",
      upsertDerivations: [{ path: "$.total", expr: "qty * price * 10" }],
      removeDerivations: ["$.gross"],
      upsertSchemaNodes: [{ path: "$.discount", schema: { type: "number" } }],
      backfill: { "$.discount": 0.1, "$.name": "ignored: name has a value" },
    });
    // The fixture's server effect has no request: the evolved spec's warning, as creating it gives.
    const { warnings, ...answer } = result;
    assert.deepEqual(answer, { id: "shop", version: "1.1.0" });
    assert.deepEqual(warnings?.map((w) => w.location), ["effects[0]"]);
    assert.deepEqual(await service.getState("shop"), {
      name: "pen",
      qty: 2,
      price: 3,
      note: "n",
      discount: 0.1,
      total: 60,
      label: "pen!",
    });
    const spec = await service.getSpec("shop");
    assert.equal(spec.version, "1.1.0");
    assert.deepEqual(spec.derivations?.map((d) => d.path), ["$.total", "$.label"]);
    assert.deepEqual((await service.getInfo("shop")).version, "1.1.0");
    assert.equal(store.saved.length, 1);
    assert.deepEqual(store.saved[0].spec, spec);
    assert.equal(
      (store.saved[0].state.doc as JsonObject).gross,
      undefined,
      "removed derivation's value dropped",
    );
    assert.equal((store.saved[0].state.doc as JsonObject).total, 60);
    assert.deepEqual(events, [{ type: "spec-evolved", modelId: "shop", version: "1.1.0" }]);
  });
});

Deno.test("an evolved model reloads from storage with its evolved spec and state", async () => {
  await withShop(async ({ service, store }) => {
    await service.evolveSpec("shop", {
      newVersion: "1.5.0",
      upsertSchemaNodes: [{ path: "$.color", schema: { type: "string" } }],
      backfill: { "$.color": "red" },
    });
    const reopened = await ModelService.open({ store });
    try {
      assert.deepEqual(await reopened.getSpec("shop"), await service.getSpec("shop"));
      assert.deepEqual(await reopened.getState("shop"), await service.getState("shop"));
    } finally {
      await reopened.close();
    }
  });
});

Deno.test("{newVersion} alone changes only the version and keeps the state", async () => {
  await withShop(async ({ service }) => {
    const spec = await service.getSpec("shop");
    const state = await service.getState("shop");
    await service.evolveSpec("shop", { newVersion: "2.0.0" });
    assert.deepEqual(await service.getSpec("shop"), { ...spec, version: "2.0.0" });
    assert.deepEqual(await service.getState("shop"), state);
  });
});

Deno.test("evolveSpec recomputes metas and drops the meta values of removed meta derivations", async () => {
  await withShop(async ({ service }) => {
    assert.equal((await service.getSchema("shop", "$.note")).relevant, true);
    await service.evolveSpec("shop", {
      removeMetaDerivations: ["$.note#relevant"],
      upsertMetaDerivations: [{ path: "$.price", property: "maximum", expr: "qty * 100" }],
    });
    assert.equal((await service.getSchema("shop", "$.note")).relevant, undefined);
    assert.equal((await service.getSchema("shop", "$.price")).maximum, 200);
  });
});

Deno.test("a lazy derivation stays lazy after an evolution and is evaluated on read", async () => {
  await withShop(async ({ service, store }) => {
    await service.evolveSpec("shop", {
      upsertDerivations: [{ path: "$.label", expr: "'#' & name", evaluation: "lazy" }],
    });
    const persisted = store.saved[0].state;
    assert.equal((persisted.doc as JsonObject).label, undefined);
    assert.deepEqual(persisted.stale, ["$.label"]);
    assert.equal(await service.getField("shop", "$.label"), "#pen");
  });
});

Deno.test("evolveSpec clears history, keeps traces and invalidates the verification cache without a new version", async () => {
  await withShop(async ({ service }) => {
    assert.equal((await service.getHistory("shop")).length, 1);
    const before = await service.getVerification("shop");
    assert.equal(before.state, "green");
    await service.evolveSpec("shop", {
      newTests: [{ given: { "$.qty": 2, "$.price": 3 }, expect: { "$.total": 7 } }],
    });
    assert.deepEqual(await service.getHistory("shop"), []);
    const traces = await service.explain("shop", "$.gross");
    assert.ok(traces.length >= 2, "the mutation's trace and the evolution's recomputation");
    assert.equal((await service.getVerification("shop")).state, "amber");
    await service.evolveSpec("shop", { newTests: [] });
    assert.equal((await service.getVerification("shop")).state, "neutral");
  });
});

Deno.test("evolveSpec requests only the effects it adds or changes", async () => {
  await withShop(async ({ service, requested }) => {
    await service.evolveSpec("shop", { newVersion: "1.0.1" });
    assert.equal(requested.length, 0, "an unchanged effect does not re-fire");
    await service.evolveSpec("shop", {
      upsertEffects: [{ id: "fresh", executor: "server", trigger: "qty > 0" }, {
        id: "idle",
        executor: "server",
        trigger: "qty > 100",
      }],
    });
    assert.deepEqual(requested.flat().map((r) => r.effectId), ["fresh"]);
  });
});

Deno.test("the stranding guard refuses with every incompatible path", async () => {
  await withShop(async ({ service }) => {
    await service.mutate("shop", { "$.items[0].sku": "a", "$.items[1].sku": "b" });
    const err = await rejection(service.evolveSpec("shop", {
      upsertSchemaNodes: [
        { path: "$.items[*].sku", schema: { type: "integer" } },
        { path: "$.name", schema: { type: "string", maxLength: 2 } },
      ],
    }));
    assert.equal(err.kind, "validation_failed");
    assert.deepEqual(err.body?.paths, ["$.name", "$.items[0].sku", "$.items[1].sku"]);
    assert.match(err.message, /\$\.items\[0\]\.sku \(type\)/);
  });
});

Deno.test("a backfill can rescue values the new schema would otherwise strand, and completeness is not required", async () => {
  await withShop(async ({ service }) => {
    await service.evolveSpec("shop", {
      newSchema: {
        type: "object",
        required: ["name", "sku"],
        properties: {
          name: { type: "string" },
          qty: { type: "integer" },
          price: { type: "number" },
          note: { type: "string" },
          sku: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
          items: { type: "array" },
        },
        additionalProperties: false,
      },
      backfill: { "$.tags": ["new"] },
    });
    const state = await service.getState("shop") as JsonObject;
    assert.deepEqual(state.tags, ["new"]);
    assert.equal(state.sku, undefined);
  });
});

Deno.test("the containers a backfill creates get schema defaults and defaultValues rules, as a write's do", async () => {
  await withShop(async ({ service }) => {
    await service.evolveSpec("shop", {
      upsertSchemaNodes: [{
        path: "$.addr",
        schema: {
          type: "object",
          properties: { city: { type: "string" }, zip: { type: "string", default: "000" } },
        },
      }],
      upsertDefaultValues: [{ path: "$.addr", expr: "{'city': 'D', 'kind': 'home'}" }],
      backfill: { "$.addr.city": "BF" },
    });
    assert.deepEqual((await service.getState("shop") as JsonObject).addr, {
      city: "BF",
      zip: "000",
      kind: "home",
    });
    await service.evolveSpec("shop", {
      upsertDefaultValues: [{ path: "$.addr", expr: "{'country': 'NL'}" }],
      backfill: { "$.addr.note": "n" },
    });
    assert.deepEqual(
      (await service.getState("shop") as JsonObject).addr,
      { city: "BF", zip: "000", kind: "home", note: "n" },
      "a backfill into an existing container creates none",
    );
  });
});

Deno.test("every refusal leaves spec, state, persistence and subscribers untouched", async () => {
  const cases: { name: string; evolution: unknown; kind: string; message: RegExp }[] = [
    { name: "not an object", evolution: [], kind: "bad_request", message: /must be object/ },
    {
      name: "unknown member",
      evolution: { newVersoin: "2.0.0" },
      kind: "bad_request",
      message: /unknown member 'newVersoin'/,
    },
    {
      name: "wrong member type",
      evolution: { removeDerivations: "$.total" },
      kind: "bad_request",
      message: /removeDerivations: must be array/,
    },
    {
      name: "blank newVersion (the creation default would reset the version)",
      evolution: { newVersion: "" },
      kind: "bad_request",
      message: /newVersion: must be a semantic version \(MAJOR\.MINOR\.PATCH\), not blank/,
    },
    {
      name: "wholesale and targeted members of one section",
      evolution: { newConstants: {}, removeConstants: ["rate"] },
      kind: "bad_request",
      message:
        /newConstants: replaces the whole constants section and cannot be combined with removeConstants/,
    },
    {
      name: "stale expectedVersion",
      evolution: { expectedVersion: "0.9.0" },
      kind: "version_conflict",
      message: /expected 0\.9\.0, actual 1\.0\.0/,
    },
    {
      name: "invalid evolved spec",
      evolution: { newVersion: "two" },
      kind: "validation_failed",
      message: /newVersion: 'two' is not a semantic version/,
    },
    {
      name: "invalid expression in an upsert",
      evolution: { upsertDerivations: [{ path: "$.x", expr: "(((" }] },
      kind: "validation_failed",
      message: /derivations\[3\]\.expr: JSONata compile error/,
    },
    {
      name: "removal of something absent",
      evolution: { removeConstraints: ["nope"] },
      kind: "validation_failed",
      message: /there is no constraint nope/,
    },
    {
      name: "removal of a referenced constant",
      evolution: { removeConstants: ["rate"] },
      kind: "validation_failed",
      message: /constant 'rate' is still referenced by \$const\.rate in derivations\[1\]\.expr/,
    },
    {
      name: "stranded state",
      evolution: { upsertSchemaNodes: [{ path: "$.qty", schema: { type: "string" } }] },
      kind: "validation_failed",
      message: /would strand state at \$\.qty/,
    },
    {
      name: "backfill of a derived field",
      evolution: { backfill: { "$.total": 1 } },
      kind: "validation_failed",
      message: /backfill\['\$\.total'\]: is computed by the derivation \$\.total/,
    },
    {
      name: "backfill invalid under the new schema",
      evolution: { backfill: { "$.note": 5 } },
      kind: "validation_failed",
      message: /backfill\['\$\.note'\]: violates the new schema/,
    },
    {
      name: "backfill making a container of another type on its way",
      evolution: { backfill: { "$.items.sku": "x" } },
      kind: "validation_failed",
      message: /backfill\['\$\.items\.sku'\]: violates the new schema: \$\.items \(type\): must be array/,
    },
    {
      name: "a derivation failing during recomputation",
      evolution: { upsertDerivations: [{ path: "$.boom", expr: "$error('boom')" }] },
      kind: "validation_failed",
      message: /Evaluation of derivation \$\.boom failed/,
    },
  ];
  await withShop(async ({ service, store, events }) => {
    const spec = await service.getSpec("shop");
    const state = await service.getState("shop");
    const snapshot = await service.snapshot("shop");
    for (const { name, evolution, kind, message } of cases) {
      const err = await rejection(service.evolveSpec("shop", evolution));
      assert.equal(err.kind, kind, name);
      assert.match(err.message, message, name);
      assert.deepEqual(await service.getSpec("shop"), spec, name);
      assert.deepEqual(await service.getState("shop"), state, name);
      assert.deepEqual(await service.snapshot("shop"), snapshot, name);
    }
    assert.deepEqual(store.saved, []);
    assert.deepEqual(events, []);
  });
});

Deno.test("a version conflict carries expected and actual", async () => {
  await withShop(async ({ service }) => {
    const err = await rejection(
      service.evolveSpec("shop", { expectedVersion: "3.0.0", newVersion: "4.0.0" }),
    );
    assert.deepEqual(err.body, { error: "Version conflict", expected: "3.0.0", actual: "1.0.0" });
  });
});

Deno.test("a failed save installs nothing", async () => {
  await withShop(async ({ service, store, events }) => {
    const state = await service.getState("shop");
    store.failNextSave = true;
    await assert.rejects(
      service.evolveSpec("shop", { newVersion: "9.0.0", removeDerivations: ["$.gross"] }),
      /disk full/,
    );
    assert.equal((await service.getSpec("shop")).version, "1.0.0");
    assert.deepEqual(await service.getState("shop"), state);
    assert.deepEqual(events, []);
  });
});

Deno.test("evolveSpec of an unknown model is a 404", async () => {
  await withShop(async ({ service }) => {
    assert.equal((await rejection(service.evolveSpec("nope", {}))).kind, "not_found");
  });
});

Deno.test("the evolveSpec operation requires id and evolution and returns {id, version, warnings?}", async () => {
  await withShop(async ({ service }) => {
    assert.throws(() => checkInput(evolveSpec, { id: "shop" }), /Missing required field: 'evolution'/);
    const input = checkInput<{ id: string; evolution: unknown }>(evolveSpec, {
      id: "shop",
      evolution: { newVersion: "1.2.0" },
    });
    const { warnings: _, ...answer } = await evolveSpec.run(service, input);
    assert.deepEqual(answer, { id: "shop", version: "1.2.0" });
  });
});

// ------------------------------------------------------------ conformance examples

const EXAMPLES = new URL("../../../shared/conformance/examples/", import.meta.url);

async function readExamples(): Promise<ModelSpec[]> {
  const specs: ModelSpec[] = [];
  for await (const entry of Deno.readDir(EXAMPLES)) {
    if (entry.name.endsWith(".json")) {
      specs.push(JSON.parse(await Deno.readTextFile(new URL(entry.name, EXAMPLES))));
    }
  }
  return specs.sort((a, b) => a.id.localeCompare(b.id));
}

const TIME_DEPENDENT = /\$(now|millis)\(/;

Deno.test("every conformance example holding state evolves with its state carried forward", async () => {
  const service = await ModelService.open();
  try {
    for (const spec of await readExamples()) {
      await service.createModel(spec);
      const given = spec.tests?.[0]?.given ?? {};
      if (Object.keys(given).length) await service.mutate(spec.id, given);
      const before = await service.getState(spec.id) as JsonObject;
      const result = await service.evolveSpec(spec.id, {
        expectedVersion: spec.version,
        newVersion: "9.9.9",
        upsertSchemaNodes: [{ path: "$.evolutionNote", schema: { type: "string" } }],
        backfill: { "$.evolutionNote": "migrated" },
      });
      assert.deepEqual(result, { id: spec.id, version: "9.9.9" }, spec.id);
      const after = await service.getState(spec.id) as JsonObject;
      assert.equal(after.evolutionNote, "migrated", spec.id);
      if (!TIME_DEPENDENT.test(JSON.stringify(spec))) {
        assert.deepEqual(after, { ...before, evolutionNote: "migrated" }, spec.id);
      }
      for (const [address, value] of Object.entries(given)) {
        assert.deepEqual(await service.getField(spec.id, address), value, `${spec.id} ${address}`);
      }
    }
  } finally {
    await service.close();
  }
});

/** Runs `run` over a service holding the order example with its first test's `given` applied. */
async function withOrderExample(
  run: (service: ModelService, spec: ModelSpec) => Promise<void>,
): Promise<void> {
  const service = await ModelService.open();
  try {
    const spec = (await readExamples()).find((s) => s.id === "order-items-price-total")!;
    await service.createModel(spec);
    await service.mutate(spec.id, spec.tests![0].given);
    await run(service, spec);
  } finally {
    await service.close();
  }
}

Deno.test("the order example evolves per-element: a new item field backfilled and used by a derivation", async () => {
  await withOrderExample(async (service, spec) => {
    await service.evolveSpec(spec.id, {
      upsertSchemaNodes: [{ path: "$.items[*].discount", schema: { type: "number", minimum: 0 } }],
      backfill: { "$.items[*].discount": 0.5 },
      upsertDerivations: [{
        path: "$.items[*].lineTotal",
        expr: "$parent.price * $parent.qty - $parent.discount",
      }],
    });
    const state = await service.getState(spec.id) as { items: JsonObject[]; total: Json };
    assert.deepEqual(state.items.map((i) => [i.discount, i.lineTotal]), [[0.5, 5.5], [0.5, 5]]);
    const err = await rejection(service.evolveSpec(spec.id, {
      upsertSchemaNodes: [{ path: "$.items[*].qty", schema: { type: "string" } }],
    }));
    assert.deepEqual(err.body?.paths, ["$.items[0].qty", "$.items[1].qty"]);
  });
});

Deno.test("view-tier evolutions of an example: a placed component is kept, a broken view definition refused", async () => {
  await withOrderExample(async (service, spec) => {
    await service.evolveSpec(spec.id, {
      upsertComponents: [{
        viewId: "main",
        component: { id: "note", type: "textField", bind: "$.note" },
        beforeId: "sep1",
      }],
    });
    const views = (await service.getSpec(spec.id)).viewDefinition!.views as JsonObject[];
    assert.deepEqual((views[0].components as JsonObject[]).map((c) => c.id), [
      "itemsList",
      "note",
      "sep1",
      "itemsTable",
      "sep2",
      "totalRow",
    ]);
    const before = await service.getSpec(spec.id);
    const err = await rejection(
      service.evolveSpec(spec.id, { upsertViews: [{ id: "extra" }], removeViews: ["main"] }),
    );
    assert.equal(err.kind, "validation_failed");
    assert.match(err.message, /defaultView/);
    assert.deepEqual(await service.getSpec(spec.id), before);
  });
});

Deno.test("a backfill over [*] that would pass max-state-bytes is a 413 before it is written, and changes nothing", async () => {
  const { service } = await serviceOf({ maxStateBytes: 100_000 });
  try {
    await service.createModel({
      id: "bf",
      schema: {
        type: "object",
        properties: {
          items: { type: "array", items: { type: "object", properties: { blob: { type: "array" } } } },
        },
      },
    });
    await service.mutate("bf", { "$.items": Array.from({ length: 1000 }, (_, k) => ({ k })) });
    const state = await service.getState("bf");
    const blob = Array.from({ length: 1000 }, () => ({ a: 1 }));
    const err = await rejectsWith(
      () => service.evolveSpec("bf", { newVersion: "2.0.0", backfill: { "$.items[*].blob": blob } }),
      "too_large",
      /^State of model 'bf' would be about \d+ bytes, over svc\.limits\.max-state-bytes \(100000\)$/,
    );
    assert.ok(Number(/about (\d+)/.exec(err.message)![1]) > 1000 * JSON.stringify(blob).length);
    assert.deepEqual(await service.getState("bf"), state);
    assert.equal((await service.getSpec("bf")).version, "1.0.0");
  } finally {
    await service.close();
  }
});

Deno.test("a backfill fills a model up to exactly max-state-bytes: a null it replaces and dropped derived values count", async () => {
  const utf8 = (value: Json) => new TextEncoder().encode(JSON.stringify(value)).length;
  for (const over of [0, 1]) {
    const { service } = await serviceOf({ maxStateBytes: 100 });
    try {
      await service.createModel({
        id: "bf",
        schema: { type: "object", properties: { a: {}, o: { type: "object" } } },
        derivations: [{ path: "$.d", expr: "'dd'" }],
      });
      await service.mutate("bf", { "$.a": null });
      const state = await service.getState("bf");
      // The string replaces `null` (4 bytes) with its own length and quotes.
      const fill = "x".repeat(100 + over - (utf8(state) - 4 + 2));
      const evolve = () => service.evolveSpec("bf", { newVersion: "2.0.0", backfill: { "$.a": fill } });
      if (over) {
        await rejectsWith(evolve, "too_large", /would be about 101 bytes/);
        assert.deepEqual(await service.getState("bf"), state);
      } else {
        await evolve();
        assert.equal(utf8(await service.getState("bf")), 100);
      }
    } finally {
      await service.close();
    }
  }
});

Deno.test("an evolution whose definition refers to a malformed escape is a spec error, not a crash", async () => {
  const { service } = await serviceOf();
  await service.createModel({ id: "m", schema: { type: "object", properties: { a: { type: "number" } } } });
  await rejectsWith(
    () => service.evolveSpec("m", { upsertSchemaDefs: { Y: { $ref: "#/$defs/%zz" } } }),
    "validation_failed",
    /schema\.\$defs\.Y\.\$ref: dangling reference '#\/\$defs\/%zz'/,
  );
  assert.equal((await service.getSpec("m")).version, "1.0.0");
});

Deno.test("a hostile key stranded by an evolution or refused by a restore is named short, as other violations are", async () => {
  const { service } = await serviceOf();
  await service.createModel({ id: "m", schema: { type: "object", properties: { bag: { type: "object" } } } });
  const long = "k".repeat(5000);
  await service.mutate("m", { "$.bag": { [long]: 1 } });
  const closed = { type: "object", additionalProperties: false };
  const stranded = await rejectsWith(
    () => service.evolveSpec("m", { upsertSchemaNodes: [{ path: "$.bag", schema: closed }] }),
    "validation_failed",
    /^Evolution refused: the new schema would strand state at \$\.bag\.k{194}… \(5006 characters\)/,
  );
  const body = stranded.body as { paths: string[]; violations: { path: string }[] };
  assert.deepEqual(body.paths, [`$.bag.${"k".repeat(194)}… (5006 characters)`]);
  assert.deepEqual(body.violations.map((v) => v.path), body.paths);

  await service.evolveSpec("m", { upsertSchemaNodes: [{ path: "$.bag", schema: { type: "object" } }] });
  const { service: other } = await serviceOf();
  await other.createModel({ id: "m", schema: { type: "object", properties: { bag: closed } } });
  const snapshot = await service.snapshot("m");
  const refused = await rejectsWith(
    () => other.restore("m", snapshot),
    "validation_failed",
  );
  assert.ok(refused.message.length < 1000, `${refused.message.length} characters`);
});
