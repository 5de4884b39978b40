import assert from "node:assert/strict";
import { type Feed, type FeedEvent, serviceFeed } from "../host/feed.ts";
import { type Invoker, localInvoker, ModelService, type ModelSpec, operations } from "../../engine/mod.ts";
import { SharedStore } from "../../engine/_test_utils.ts";
import { notFound } from "../../engine/errors.ts";
import { StaleModelError } from "../../engine/service/ports.ts";
import { wholeModelChanged as whole } from "../../engine/operations/change_feed.ts";
import { memoryJournal } from "./_test_utils.ts";
import { afterHolds, holdingFeed } from "./held_feed.ts";
import { NOT_LOADED, type Settled, settledVersion } from "./settled.ts";

/** A feed whose events a test sends. */
function manualFeed(): Feed & { send(event: FeedEvent): void } {
  const listeners = new Set<(event: FeedEvent) => void>();
  return {
    subscribe(modelId, listener) {
      const of = (event: FeedEvent) => event.modelId === modelId && listener(event);
      listeners.add(of);
      return () => listeners.delete(of);
    },
    send: (event) => listeners.forEach((listener) => listener(event)),
  };
}

/** A write of model `modelId` whose commit dispatched a caller effect. */
const withEffect = (modelId: string): FeedEvent => ({
  kind: "mutation",
  modelId,
  mutatedPaths: ["$.n"],
  derivedUpdated: [],
  metaUpdated: [],
  dispatchedEffects: [{ effectId: "notify", kind: "caller", payload: { n: 1 } }] as never,
});

Deno.test("a held model's events wait for the release, which tells of the writes, then one change; others pass", () => {
  const inner = manualFeed();
  const feed = holdingFeed(inner);
  const [heard, other] = [[] as FeedEvent[], [] as FeedEvent[]];
  feed.subscribe("a", (event) => heard.push(event));
  feed.subscribe("b", (event) => other.push(event));

  const release = feed.hold("a");
  inner.send({ kind: "deleted", modelId: "a" });
  inner.send(whole("a"));
  inner.send(withEffect("a"));
  inner.send(whole("b"));
  assert.deepEqual(heard, []);
  assert.deepEqual(other, [whole("b")]);
  release("2.0.0");
  // The writes (another writer's caller effects among them), not the deletion, then the summary.
  assert.deepEqual(heard, [whole("a"), withEffect("a"), {
    kind: "spec-evolved",
    modelId: "a",
    version: "2.0.0",
  }]);

  // Gone at the release: told so. Nothing held: nothing told. Released: events pass again.
  const gone = feed.hold("a");
  inner.send({ kind: "deleted", modelId: "a" });
  gone(null);
  feed.hold("a")("1.0.0");
  inner.send(whole("a"));
  assert.deepEqual(heard.slice(3), [{ kind: "deleted", modelId: "a" }, whole("a")]);
});

