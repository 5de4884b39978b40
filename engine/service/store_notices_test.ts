import assert from "node:assert/strict";
import { serviceOf, SharedStore } from "../_test_utils.ts";
import type { ModelSpec } from "../model/types.ts";
import type { ModelRefresh } from "./ports.ts";

const COUNTER = {
  id: "c",
  version: "1.0.0",
  schema: { type: "object", properties: { n: { type: "number" } } },
} as unknown as ModelSpec;

/** What a refresh finds once another process stored the counter anew at `n` (created, restored). */
const storedAt = (n: number): ModelRefresh => ({
  kind: "replaced",
  model: { spec: COUNTER, base: { doc: { n }, meta: [], stale: [] }, log: [] },
});

Deno.test("another process's restore is heard, one told while the model is adopted too", async () => {
  const store = new SharedStore();
  const { service } = await serviceOf({}, { store });
  const heard: string[] = [];
  service.subscribe((event) => heard.push(event.type));

  // Created by the other process, then restored while this service adopts it from its first read.
  const adopted = store.changed("c", storedAt(0));
  await store.changed("c", storedAt(7));
  await adopted;
  assert.deepEqual(await service.getState("c"), { n: 7 });
  assert.deepEqual(heard, ["created", "restored"]);

  // Restored again, the same spec: subscribers (a view) hear of it to read it again.
  await store.changed("c", storedAt(9));
  assert.deepEqual(await service.getState("c"), { n: 9 });
  assert.deepEqual(heard, ["created", "restored", "restored"]);
  await service.close();
});

Deno.test("a refresh a notice starts that fails runs again until it gets through", async () => {
  const store = new SharedStore();
  // Its refreshes fail `failing` times (the database out of reach a moment), then answer.
  let failing = 0;
  const refresh = store.coordination.refresh;
  store.coordination.refresh = (id, options) =>
    failing-- > 0 ? Promise.reject(new Error("the database cannot be reached")) : refresh(id, options);
  const warnings: string[] = [];
  const { service } = await serviceOf({}, { store, observer: { warn: (line) => warnings.push(line) } });
  await store.changed("c", storedAt(0));
  assert.deepEqual(await service.getState("c"), { n: 0 });

  failing = 3;
  await store.changed("c", storedAt(5));
  const deadline = Date.now() + 10_000;
  while ((await service.getState("c") as { n: number }).n !== 5) {
    assert.ok(Date.now() < deadline, `never caught up: ${warnings.join("; ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(failing, -1, "three failures, then the attempt that got through");
  assert.deepEqual(warnings, [
    "refreshing from the store failed: the database cannot be reached; trying again until it gets through",
  ]);
  await service.close();
});

Deno.test("the compiled model of one another process created a moment ago is looked up in the store", async () => {
  const store = new SharedStore();
  const { service } = await serviceOf({}, { store });
  // Stored by the other process, its notice still on the way.
  store.next = storedAt(4);
  // Until the twentieth session it threw 404 (synchronously) where every operation finds the model.
  const model = await service.compiledModel("c");
  assert.equal(model.spec.id, "c");
  assert.deepEqual(await service.getState("c"), { n: 4 });
  store.next = { kind: "deleted" };
  await assert.rejects(service.compiledModel("absent"), { kind: "not_found" });
  await service.close();
});
