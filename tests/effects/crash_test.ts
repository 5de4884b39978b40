/**
 * Effects survive a crash: `svc serve` on Deno KV is killed with SIGKILL while
 * an HTTP effect waits for its answer, and once while a timer is pending.
 * After a restart on the same directory each effect's result is applied
 * exactly once and the audit chain verifies.
 */
import assert from "node:assert/strict";
import { call, spawnServe } from "../server/helpers.ts";
import { expiringModel, rateModel, startTarget, stateOf, until, writesTo } from "./helpers.ts";

const EFFECT_ENV = { SVC_EFFECTS_ALLOW_PRIVATE_IPS: "true", SVC_EFFECTS_ALLOW_INSECURE_HTTP: "true" };

/** A `svc serve` on KV under `dir`, its effects allowed to reach loopback. */
function serve(dir: string) {
  return spawnServe({ env: { ...EFFECT_ENV, SVC_PERSISTENCE_DIR: dir } });
}

/** The audit records whose mutations write `address`. */

Deno.test("an HTTP effect in flight at SIGKILL is sent again after restart (its Idempotency-Key the same) and applied once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "effects_crash_" });
  const answer = Promise.withResolvers<void>();
  const target = startTarget(async () => {
    await answer.promise;
    return Response.json({ rate: 4.5 });
  });
  try {
    const first = await serve(dir);
    const charge = { method: "POST", url: `${target.url}/charge`, body: "{'region': region}" };
    await call(first.url!, "POST", "/models", rateModel(target.url, { request: charge }));
    await call(first.url!, "POST", "/models/quote/mutations", { "$.region": "eu", "$.enabled": true });
    await until(() => Promise.resolve(target.hits.length), (n) => n === 1, "the request");
    await first.stop("SIGKILL");

    const second = await serve(dir);
    try {
      await until(() => Promise.resolve(target.hits.length), (n) => n === 2, "the request sent again");
      const [sent, again] = target.hits.map((hit) => hit.headers.get("idempotency-key"));
      assert.ok(sent, "the request carries an Idempotency-Key");
      assert.equal(again, sent, "the service can tell it is the same request");
      answer.resolve();
      const state = await until(
        () => stateOf(second.url!, "quote"),
        (s) => s.io?.fetch?.phase === "applied",
        "the fold-back",
      );
      assert.equal(state.rate, 4.5);
      assert.deepEqual(await writesTo(second.url!, "quote", "$.rate"), [4.5], "applied exactly once");
      assert.equal((await call(second.url!, "GET", "/models/quote/audit/verify")).json.valid, true);
      // Nothing is left to run: a later restart sends nothing more.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(target.hits.length, 2);
    } finally {
      await second.stop();
    }
    const third = await serve(dir);
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(target.hits.length, 2, "a settled job is not re-sent");
      assert.deepEqual(await writesTo(third.url!, "quote", "$.rate"), [4.5]);
    } finally {
      await third.stop();
    }
  } finally {
    answer.resolve();
    await target.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a timer pending at SIGKILL fires once after restart, at its instant", async () => {
  const dir = await Deno.makeTempDir({ prefix: "timer_crash_" });
  /** When the audit trail of model `t` says `$.status` was written `status`. */
  const at = async (url: string, status: string) => {
    const audit = (await call(url, "GET", "/models/t/audit")).json as {
      timestamp: string;
      mutations?: Record<string, unknown>;
    }[];
    return Date.parse(audit.find((r) => r.mutations?.["$.status"] === status)!.timestamp);
  };
  try {
    const first = await serve(dir);
    await call(first.url!, "POST", "/models", expiringModel("t", 1500));
    await call(first.url!, "POST", "/models/t/mutations", { "$.status": "open" });
    const opened = await at(first.url!, "open");
    await first.stop("SIGKILL");

    // Restarted with its clock standing at the timer's start until it listens: to it the restart took no
    // time, so a timer fired at the restart rather than at its instant shows early in the audit, however
    // long the restart really took.
    const second = await spawnServe({
      script: new URL("./serve_at.ts", import.meta.url).pathname,
      env: { ...EFFECT_ENV, SVC_PERSISTENCE_DIR: dir, SVC_TEST_CLOCK_AT: String(opened) },
    });
    try {
      const state = await until(() => stateOf(second.url!, "t"), (s) => s.status === "expired", "the timer");
      // Not before its instant, by the commits' own times (the audit's), not the test's clock.
      assert.ok((await at(second.url!, "expired")) - opened >= 1500, "not before its instant");
      assert.equal(state.n, 1);
      assert.equal(state.io.phase, "applied");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.deepEqual(await writesTo(second.url!, "t", "$.n"), [1], "fired once");
      assert.equal((await call(second.url!, "GET", "/models/t/audit/verify")).json.valid, true);
    } finally {
      await second.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
