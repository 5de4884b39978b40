import assert from "node:assert/strict";
import { type FeedEvent, serviceFeed } from "../host/feed.ts";
import { ModelService, type ModelSpec } from "../../engine/mod.ts";
import { memoryJournal } from "./_test_utils.ts";
import { holdingFeed } from "./held_feed.ts";
import { followOwn } from "./own_replace.ts";
import { settledVersion } from "./settled.ts";

const counter = (version: string) =>
  ({ id: "c", version, schema: { type: "object", properties: { n: { type: "number" } } } }) as ModelSpec;

/** A clock the test moves: the timers started, each run when the test fires it, unless cancelled. */
function testClock() {
  const due = new Set<() => void>();
  return {
    due,
    timer: (run: () => void) => (due.add(run), () => void due.delete(run)),
    fire: () => [...due].forEach((run) => (due.delete(run), run())),
  };
}

/** Lets the tasks and timers of 0 ms queued so far run (the app awaiting something between its calls). */
async function ticks(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Counter 1.0.0 at n = 1, one service playing both the page-wide one and the app's createModelService() (it
 * hears its own deletion), followed on `clock`; what the page's feed tells of it, and what it says of other tabs.
 */
async function ownPage(clock: ReturnType<typeof testClock>) {
  const service = await ModelService.open({});
  await service.createModel(counter("1.0.0"));
  await service.mutate("c", { "$.n": 1 });
  const journal = memoryJournal();
  // The open's lock a journaled replacement holds (resolved once it is free).
  const lock = Promise.withResolvers<void>();
  const settled = (id: string) =>
    settledVersion({
      replacing: async (id) => !!await journal.read(id),
      opensDone: () => lock.promise,
      version: (id) => service.getSpec(id).then((spec) => spec.version ?? null, () => null),
      stored: async (id) => (await service.listModels()).includes(id),
      feed: serviceFeed(service),
      warnings: () => () => {},
    }, id);
  const feed = holdingFeed(serviceFeed(service), settled);
  followOwn(service, () => Promise.resolve({ feed, service, settled }), { timer: clock.timer });
  const heard: FeedEvent[] = [];
  feed.subscribe("c", (event) => heard.push(event));
  const watched: boolean[] = [];
  feed.watch("c", (held) => watched.push(held));
  const deletions = () => heard.filter((event) => event.kind === "deleted");
  return { service, journal, lock, feed, heard, watched, deletions };
}

Deno.test("this tab's own service replacing a model the page shows: held as this tab's, never told deleted", async () => {
  const clock = testClock();
  const { service, journal, lock, feed, heard, watched, deletions } = await ownPage(clock);

  // As an open replaces it (journaled, under its lock), the model created again a while after its deletion.
  const snapshot = await service.snapshot("c");
  await journal.write("c", { stored: counter("1.0.0"), snapshot: snapshot as never, version: "2.0.0" });
  await service.deleteModel("c");
  await new Promise((resolve) => setTimeout(resolve, 0));
  await service.createModel(counter("2.0.0"));
  await service.restore("c", snapshot);
  await journal.remove("c");
  lock.resolve();
  await feed.released("c");

  // Not another tab's: no line says so; shown as it came out, never as deleted.
  assert.deepEqual(watched, []);
  assert.deepEqual(deletions(), []);
  assert.deepEqual(heard.at(-1), { kind: "spec-evolved", modelId: "c", version: "2.0.0" });
  assert.deepEqual(await service.getState("c"), { n: 1 });

  // A deletion that stays one is told as such once the window for a creation is over.
  await service.deleteModel("c");
  clock.fire();
  await feed.released("c");
  assert.deepEqual(heard.at(-1), { kind: "deleted", modelId: "c" });
  assert.deepEqual(watched, []);
  await service.close();
});

Deno.test("an own deletion, then a creation begun within the window (not journaled): one replacement, never told deleted", async () => {
  const clock = testClock();
  const { service, feed, heard, watched, deletions } = await ownPage(clock);
  const snapshot = await service.snapshot("c");
  await service.deleteModel("c");
  // The app awaits something else first; the page's service has heard of the deletion meanwhile.
  await ticks();
  await service.createModel(counter("2.0.0"), snapshot);
  await feed.released("c");
  assert.deepEqual(deletions(), []);
  assert.deepEqual(heard.at(-1), { kind: "spec-evolved", modelId: "c", version: "2.0.0" });
  assert.deepEqual(watched, []);
  // The window closed with the creation.
  assert.equal(clock.due.size, 0);
  await service.close();
});

Deno.test("an own deletion with no creation within the window: told deleted when it ends, a later creation is one", async () => {
  const clock = testClock();
  const { service, feed, heard, watched, deletions } = await ownPage(clock);
  await service.deleteModel("c");
  await ticks();
  // Held (the page's calls waiting) until the window ends.
  assert.deepEqual(deletions(), []);
  let released = false;
  const release = feed.released("c").then(() => released = true);
  await ticks();
  assert.equal(released, false);
  clock.fire();
  await release;
  assert.deepEqual(deletions(), [{ kind: "deleted", modelId: "c" }]);
  // Much later, a creation: told as it happens, not held, the deletion told before it stays.
  await service.createModel(counter("2.0.0"));
  assert.deepEqual(heard.at(-1), {
    kind: "mutation",
    modelId: "c",
    mutatedPaths: ["$"],
    derivedUpdated: [],
    metaUpdated: [],
    dispatchedEffects: [],
  });
  assert.deepEqual(deletions(), [{ kind: "deleted", modelId: "c" }]);
  assert.deepEqual(watched, []);
  await service.close();
});

Deno.test("an own deletion the page's service never hears of: the hold ends with the window", async () => {
  const clock = testClock();
  const { service, feed } = await ownPage(clock);
  // The app's service is another one, over a store the page's service gets no notice from.
  const app = await ModelService.open({});
  await app.createModel(counter("1.0.0"));
  followOwn(app, () => Promise.resolve({ feed, service, settled: () => Promise.resolve("1.0.0") }), {
    timer: clock.timer,
  });
  await app.deleteModel("c");
  let released = false;
  const release = feed.released("c").then(() => released = true);
  await ticks();
  assert.equal(released, false);
  clock.fire();
  await release;
  await app.close();
  await service.close();
});
