/**
 * Status documents that would hold their effect back for good: brought back
 * by a restore, left behind by a process that died, a watched read-link that
 * failed, a blocked document the model refuses (and its approval).
 */
import assert from "node:assert/strict";
import { testConfig } from "../_test_utils.ts";
import type { Json } from "../json/value.ts";
import { ModelService, type ServiceOptions } from "../service/service.ts";
import { finalFailure } from "./executor.ts";
import { effectService, ok, ReloadableStore, ScriptedExecutor, settled } from "./test_support.ts";

type Status = { phase: string; key: Json; at: string; error: string | null };
type Quote = { region?: string; rate?: number; io?: { fetch?: Status | null } };

/** A server effect whose status document must be an object (null is refused there). */
const quoteSpec = (fetch: Record<string, unknown> = { type: "object" }) => ({
  id: "q",
  schema: {
    type: "object",
    properties: {
      region: { type: "string" },
      rate: { type: "number" },
      io: { type: "object", properties: { fetch } },
    },
  },
  effects: [{
    id: "fetch",
    executor: "server",
    trigger: "region != null",
    dedupeKey: "region",
    request: { method: "get", url: "https://rates.example/{ region }" },
    response: { set: { "$.rate": "$response.rate" } },
    statusPath: "$.io.fetch",
  }],
});

const quote = async (service: { getState(id: string): Promise<Json> }) =>
  (await service.getState("q")) as Quote;

/** A service on `executors` whose warnings are kept in `warnings`. */
async function watched(
  executors: ScriptedExecutor[],
  options: Omit<ServiceOptions, "platform" | "executors"> = {},
) {
  const warnings: string[] = [];
  const opened = await effectService(executors, { ...options, observer: { warn: (m) => warnings.push(m) } });
  return { ...opened, warnings };
}

Deno.test("a restore bringing back a pending document whose job settled re-arms it as cancelled, which fires it", async () => {
  const http = new ScriptedExecutor().answer(ok({ rate: 1 }), ok({ rate: 2 }));
  const { service, scheduler, warnings } = await watched([http]);
  await service.createModel(quoteSpec());
  await service.mutate("q", { "$.region": "eu" });
  const snapshot = await service.snapshot("q");
  await scheduler.advance(0);
  assert.equal((await quote(service)).rate, 1);
  await scheduler.advance(1000);
  // Restored pending with no job of its own: the schema refuses null there, so `cancelled` re-arms it.
  await service.restore("q", snapshot);
  const result = (await service.getAudit("q", { limit: 1 }))[0];
  assert.deepEqual(result.mutations, {
    "$.io.fetch": {
      phase: "cancelled",
      key: null,
      at: new Date(scheduler.clock.now()).toISOString(),
      error: null,
    },
  });
  assert.equal(
    (await quote(service)).io?.fetch?.phase,
    "pending",
    "the cancelled document's commit fired it",
  );
  await scheduler.advance(0);
  const state = await quote(service);
  assert.deepEqual([http.jobs.length, state.rate, state.io?.fetch?.phase], [2, 2, "applied"]);
  assert.deepEqual(warnings, []);
  await service.close();
});

Deno.test("a restore to a state without the status document the replaced state held re-fires the effect", async () => {
  const http = new ScriptedExecutor().answer(ok({ rate: 1 }), ok({ rate: 2 }));
  const { service, scheduler, warnings } = await watched([http]);
  await service.createModel(quoteSpec({}));
  await service.mutate("q", { "$.region": "eu" });
  await scheduler.advance(0);
  const snapshot = await service.snapshot("q") as unknown as Record<string, Json>;
  assert.equal((await quote(service)).io?.fetch?.phase, "applied");
  // A state in which the effect's trigger holds but which holds no record of its work.
  await service.restore("q", { ...snapshot, baseDoc: { region: "eu" } });
  await scheduler.advance(0);
  const state = await quote(service);
  assert.deepEqual([http.jobs.length, state.rate, state.io?.fetch?.phase], [2, 2, "applied"]);
  assert.deepEqual(warnings, []);

  // Restoring the state as it is clears nothing and fires nothing.
  await service.restore("q", await service.snapshot("q"));
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 2);
  await service.close();
});

Deno.test("a model created in a snapshot's state fires nothing its default state would, and re-arms its pending work", async () => {
  const http = new ScriptedExecutor().answer(ok({ rate: 1 }));
  const { service, scheduler, warnings } = await watched([http]);
  await service.createModel(quoteSpec());
  await service.mutate("q", { "$.region": "eu" });
  // Pending, its job gone with the model (a replacement's snapshot).
  const snapshot = await service.snapshot("q");
  await service.deleteModel("q");
  // Its default region would fire the effect, were the model created empty first.
  const spec = quoteSpec();
  spec.schema.properties.region = { type: "string", default: "us" } as never;
  await service.createModel(spec, snapshot);
  await scheduler.advance(0);
  const state = await quote(service);
  assert.deepEqual([state.region, state.rate, state.io?.fetch?.phase], ["eu", 1, "applied"]);
  assert.deepEqual(http.jobs.map((job) => job.key), ["eu"]);
  assert.deepEqual(warnings, []);
  await service.close();
});

