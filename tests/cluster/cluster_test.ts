/**
 * Instances of `svc serve` over one PostgreSQL database: writes to one model
 * through every instance join one unbroken audit chain; a WebSocket subscriber
 * of one instance gets the frames of writes made through another; a timer
 * fires once; a killed instance loses no acknowledged write and its jobs are
 * run by another.
 */
import assert from "node:assert/strict";
import { call } from "../server/helpers.ts";
import { expiringModel, stateOf, until, writesTo } from "../effects/helpers.ts";
import { knownEverywhere, marksSpec, startCluster } from "./helpers.ts";
import { sourceSpec, targetSpec } from "../composition/helpers.ts";

const OPTIONS = { sanitizeOps: false, sanitizeResources: false };

/** Writes `{marks.w<i>: i}` for each i, spread round-robin over `urls`; resolves with the acknowledged i. */
async function writeMarks(urls: string[], id: string, count: number, from = 0): Promise<number[]> {
  const results = await Promise.all(Array.from({ length: count }, async (_, k) => {
    const i = from + k;
    const reply = await call(urls[i % urls.length], "POST", `/models/${id}/mutations`, {
      [`$.marks.w${i}`]: i,
    })
      .catch(() => null);
    return reply?.status === 200 ? i : null;
  }));
  return results.filter((i) => i !== null);
}

Deno.test({
  ...OPTIONS,
  name: "three instances: writes to one model through each commit in one unbroken audit chain",
}, async () => {
  const cluster = await startCluster(3);
  try {
    const [a, b, c] = cluster.urls;
    assert.equal((await call(a, "POST", "/models", marksSpec("m"))).status, 201);
    await knownEverywhere(cluster.urls, "m");
    const acknowledged = await writeMarks(cluster.urls, "m", 24);
    assert.equal(acknowledged.length, 24, "every write acknowledged (losers retried)");
    const audit = (await call(b, "GET", "/models/m/audit?limit=100")).json as { sequence: number }[];
    assert.deepEqual(audit.map((r) => r.sequence).reverse(), [...Array(24).keys()], "one record per write");
    for (const url of cluster.urls) {
      assert.equal((await call(url, "GET", "/models/m/audit/verify")).json.valid, true, `verified on ${url}`);
      const state = await until(() => stateOf(url, "m"), (s) => s.count === 24, `every write seen on ${url}`);
      assert.deepEqual(Object.keys(state.marks).length, 24);
    }
    // A fourth instance started now loads the model as the others have it.
    const d = await cluster.add();
    assert.deepEqual(await stateOf(d.url!, "m"), await stateOf(c, "m"));
  } finally {
    await cluster.stop();
  }
});

Deno.test({
  ...OPTIONS,
  name: "two instances: a WebSocket subscriber on one gets the frames of writes made through the other",
}, async () => {
  const cluster = await startCluster(2);
  try {
    const [a, b] = cluster.urls;
    await call(a, "POST", "/models", marksSpec("feed"));
    await knownEverywhere(cluster.urls, "feed");
    const socket = new WebSocket(`${a.replace(/^http/, "ws")}/models/feed/subscribe`);
    const frames: Record<string, unknown>[] = [];
    socket.onmessage = (event) => frames.push(JSON.parse(event.data));
    await new Promise((resolve, reject) => {
      socket.onopen = resolve;
      socket.onerror = reject;
    });
    for (let i = 0; i < 5; i++) {
      assert.equal((await call(b, "POST", "/models/feed/mutations", { [`$.marks.w${i}`]: i })).status, 200);
    }
    await until(() => Promise.resolve(frames.length), (n) => n >= 5, "five frames on the other instance");
    assert.deepEqual(
      frames.map((f) => (f.mutatedPaths as string[])[0]),
      ["$.marks.w0", "$.marks.w1", "$.marks.w2", "$.marks.w3", "$.marks.w4"],
    );
    assert.ok(
      frames.every((f) => f.kind === "mutation" && (f.derivedUpdated as string[]).includes("$.count")),
    );
    socket.close();
  } finally {
    await cluster.stop();
  }
});

