import assert from "node:assert/strict";
import { type FeedEvent, serviceFeed } from "../host/feed.ts";
import { ModelService, type ModelSpec } from "../../engine/mod.ts";
import { memoryJournal } from "./_test_utils.ts";
import { holdingFeed } from "./held_feed.ts";
import { followOwn } from "./own_replace.ts";
import { settledVersion } from "./settled.ts";

const counter = (version: string) =>
  ({ id: "c", version, schema: { type: "object", properties: { n: { type: "number" } } } }) as ModelSpec;

Deno.test("this tab's own service replacing a model the page shows: held as this tab's, never told deleted", async () => {
  // One service plays both the page-wide one and the app's createModelService(): it hears its own deletion.
  const service = await ModelService.open({});
  await service.createModel(counter("1.0.0"));
  await service.mutate("c", { "$.n": 1 });
  const journal = memoryJournal();
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
  followOwn(service, () => Promise.resolve({ feed, service, settled }));
  const heard: FeedEvent[] = [];
  feed.subscribe("c", (event) => heard.push(event));
  const watched: boolean[] = [];
  feed.watch("c", (held) => watched.push(held));

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
  assert.deepEqual(heard.map((event) => event.kind).filter((kind) => kind === "deleted"), []);
  assert.deepEqual(heard.at(-1), { kind: "spec-evolved", modelId: "c", version: "2.0.0" });
  assert.deepEqual(await service.getState("c"), { n: 1 });

  // A deletion that stays one is told as such, once over.
  await service.deleteModel("c");
  await feed.released("c");
  assert.deepEqual(heard.at(-1), { kind: "deleted", modelId: "c" });
  assert.deepEqual(watched, []);
  await service.close();
});