Deno.test("a restore re-arms each status document in a commit of its own: one the model refuses holds back no other", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler, warnings } = await watched([http]);
  const effect = (id: string) => ({
    id,
    executor: "server",
    trigger: "region != null",
    dedupeKey: "region",
    request: { method: "get", url: `https://${id}.example/` },
    statusPath: `$.io.${id}`,
  });
  await service.createModel({
    id: "two",
    schema: {
      type: "object",
      properties: {
        region: { type: "string" },
        io: { type: "object", properties: { a: { type: "object" } } },
      },
    },
    effects: [effect("a"), effect("b")],
  });
  await service.mutate("two", { "$.region": "eu" });
  const pending = ((await service.getState("two")) as { io: { b: Status } }).io.b;
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 2);
  const snapshot = await service.snapshot("two") as unknown as Record<string, Json>;
  // `a` lacks its document (null, which its schema refuses), `b` is pending with no job (cancelled).
  await service.restore("two", { ...snapshot, baseDoc: { region: "eu", io: { b: pending } } });
  await scheduler.advance(0);
  assert.deepEqual(http.jobs.map((job) => job.effectId), ["a", "b", "b"]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^model 'two': status document \$\.io\.a not re-armed: Schema violation/);
  await service.close();
});

Deno.test("at startup a pending or in_flight document with no job in the outbox fires its effect again", async () => {
  const store = new ReloadableStore();
  const first = new ScriptedExecutor();
  const before = await watched([first], { store });
  await before.service.createModel(quoteSpec());
  first.hold();
  await before.service.mutate("q", { "$.region": "eu" });
  await before.scheduler.advance(0);
  assert.equal((await quote(before.service)).io?.fetch?.phase, "in_flight");
  // The process dies mid-request (its attempt's answer is dropped).
  const closing = before.service.close();
  first.release();
  await closing;

  // Its job still in the outbox: sent again once, by that job.
  const resent = new ScriptedExecutor().answer(ok({ rate: 1 }));
  let after = await watched([resent], { store });
  await after.scheduler.advance(0);
  assert.deepEqual([resent.jobs.length, (await quote(after.service)).io?.fetch?.phase], [1, "applied"]);
  await after.service.mutate("q", { "$.region": "us" });
  await after.service.close();
  assert.equal(store.outbox.size, 1);

  // The document pending, its job lost (a store that kept the state but not the outbox): fired again.
  store.outbox.clear();
  // A host that runs no effects, opened for a look, leaves the document as it is.
  const look = await ModelService.open({ store });
  assert.equal((await quote(look)).io?.fetch?.phase, "pending");
  await look.close();
  const lost = new ScriptedExecutor().answer(ok({ rate: 2 }));
  after = await watched([lost], { store });
  await after.scheduler.advance(0);
  const state = await quote(after.service);
  assert.deepEqual([lost.jobs.length, state.rate, state.io?.fetch?.phase], [1, 2, "applied"]);
  assert.deepEqual(lost.jobs[0].key, "us");
  assert.deepEqual(after.warnings, []);
  await after.service.close();
});

Deno.test("a watched read-link that failed is fired again at a restart, and watches from then on", async () => {
  const store = new ReloadableStore();
  const before = await watched([], { store });
  await before.service.createModel({
    id: "fx",
    schema: { type: "object", properties: { v: { type: "number" } } },
  });
  await before.service.mutate("fx", { "$.v": 20 });
  await before.service.createModel({
    id: "inv",
    schema: {
      type: "object",
      properties: { need: { type: "boolean" }, rate: { type: "number", maximum: 10 } },
    },
    effects: [{
      id: "pull",
      executor: "server",
      trigger: "need",
      dedupeKey: "need",
      target: { ref: "fx", read: "$.v", watch: true },
      response: { set: { "$.rate": "$response" } },
      statusPath: "$.io.pull",
    }],
  });
  await before.service.mutate("inv", { "$.need": true });
  await before.scheduler.advance(0);
  type Inv = { rate?: number; io: { pull: Status } };
  const inv = async (service: typeof before.service) => (await service.getState("inv")) as Inv;
  assert.match((await inv(before.service)).io.pull.error ?? "", /^fold-back refused: .*maximum/);
  await before.service.mutate("fx", { "$.v": 2 });
  await before.scheduler.advance(0);
  assert.equal((await inv(before.service)).rate, undefined, "a failed link does not watch");
  await before.service.close();

  const after = await watched([], { store });
  await after.scheduler.advance(0);
  let state = await inv(after.service);
  assert.deepEqual([state.rate, state.io.pull.phase], [2, "applied"]);
  await after.service.mutate("fx", { "$.v": 3 });
  await settled();
  await after.scheduler.advance(0);
  state = await inv(after.service);
  assert.deepEqual([state.rate, state.io.pull.phase], [3, "applied"], "watching");
  assert.deepEqual(after.warnings, []);
  await after.service.close();
});