Deno.test("a deletion this page did not make waits for what settled says: back (another tab's replacement) or gone", async () => {
  const inner = manualFeed();
  const outcomes = [0, 1, 2].map(() => Promise.withResolvers<Settled>());
  const asked: string[] = [];
  const feed = holdingFeed(inner, (modelId) => (asked.push(modelId), outcomes[asked.length - 1].promise));
  const heard: FeedEvent[] = [];
  feed.subscribe("a", (event) => heard.push(event));

  inner.send({ kind: "deleted", modelId: "a" });
  inner.send(whole("a"));
  inner.send(withEffect("a"));
  assert.deepEqual(heard, []);
  outcomes[0].resolve("2.0.0");
  await outcomes[0].promise;
  assert.deepEqual(heard, [whole("a"), withEffect("a"), {
    kind: "spec-evolved",
    modelId: "a",
    version: "2.0.0",
  }]);

  inner.send({ kind: "deleted", modelId: "a" });
  outcomes[1].resolve(null);
  await outcomes[1].promise;
  assert.deepEqual(heard.slice(3), [{ kind: "deleted", modelId: "a" }]);
  // A deletion during a hold of this page's own is that hold's: settled is not asked.
  const release = feed.hold("a");
  inner.send({ kind: "deleted", modelId: "a" });
  release("3.0.0");
  assert.deepEqual(asked, ["a", "a"]);
  // Stored but not loadable here (another tab saved a spec this version refuses): passes at once, said so.
  inner.send({ kind: "deleted", modelId: "a", unloaded: true });
  assert.deepEqual(heard.slice(5), [{ kind: "deleted", modelId: "a", unloaded: true }]);
  assert.deepEqual(asked, ["a", "a"]);
  // Another tab's replacement left a model this tab cannot load: told as stored but not loaded, not as gone.
  inner.send({ kind: "deleted", modelId: "a" });
  outcomes[2].resolve(NOT_LOADED);
  await outcomes[2].promise;
  assert.deepEqual(heard.slice(6), [{ kind: "deleted", modelId: "a", unloaded: true }]);
  // Without settled, a deletion passes at once.
  const alone = manualFeed();
  const told: FeedEvent[] = [];
  holdingFeed(alone).subscribe("a", (event) => told.push(event));
  alone.send({ kind: "deleted", modelId: "a" });
  assert.deepEqual(told, [{ kind: "deleted", modelId: "a" }]);
});

Deno.test("holds of one model nest: its events wait for the last release", () => {
  const inner = manualFeed();
  const feed = holdingFeed(inner);
  const heard: FeedEvent[] = [];
  const stop = feed.subscribe("a", (event) => heard.push(event));
  const [first, second] = [feed.hold("a"), feed.hold("a")];
  inner.send(whole("a"));
  first("1.0.0");
  assert.deepEqual(heard, []);
  second("1.0.0");
  assert.deepEqual(heard, [whole("a"), { kind: "spec-evolved", modelId: "a", version: "1.0.0" }]);
  // Unsubscribed, a listener hears no release.
  stop();
  const third = feed.hold("a");
  inner.send(whole("a"));
  third("1.0.0");
  assert.equal(heard.length, 2);
});

Deno.test("calls on a held model wait for its release, a deletion heard is watched; others go at once", async () => {
  const inner = manualFeed();
  const outcome = Promise.withResolvers<string | null>();
  const feed = holdingFeed(inner, () => outcome.promise);
  const made: string[] = [];
  const invoker = afterHolds({
    invoke: ((_operation: unknown, input: { id?: string }) => {
      made.push(input?.id ?? "-");
      return Promise.resolve(input?.id);
    }) as unknown as Invoker["invoke"],
  }, feed);
  const watched: boolean[] = [];
  const unwatch = feed.watch("a", (held) => watched.push(held));
  feed.subscribe("a", () => {});

  // Another tab's replacement: its deletion heard, held until settled says the model is back.
  inner.send({ kind: "deleted", modelId: "a" });
  assert.deepEqual(watched, [true]);
  const write = invoker.invoke(operations.mutate, { id: "a", mutations: { "$.n": 5 } });
  await invoker.invoke(operations.getState, { id: "b" });
  await invoker.invoke(operations.listModels, {} as never);
  assert.deepEqual(made, ["b", "-"]);
  // A watcher coming meanwhile is told at once.
  const late: boolean[] = [];
  feed.watch("a", (held) => late.push(held));
  assert.deepEqual(late, [true]);
  outcome.resolve("2.0.0");
  assert.equal(await write, "a");
  assert.deepEqual(made, ["b", "-", "a"]);
  assert.deepEqual([watched, late], [[true, false], [true, false]]);

  // This page's own hold (its open) is not another tab's: watchers hear nothing, and calls go at once.
  const release = feed.hold("a");
  assert.equal(await invoker.invoke(operations.getState, { id: "a" }), "a");
  assert.equal(made.length, 4);
  // Once the open replaces the model (stalled), they wait for its end.
  feed.stall("a");
  const read = invoker.invoke(operations.getState, { id: "a" });
  await Promise.resolve();
  assert.equal(made.length, 4);
  release("2.0.0");
  await read;
  assert.equal(made.length, 5);
  assert.deepEqual(watched, [true, false]);
  unwatch();
  inner.send({ kind: "deleted", modelId: "a" });
  assert.deepEqual(watched, [true, false]);
});

