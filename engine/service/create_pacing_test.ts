/**
 * Creating a large model yields to the event loop while its spec compiles
 * (engine/model/pacing.ts): other models are served meanwhile, and the id, the
 * model limit and a refused spec behave as when the compile ran in one piece.
 */
import assert from "node:assert/strict";
import { largeSpec, rejectsWith, serviceOf } from "../_test_utils.ts";
import type { ModelSpec } from "../model/types.ts";
import { MemoryModelStore } from "./memory.ts";
import type { StoreChange, StoreCoordination } from "./ports.ts";

const small = (id: string) => ({
  id,
  schema: { type: "object", properties: { x: { type: "number" } } },
  derivations: [{ path: "$.y", expr: "x + 1" }],
});

/** One macrotask: the large create has started compiling when it is over. */
const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Settles `work`, recording its name in `order` when it does. */
function track(order: string[], name: string, work: Promise<unknown>): Promise<unknown> {
  return work.then(
    (value) => (order.push(name), value),
    (err) => (order.push(name), Promise.reject(err)),
  );
}

// 2,000 derivations take well over the 10 ms between two yields on any machine.
const COUNT = 2000;

Deno.test("a write and a read of another model are answered while a large spec compiles", async () => {
  const { service } = await serviceOf();
  await service.createModel(small("other"));
  const order: string[] = [];
  const creating = track(order, "create", service.createModel(largeSpec("big", COUNT)));
  await macrotask();
  await track(order, "write", service.mutate("other", { "$.x": 1 }));
  await track(order, "read", service.getState("other"));
  await creating;
  assert.deepEqual(order, ["write", "read", "create"]);
  assert.deepEqual(await service.getState("other"), { x: 1, y: 2 });
  assert.deepEqual(await service.listModels(), ["big", "other"]);
});

Deno.test("a create of the same id while a large spec compiles is a conflict, and the first one stands", async () => {
  const { service } = await serviceOf();
  const order: string[] = [];
  const creating = track(order, "large", service.createModel(largeSpec("big", COUNT)));
  await macrotask();
  await rejectsWith(
    () => track(order, "same id", service.createModel(small("big"))),
    "conflict",
    /already exists/,
  );
  await creating;
  assert.deepEqual(order, ["same id", "large"]);
  assert.deepEqual(await service.listModels(), ["big"]);
  assert.equal((await service.getSpec("big")).derivations?.length, COUNT);
});

Deno.test("a large spec refused near its end leaves no model, and its id is free again", async () => {
  const { service } = await serviceOf();
  const creating = service.createModel(largeSpec("big", COUNT, "in0 +"));
  await macrotask();
  const error = await rejectsWith(() => creating, "validation_failed");
  assert.deepEqual((error.body?.errors as { location: string }[]).map((f) => f.location), [
    `derivations[${COUNT - 1}].expr`,
  ]);
  assert.deepEqual(await service.listModels(), []);
  await rejectsWith(() => service.getInfo("big"), "not_found");
  await service.createModel(small("big"));
  assert.deepEqual(await service.listModels(), ["big"]);
});

Deno.test("svc.max-models counts a create still compiling", async () => {
  const { service } = await serviceOf({ maxModels: 2 });
  await service.createModel(small("a"));
  const creating = service.createModel(largeSpec("big", COUNT));
  await macrotask();
  await rejectsWith(() => service.createModel(small("c")), "too_many", /svc\.max-models = 2/);
  await creating;
  assert.deepEqual(await service.listModels(), ["a", "big"]);
});

Deno.test("a model another process creates under an id a refused create held is loaded once that create fails", async () => {
  /** A shared store whose other process creates `big` (a small spec) once the announcement is made. */
  class SharedStore extends MemoryModelStore {
    listener: (change: StoreChange) => void = () => {};
    othersModel = false;
    readonly coordination: StoreCoordination = {
      refresh: () =>
        Promise.resolve(
          this.othersModel
            ? {
              kind: "replaced",
              model: {
                spec: small("big") as ModelSpec,
                base: { doc: { x: 4, y: 5 }, meta: [], stale: [] },
                log: [],
              },
            }
            : { kind: "current" },
        ),
      watch: (listener) => {
        this.listener = listener;
        return Promise.resolve(() => {});
      },
      claim: (job) => Promise.resolve(job),
    };
  }
  const store = new SharedStore();
  const { service } = await serviceOf({}, { store });
  const creating = service.createModel(largeSpec("big", COUNT, "in0 +"));
  await macrotask();
  store.othersModel = true;
  store.listener({ type: "model", modelId: "big" });
  await rejectsWith(() => creating, "validation_failed");
  await macrotask();
  assert.deepEqual(await service.listModels(), ["big"]);
  assert.deepEqual(await service.getState("big"), { x: 4, y: 5 });
});