/**
 * A template `acme/base` whose effect `notify` (statusPath `$.io.notify`) fires when `net > 100`, and its
 * branch `beta/eu`, whose inherited effect is blocked and whose live meta refuses the blocked phase (it takes
 * the failed one).
 */
async function quarantinedBranch(
  service: ModelService,
  extra: { dedupeKey?: string },
  phases = ["pending", "in_flight", "applied", "failed", "cancelled"],
): Promise<void> {
  await service.createModel({
    id: "acme/base",
    schema: { type: "object", properties: { net: { type: "number" } } },
    effects: [{
      id: "notify",
      executor: "server",
      trigger: "net > 100",
      ...extra,
      statusPath: "$.io.notify",
      request: { url: "https://hub.example/", method: "POST", body: "{'net': net}" },
    }],
  });
  await service.createModel({
    id: "beta/eu",
    template: { ref: "acme/base" },
    schema: {},
    metaDerivations: [{
      path: "$.io.notify.phase",
      property: "enum",
      expr: JSON.stringify(phases),
    }],
  });
}

Deno.test("a blocked effect whose blocked document the model refuses records failed once", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler } = await watched([http]);
  await quarantinedBranch(service, { dedupeKey: "net" });
  const first = await service.mutate("beta/eu", { "$.net": 200 });
  assert.deepEqual(first.mutatedPaths, ["$.net", "$.io.notify"]);
  const failed = ((await service.getState("beta/eu")) as { io: { notify: Status } }).io.notify;
  assert.equal(failed.phase, "failed");
  assert.match(failed.error ?? "", /^status document refused: .*\$\.io\.notify\.phase \(enum\)/);
  await scheduler.advance(1000);
  const again = await service.mutate("beta/eu", { "$.net": 300 });
  assert.deepEqual(again.mutatedPaths, ["$.net"], "the same refusal is not recorded again");
  assert.deepEqual(((await service.getState("beta/eu")) as { io: { notify: Status } }).io.notify, failed);
  assert.equal(http.jobs.length, 0, "nothing sent");
  await service.close();
});

Deno.test("approving an effect without dedupeKey whose blocked document was refused fires it, once", async () => {
  const http = new ScriptedExecutor();
  const { service, scheduler } = await watched([http]);
  await quarantinedBranch(service, {});
  const notify = async () => ((await service.getState("beta/eu")) as { io: { notify: Status } }).io.notify;
  await service.mutate("beta/eu", { "$.net": 200 });
  // The refusal's record has the key null, as the effect's own key is: it must not hold the approved effect back.
  assert.deepEqual([(await notify()).phase, (await notify()).key], ["failed", null]);
  await service.approveEffect("beta/eu", "notify");
  await scheduler.advance(0);
  assert.deepEqual([http.jobs.length, (await notify()).phase], [1, "applied"], "the approval fired it");
  await service.mutate("beta/eu", { "$.net": 300 });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 1, "it ran: without a dedupeKey it runs once");
  await service.close();
});

Deno.test("a failed document whose error only begins like a refused status document's record holds its effect back", async () => {
  const http = new ScriptedExecutor().answer(finalFailure("status document refused upstream (503)"));
  const { service, scheduler } = await watched([http]);
  await service.createModel({
    id: "n",
    schema: { type: "object", properties: { net: { type: "number" } } },
    effects: [{
      id: "notify",
      executor: "server",
      trigger: "net > 100",
      statusPath: "$.io.notify",
      request: { url: "https://hub.example/", method: "POST", body: "{'net': net}" },
    }],
  });
  const notify = async () => ((await service.getState("n")) as { io: { notify: Status } }).io.notify;
  await service.mutate("n", { "$.net": 200 });
  await scheduler.advance(0);
  assert.deepEqual([(await notify()).phase, (await notify()).error], [
    "failed",
    "status document refused upstream (503)",
  ]);
  // The executor's failure: without a dedupeKey the effect ran, and stays held back.
  await service.mutate("n", { "$.net": 300 });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 1, "not sent again after an executor's failure");
  // A client's write of such a document is a failure like any other.
  const at = new Date(scheduler.clock.now()).toISOString();
  for (const error of ["status document refused by hand", "status document refused: Schema violation"]) {
    await service.mutate("n", { "$.io.notify": { phase: "failed", key: null, at, error } });
    await service.mutate("n", { "$.net": 400 + error.length });
    await scheduler.advance(0);
    assert.equal(http.jobs.length, 1, error);
  }
  await service.close();
});

