/**
 * A watched read-link whose target cannot be read when it changes (its
 * repository is down) reads it again after 1, 2, 4… seconds, a bounded number
 * of times, and stops retrying when the watch ends.
 */
import assert from "node:assert/strict";
import { type Json, ModelService, type ModelSpec, webPlatform } from "../../engine/mod.ts";
import type { Repository } from "../../engine/composition/repository.ts";
import { until } from "../effects/helpers.ts";
import { sourceSpec, targetSpec } from "./helpers.ts";

/** Timers of a second or more are kept for the test to fire; shorter ones run as usual. */
function heldScheduler() {
  const held = new Map<object, { run: () => void; ms: number }>();
  const counts = { held: 0 };
  return {
    held,
    /** How many timers were held so far, cleared ones included. */
    heldSoFar: () => counts.held,
    scheduler: {
      setTimeout(run: () => void, ms: number): unknown {
        if (ms < 1000) return setTimeout(run, ms);
        const handle = {};
        counts.held++;
        held.set(handle, { run, ms });
        return handle;
      },
      clearTimeout(handle: unknown) {
        if (typeof handle === "object" && handle !== null) held.delete(handle);
        else clearTimeout(handle as number);
      },
    },
    /** The held timers' delays. */
    delays: () => [...held.values()].map((t) => t.ms),
    /** Runs and forgets the held timer of `ms`. */
    fire(ms: number) {
      const entry = [...held].find(([, t]) => t.ms === ms);
      assert.ok(entry, `a timer of ${ms} ms is held (held: ${[...held.values()].map((t) => t.ms)})`);
      held.delete(entry[0]);
      entry[1].run();
    },
  };
}

interface RemoteTarget {
  twice: Json;
  failing: number;
  reads: number;
  onChange: ((paths: string[]) => void) | null;
  repository: Repository;
}

/** A repository holding the link target `fx`, whose reads fail while `failing` is above zero. */
function remoteTarget(): RemoteTarget {
  const remote: RemoteTarget = {
    twice: 4 as Json,
    failing: 0,
    reads: 0,
    onChange: null as ((paths: string[]) => void) | null,
    repository: {
      id: "remote",
      repoClass: "local",
      fetch: (identity: string) =>
        Promise.resolve(identity === "fx" ? targetSpec() as unknown as ModelSpec : null),
      read: (): Promise<Json> => {
        remote.reads++;
        if (remote.failing > 0) {
          remote.failing--;
          return Promise.reject(new Error("connection refused"));
        }
        return Promise.resolve(remote.twice);
      },
      watch: (_identity: string, onChange: (paths: string[]) => void) => {
        remote.onChange = onChange;
        return Promise.resolve(() => remote.onChange = null);
      },
    },
  };
  return remote;
}

Deno.test("a watch retries a target it could not read, with growing waits, and stops with the watch", async () => {
  const timers = heldScheduler();
  const remote = remoteTarget();
  const service = await ModelService.open({
    platform: { ...webPlatform(), scheduler: timers.scheduler },
    repositories: [remote.repository],
    executors: [],
  });
  const rate = async () => ((await service.getState("inv")) as { rate?: number }).rate;
  try {
    await service.createModel(sourceSpec());
    await service.mutate("inv", { "$.need": true });
    await until(rate, (r) => r === 4, "the pull applied");
    await until(() => Promise.resolve(remote.onChange), (w) => w !== null, "the watch armed");
    assert.deepEqual(timers.delays(), [], "nothing pending once the link settled");

    // The target changes while its repository is down: the refresh waits a second and reads again.
    remote.twice = 10;
    remote.failing = 1;
    remote.onChange!(["$.twice"]);
    await until(() => Promise.resolve(timers.delays()), (d) => d.length === 1, "a retry pending");
    assert.deepEqual(timers.delays(), [1000]);
    assert.equal(await rate(), 4);
    timers.fire(1000);
    await until(rate, (r) => r === 10, "the retry refreshed the field");
    assert.deepEqual(timers.delays(), []);

    // Down for good: 1, 2, 4, 8, 16, 32 s, then it waits for the next change.
    remote.twice = 12;
    remote.failing = 100;
    const heldBefore = timers.heldSoFar();
    const readsBefore = remote.reads;
    remote.onChange!(["$.twice"]);
    for (const ms of [1000, 2000, 4000, 8000, 16000, 32000]) {
      await until(() => Promise.resolve(timers.delays()), (d) => d.length === 1, `a retry of ${ms} ms`);
      timers.fire(ms);
    }
    // The change's read and six retries.
    await until(() => Promise.resolve(remote.reads), (n) => n === readsBefore + 7, "the last retry read");
    assert.equal(await rate(), 10);
    // A newer change read fine is the barrier: the last failed retry was handled before it folds back.
    remote.failing = 0;
    remote.twice = 14;
    remote.onChange!(["$.twice"]);
    await until(rate, (r) => r === 14, "the newer change applied");
    assert.equal(timers.heldSoFar(), heldBefore + 6, "no retry after the sixth");
    assert.deepEqual(timers.delays(), []);

    // A newer change supersedes a pending retry; ending the watch (the source deleted) cancels it.
    remote.failing = 2;
    const held = timers.heldSoFar();
    remote.onChange!(["$.twice"]);
    await until(() => Promise.resolve(timers.delays()), (d) => d.length === 1, "a retry pending");
    remote.onChange!(["$.twice"]);
    await until(() => Promise.resolve(timers.heldSoFar()), (n) => n === held + 2, "the newer change's retry");
    assert.deepEqual(timers.delays(), [1000], "one pending retry, the newer change's");
    await service.deleteModel("inv");
    assert.deepEqual(timers.delays(), [], "the watch ended with its model: no retry left");
    assert.equal(remote.onChange, null);
  } finally {
    await service.close();
  }
});