/** A store shared with another tab (played by the test) whose next commit finds the model deleted there. */
class DeletedElsewhere extends SharedStore {
  deleted = false;
  override commit(...args: Parameters<SharedStore["commit"]>): Promise<void> {
    if (!this.deleted) return super.commit(...args);
    this.deleted = false;
    return Promise.reject(new StaleModelError(args[0]));
  }
}

Deno.test("a write in the service when another tab's replacement deletes its model applies to the model that comes back", async () => {
  const counter = (version: string) =>
    ({ id: "c", version, schema: { type: "object", properties: { n: { type: "number" } } } }) as ModelSpec;
  const store = new DeletedElsewhere();
  const service = await ModelService.open({ store });
  const direct = localInvoker(service);
  await direct.invoke(operations.createModel, { spec: counter("1.0.0") });
  // As api.ts builds the page's connection, over a journal and an open's lock the test plays.
  const journal = memoryJournal();
  const lock = Promise.withResolvers<void>();
  const version = (id: string) =>
    direct.invoke(operations.getSpec, { id }).then((spec) => spec.version ?? null, () => null);
  const feed = holdingFeed(serviceFeed(service), (id) =>
    settledVersion({
      replacing: async (id) => !!await journal.read(id),
      opensDone: () => lock.promise,
      version,
      stored: () => Promise.resolve(true),
      feed: serviceFeed(service),
      warnings: () => () => {},
    }, id));
  const invoker = afterHolds(direct, feed);
  const heard: FeedEvent[] = [];
  feed.subscribe("c", (event) => heard.push(event));
  const held: boolean[] = [];
  feed.watch("c", (on) => held.push(on));

  // The other tab journals its replacement and deletes the model while this tab's write is being committed.
  await journal.write("c", { stored: counter("1.0.0"), snapshot: {}, version: "2.0.0" });
  store.next = { kind: "deleted" };
  store.deleted = true;
  const write = invoker.invoke(operations.mutate, { id: "c", mutations: { "$.n": 5 } })
    .then(() => "written", (err: Error) => err.message);
  while (!held.length) await new Promise((resolve) => setTimeout(resolve, 0));
  // It creates the model again from its new spec, and its open ends.
  await store.changed("c", {
    kind: "replaced",
    model: { spec: counter("2.0.0"), base: { doc: { n: 1 }, meta: [], stale: [] }, log: [] },
  });
  await journal.remove("c");
  lock.resolve();

  assert.equal(await write, "written");
  assert.deepEqual(await direct.invoke(operations.getState, { id: "c" }), { n: 5 });
  assert.equal(await version("c"), "2.0.0");
  assert.deepEqual(held, [true, false]);
  // Told of the model that came back (its creation, its new spec), then of the write; never as deleted.
  assert.deepEqual(heard.map((event) => event.kind), ["mutation", "spec-evolved", "mutation"]);
  await service.close();
});

Deno.test("a call that failed as not found is made again once the model is back, not when it stays gone", async () => {
  const outcomes: Settled[] = ["2.0.0", null];
  const feed = holdingFeed(manualFeed(), () => Promise.resolve(outcomes.shift()!));
  let calls = 0;
  const invoker = afterHolds({
    invoke: (() =>
      ++calls === 2
        ? Promise.resolve("done")
        : Promise.reject(notFound("Model 'a' not found"))) as unknown as Invoker["invoke"],
  }, feed);
  // Back (another tab's replacement): made again, once.
  assert.equal(await invoker.invoke(operations.mutate, { id: "a", mutations: {} }), "done");
  assert.equal(calls, 2);
  // Gone: the not found stands.
  await assert.rejects(invoker.invoke(operations.mutate, { id: "a", mutations: {} }), /Model 'a' not found/);
  assert.equal(calls, 3);
});