Deno.test("an approval leaves an effect without dedupeKey held back by the applied document of a run the refusals left in place", async () => {
  const store = new ReloadableStore();
  const phases = ["pending", "in_flight", "applied"];
  // Run once while inherited effects were allowed: the document says applied, key null.
  const before = await watched([new ScriptedExecutor()], {
    store,
    config: testConfig({ inheritedEffects: "allow" }),
  });
  await quarantinedBranch(before.service, {}, phases);
  await before.service.mutate("beta/eu", { "$.net": 200 });
  await before.scheduler.advance(0);
  await before.service.close();

  // Quarantined now: the blocked document and the failed record are both refused, the applied one stays.
  const http = new ScriptedExecutor();
  const { service, scheduler } = await watched([http], { store });
  const notify = async () =>
    ((await service.getState("beta/eu")) as { io: { notify: Status | null } }).io.notify;
  const result = await service.mutate("beta/eu", { "$.net": 300 });
  assert.deepEqual(result.mutatedPaths, ["$.net"]);
  assert.deepEqual([(await notify())?.phase, (await notify())?.key], ["applied", null]);
  await service.approveEffect("beta/eu", "notify");
  await scheduler.advance(0);
  assert.deepEqual([http.jobs.length, (await notify())?.phase], [0, "applied"], "it ran: it runs once");
  // Clearing the document re-arms it, as for any effect.
  await service.mutate("beta/eu", { "$.io.notify": null });
  await scheduler.advance(0);
  assert.deepEqual([http.jobs.length, (await notify())?.phase], [1, "applied"]);
  await service.close();
});

Deno.test("a quarantined watched read-link without statusPath watches only once approved, after a restart too", async () => {
  const store = new ReloadableStore();
  const before = await watched([], { store });
  await before.service.createModel({
    id: "acme/fx",
    schema: { type: "object", properties: { v: { type: "number" } } },
  });
  await before.service.mutate("acme/fx", { "$.v": 1 });
  await before.service.createModel({
    id: "acme/base",
    schema: { type: "object", properties: { need: { type: "boolean" }, rate: { type: "number" } } },
    effects: [{
      id: "pull",
      executor: "server",
      trigger: "need",
      target: { ref: "acme/fx", read: "$.v", watch: true },
      response: { set: { "$.rate": "$response" } },
    }],
  });
  await before.service.createModel({ id: "beta/eu", template: { ref: "acme/base" }, schema: {} });
  await before.service.mutate("beta/eu", { "$.need": true });
  await before.service.close();

  // Loaded again, the blocked link is not armed: a change of its target reads nothing into the branch.
  const { service, scheduler } = await watched([], { store });
  const rate = async () => ((await service.getState("beta/eu")) as { rate?: number }).rate;
  await service.mutate("acme/fx", { "$.v": 2 });
  await settled();
  await scheduler.advance(0);
  assert.equal(await rate(), undefined, "nothing read before the approval");
  await service.approveEffect("beta/eu", "pull");
  await scheduler.advance(0);
  assert.equal(await rate(), 2, "the approval fired it");
  await service.mutate("acme/fx", { "$.v": 3 });
  await settled();
  await scheduler.advance(0);
  assert.equal(await rate(), 3, "and it watches");
  await service.close();
});

Deno.test("a job left in the outbox under `allow` is not sent by a host that quarantines its effect", async () => {
  const store = new ReloadableStore();
  const before = await watched([], { store, config: testConfig({ inheritedEffects: "allow" }) });
  await before.service.createModel({
    id: "acme/base",
    schema: { type: "object", properties: { net: { type: "number" } } },
    effects: [{
      id: "notify",
      executor: "server",
      trigger: "net > 100",
      statusPath: "$.io.notify",
      request: { url: "https://hub.example/", method: "POST", body: "{'net': net}" },
    }],
  });
  await before.service.createModel({ id: "beta/eu", template: { ref: "acme/base" }, schema: {} });
  await before.service.mutate("beta/eu", { "$.net": 200 });
  await before.service.close();
  assert.equal(store.outbox.size, 1);

  const http = new ScriptedExecutor();
  const { service, scheduler } = await watched([http], { store });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 0, "not sent");
  assert.equal(store.outbox.size, 0, "the job is settled");
  // Cancelled, which re-arms it: it now waits for an approval like any quarantined effect.
  const notify = ((await service.getState("beta/eu")) as { io: { notify: Status } }).io.notify;
  assert.deepEqual([notify.phase, notify.error], ["blocked", "effect_approval_required"]);
  await service.approveEffect("beta/eu", "notify");
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 1, "sent once approved");
  await service.close();
});
