import assert from "node:assert/strict";
import type { Feed, FeedEvent } from "../host/feed.ts";
import { NOT_LOADED, settledVersion, type SettleSources } from "./settled.ts";

/** Sources whose answers a test sets: `version` and `stored` read the fields at each call. */
function sources(state: { journaled: boolean; version: string | null; stored: boolean }) {
  const listeners = new Set<(event: FeedEvent) => void>();
  const warners = new Set<(message: string) => void>();
  const lock = Promise.withResolvers<void>();
  const asked: string[] = [];
  const feed: Feed = {
    subscribe: (_, listener) => (listeners.add(listener), () => void listeners.delete(listener)),
  };
  const from: SettleSources = {
    replacing: () => Promise.resolve(state.journaled),
    opensDone: () => (asked.push("lock"), lock.promise),
    version: () => (asked.push("version"), Promise.resolve(state.version)),
    stored: () => (asked.push("stored"), Promise.resolve(state.stored)),
    feed,
    warnings: (listener) => (warners.add(listener), () => void warners.delete(listener)),
  };
  return {
    from,
    asked,
    freeLock: () => lock.resolve(),
    send: (event: FeedEvent) => listeners.forEach((listener) => listener(event)),
    warn: (message: string) => warners.forEach((listener) => listener(message)),
    listening: () => listeners.size + warners.size,
  };
}

/** Lets the callbacks due run (a turn of the event loop). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Whether `promise` is still pending. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  const mark = Symbol();
  return await Promise.race([promise, settle().then(() => mark)]) === mark;
}

Deno.test("heard after the replacing tab finished (no record): the store has it, so it waits for this tab to take it in", async () => {
  const state = { journaled: false, version: null as string | null, stored: true };
  const { from, send, listening } = sources(state);
  const outcome = settledVersion(from, "a");
  // However long this tab's service takes: no "gone" meanwhile.
  for (let i = 0; i < 5; i++) assert.ok(await pending(outcome));
  state.version = "2.0.0";
  send({
    kind: "mutation",
    modelId: "a",
    mutatedPaths: ["$"],
    derivedUpdated: [],
    metaUpdated: [],
    dispatchedEffects: [],
  });
  assert.equal(await outcome, "2.0.0");
  assert.equal(listening(), 0);
});

Deno.test("a journaled replacement: decided once its open's lock frees, the model then back or coming", async () => {
  const state = { journaled: true, version: null as string | null, stored: false };
  const { from, asked, freeLock, send } = sources(state);
  const outcome = settledVersion(from, "a");
  assert.ok(await pending(outcome));
  assert.deepEqual(asked, ["lock"]);
  // The replacing tab created it again and let go; this tab's service has not taken it in yet.
  state.stored = true;
  freeLock();
  assert.ok(await pending(outcome));
  state.version = "2.0.0";
  send({ kind: "spec-evolved", modelId: "a", version: "2.0.0" });
  assert.equal(await outcome, "2.0.0");
});

Deno.test("gone from the store: gone at once; stored but not loadable here: no waiting for it", async () => {
  const gone = sources({ journaled: false, version: null, stored: false });
  assert.equal(await settledVersion(gone.from, "a"), null);
  // Taken in already: its version.
  assert.equal(
    await settledVersion(sources({ journaled: false, version: "1.0.0", stored: true }).from, "a"),
    "1.0.0",
  );
  const unloadable = sources({ journaled: false, version: null, stored: true });
  const outcome = settledVersion(unloadable.from, "a");
  assert.ok(await pending(outcome));
  unloadable.warn("model 'ab' not loaded: its stored spec no longer validates: ...");
  assert.ok(await pending(outcome));
  unloadable.warn("model 'a' not loaded: its stored spec no longer validates: ...");
  // Told as stored but not loaded here, not as gone.
  assert.equal(await outcome, NOT_LOADED);
});