Deno.test({ ...OPTIONS, name: "two instances: a timer effect fires exactly once" }, async () => {
  const cluster = await startCluster(2);
  try {
    const [a, b] = cluster.urls;
    await call(a, "POST", "/models", expiringModel("t", 800));
    await knownEverywhere(cluster.urls, "t");
    await call(b, "POST", "/models/t/mutations", { "$.status": "open" });
    const state = await until(() => stateOf(a, "t"), (s) => s.status === "expired", "the timer");
    assert.equal(state.n, 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.deepEqual(await writesTo(a, "t", "$.n"), [1], "fired once");
    assert.equal((await stateOf(b, "t")).n, 1);
  } finally {
    await cluster.stop();
  }
});

Deno.test({
  ...OPTIONS,
  name: "three instances, two holding a watch: a watched change is folded back once",
}, async () => {
  const cluster = await startCluster(2);
  try {
    const [a, b] = cluster.urls;
    assert.equal((await call(a, "POST", "/models", targetSpec("fx"))).status, 201);
    assert.equal((await call(a, "POST", "/models", sourceSpec("fx", "inv"))).status, 201);
    await knownEverywhere(cluster.urls, "inv");
    await call(a, "POST", "/models/fx/mutations", { "$.v": 1 });
    await call(a, "POST", "/models/inv/mutations", { "$.need": true });
    await until(() => stateOf(b, "inv"), (s) => s.rate === 2, "the read-link's first read, seen on b");
    // a armed the watch when its link fired; an instance started now arms it at load: two hold it.
    await cluster.add();
    await knownEverywhere(cluster.urls, "inv");
    // The target changes through b, which holds no watch.
    assert.equal((await call(b, "POST", "/models/fx/mutations", { "$.v": 5 })).status, 200);
    await until(() => stateOf(a, "inv"), (s) => s.rate === 10, "the change folded back, seen on a");
    await new Promise((resolve) => setTimeout(resolve, 1000)); // time for a second fold-back to show
    assert.deepEqual(await writesTo(a, "inv", "$.rate"), [10, 2], "one fold-back per change, newest first");
    assert.equal((await call(a, "GET", "/models/inv/audit/verify")).json.valid, true);
  } finally {
    await cluster.stop();
  }
});

Deno.test({
  ...OPTIONS,
  name: "kill -9 of one instance under load loses no acknowledged write; its pending timer fires elsewhere",
}, async () => {
  const cluster = await startCluster(2, { SVC_STORAGE_POSTGRES_JOB_LEASE_MS: "1000" });
  try {
    const [a, b] = cluster.urls;
    for (const id of ["k1", "k2", "k3"]) await call(a, "POST", "/models", marksSpec(id));
    await call(a, "POST", "/models", expiringModel("t", 2000));
    await knownEverywhere(cluster.urls, "t");
    // The timer is fired by a commit on the instance about to die, so that instance holds it.
    await call(a, "POST", "/models/t/mutations", { "$.status": "open" });
    const acknowledged = new Map<string, number[]>();
    const load = ["k1", "k2", "k3"].map(async (id) => {
      const done: number[] = [];
      acknowledged.set(id, done);
      for (let round = 0; round < 12; round++) done.push(...await writeMarks([a, b], id, 4, round * 4));
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await cluster.instances[0].stop("SIGKILL");
    await Promise.all(load);
    for (const [id, done] of acknowledged) {
      assert.ok(done.length > 0);
      const state = await stateOf(b, id);
      for (const i of done) assert.equal(state.marks[`w${i}`], i, `${id}: acknowledged write ${i} kept`);
      assert.equal((await call(b, "GET", `/models/${id}/audit/verify`)).json.valid, true);
    }
    const timer = await until(
      () => stateOf(b, "t"),
      (s) => s.status === "expired",
      "the dead instance's timer",
    );
    assert.equal(timer.n, 1);
  } finally {
    await cluster.stop();
  }
});
