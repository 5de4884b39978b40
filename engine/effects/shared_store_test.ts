import assert from "node:assert/strict";
import type { Json } from "../json/value.ts";
import type { AuditRecord } from "../audit/chain.ts";
import { conflict, unavailable as storeUnavailable } from "../errors.ts";
import {
  type CommitStates,
  type LogEntry,
  type ModelRefresh,
  StaleModelError,
  type StoreChange,
  type StoreCoordination,
} from "../service/ports.ts";
import type { EffectJob, JobChanges } from "./job.ts";
import { effectService, keptForRetry, ReloadableStore, ScriptedExecutor, settled } from "./test_support.ts";

/**
 * A store shared with another process, as far as one model's outbox goes:
 * the outbox kept as PostgreSQL keeps it (an `updateJobs` changes only jobs
 * still there and moves no revision, so the service's copy is not renewed),
 * and what the other process does played by the test on `outbox`.
 */
class SharedOutboxStore extends ReloadableStore {
  /** While set, the other process holds every job. */
  heldElsewhere = false;
  #listener: (change: StoreChange) => void = () => {};

  readonly coordination: StoreCoordination = {
    refresh: async (): Promise<ModelRefresh> => {
      if (this.elsewhere === "replaced") return { kind: "replaced", model: (await this.load())[0] };
      return this.elsewhere
        ? { kind: "commits", entries: [], jobs: structuredClone([...this.outbox.values()]), auditHead: null }
        : { kind: "current" };
    },
    watch: (listener) => {
      this.#listener = listener;
      return Promise.resolve(() => {});
    },
    claim: (job) => {
      if (this.claimsRefused > 0 && this.claimsRefused--) {
        return Promise.reject(storeUnavailable("store down"));
      }
      const stored = this.heldElsewhere ? null : structuredClone(this.outbox.get(job.id) ?? null);
      if (this.settledAfterClaim) this.outbox.delete(job.id);
      return Promise.resolve(stored);
    },
  };

  /**
   * While set, the other process settles each job right after this one claims it
   * (it had run it, frozen past its lease): the removal moves no revision.
   */
  settledAfterClaim = false;

  /**
   * Store refusals left (an outage): each settlement commit, each commit keeping a retry with its status and
   * each outbox update fails while any remain.
   */
  outage = 0;
  /** Commits left that find the model changed by the other process (its change already seen: nothing new). */
  stale = 0;
  /** Claims refused (an outage) left. */
  claimsRefused = 0;
  /**
   * What a refresh reports the other process did: a commit (the outbox as stored with it), or an evolution or
   * a restore (the model as stored, to load anew); nothing while null.
   */
  elsewhere: "commits" | "replaced" | null = null;

  override commit(
    modelId: string,
    entry: LogEntry,
    states: CommitStates,
    audit: AuditRecord | null,
    jobs?: JobChanges,
  ): Promise<void> {
    if (this.stale > 0 && this.stale--) return Promise.reject(new StaleModelError(modelId));
    if ((jobs?.remove?.length || jobs?.update?.some(keptForRetry)) && this.outage > 0) return this.#refuse();
    return super.commit(modelId, entry, states, audit, jobs);
  }

  override updateJobs(modelId: string, jobs: JobChanges): Promise<void> {
    return this.outage > 0 ? this.#refuse() : super.updateJobs(modelId, jobs);
  }

  #refuse(): Promise<never> {
    this.outage--;
    return Promise.reject(storeUnavailable("store unavailable"));
  }

  /** The other process changed the model. */
  changed(modelId: string): void {
    this.#listener({ type: "model", modelId });
  }

  /** The other process died holding these jobs: they are handed to this one. */
  handOver(jobs: EffectJob[]): void {
    this.heldElsewhere = false;
    this.#listener({ type: "jobs", jobs: structuredClone(jobs) });
  }
}

const SPEC = {
  id: "quote",
  schema: { type: "object", properties: { region: { type: "string" }, io: { type: "object" } } },
  effects: [{
    id: "fetch",
    executor: "server",
    trigger: "region != null",
    dedupeKey: "region",
    request: { method: "get", url: "https://rates.example/{ region }" },
    statusPath: "$.io.fetch",
    policy: { retries: 2, backoff: 100 },
  }],
};

const unavailable = { ok: false as const, error: "http 503", retryable: true };

async function fetchPhase(service: { getState(id: string): Promise<Json> }): Promise<Json> {
  return ((await service.getState("quote")) as { io: { fetch: { phase: Json } } }).io.fetch.phase;
}

/** The service over a shared outbox, its model's effect fired and held by the other process. */
async function firedElsewhere(http: ScriptedExecutor) {
  const store = new SharedOutboxStore();
  store.heldElsewhere = true;
  const { service, scheduler } = await effectService([http], { store });
  await service.createModel(SPEC);
  await service.mutate("quote", { "$.region": "eu" });
  await scheduler.advance(0);
  assert.equal(http.jobs.length, 0, "the other process runs it");
  const [fired] = store.outbox.values();
  return { store, service, scheduler, fired };
}

Deno.test("a job handed over continues from the attempts the other process counted", async () => {
  const http = new ScriptedExecutor().answer(unavailable);
  const { store, service, scheduler, fired } = await firedElsewhere(http);
  // The other process made two attempts, then died: the store's copy says so, this service's does not.
  const counted = { ...fired, attempt: 2, dueAt: scheduler.clock.now() };
  store.outbox.set(fired.id, counted);
  store.handOver([counted]);
  await settled();
  await scheduler.advance(0);
  assert.deepEqual(http.jobs.map((j) => j.attempt), [3]);
  await scheduler.advance(10_000);
  assert.equal(http.jobs.length, 1, "its retries were spent");
  assert.equal(await fetchPhase(service), "failed");
  assert.deepEqual([...store.outbox.keys()], []);
  await service.close();
});

Deno.test("a job's own timer runs the store's copy: its retry's due time, or not at all when settled elsewhere", async () => {
  const http = new ScriptedExecutor().answer(unavailable, unavailable, unavailable);
  const store = new SharedOutboxStore();
  const { service, scheduler } = await effectService([http], { store });
  await service.createModel(SPEC);
  await service.mutate("quote", { "$.region": "eu" });
  await scheduler.advance(0);
  assert.deepEqual(http.jobs.map((j) => j.attempt), [1], "its retry is due in 100 ms");
  // Meanwhile the other process took it over (this one was frozen past its lease), made the
  // second attempt and put the third off by 300 ms, then died.
  const [job] = store.outbox.values();
  store.outbox.set(job.id, { ...job, attempt: 2, dueAt: scheduler.clock.now() + 300 });
  await scheduler.advance(100);
  assert.equal(http.jobs.length, 1, "not before the store's due time");
  await scheduler.advance(200);
  assert.deepEqual(http.jobs.map((j) => j.attempt), [1, 3]);
  assert.equal(await fetchPhase(service), "failed", "the retries are spent");

  // Settled elsewhere while this process waited to retry it: it does not run again.
  await service.mutate("quote", { "$.region": "us" });
  await scheduler.advance(0);
  assert.deepEqual(http.jobs.map((j) => j.attempt), [1, 3, 1], "its retry is due in 100 ms");
  store.outbox.clear();
  await scheduler.advance(10_000);
  assert.equal(http.jobs.length, 3);
  await service.close();
});

Deno.test("an attempt counted after another process settled the job does not bring it back", async () => {
  const http = new ScriptedExecutor();
  const store = new SharedOutboxStore();
  const { service, scheduler } = await effectService([http], { store });
  await service.createModel(SPEC);
  store.settledAfterClaim = true;
  http.hold();
  await service.mutate("quote", { "$.region": "eu" });
  await scheduler.advance(0);
  assert.deepEqual(http.jobs.map((j) => j.attempt), [1], "claimed before the other process settled it");
  // Were it written back with the attempt's in_flight commit, it would be handed over and run again.
  assert.deepEqual([...store.outbox.keys()], [], "the outbox keeps it settled");
  http.release();
  await scheduler.advance(0);
  assert.deepEqual([...store.outbox.keys()], []);
  await service.close();
});

Deno.test("an attempt counted without a status path does not bring back (nor send) a job settled elsewhere", async () => {
  const http = new ScriptedExecutor();
  const store = new SharedOutboxStore();
  const { service, scheduler } = await effectService([http], { store });
  await service.createModel({ ...SPEC, effects: [{ ...SPEC.effects[0], statusPath: undefined }] });
  store.settledAfterClaim = true;
  http.hold();
  await service.mutate("quote", { "$.region": "eu" });
  await scheduler.advance(0);
  assert.deepEqual([...store.outbox.keys()], [], "counted on its own, it is not written back either");
  assert.deepEqual(http.jobs, [], "nor sent: claimed again after its count, it is found gone");
  http.release();
  await scheduler.advance(0);
  await service.close();
});

/** The service over a shared outbox, its model's effect answered while the store refuses to keep the answer. */
async function answeredInOutage() {
  const http = new ScriptedExecutor().answer({ ok: true, response: null, status: 200 });
  const store = new SharedOutboxStore();
  const { service, scheduler } = await effectService([http], { store });
  await service.createModel(SPEC);
  store.outage = 2;
  await service.mutate("quote", { "$.region": "eu" });
  await scheduler.advance(0);
  assert.equal(store.outage, 0, "its settlement and its retry refused");
  const [stored] = store.outbox.values();
  assert.deepEqual([http.jobs.length, stored.attempt, stored.outcome], [1, 1, undefined]);
  return { http, store, service, scheduler };
}

Deno.test("an outcome the store refused to keep wins over the claim's copy of the same attempt: not sent again", async () => {
  const { http, store, service, scheduler } = await answeredInOutage();
  await scheduler.advance(10_000);
  assert.equal(await fetchPhase(service), "applied");
  assert.deepEqual([http.jobs.length, store.outbox.size], [1, 0]);
  await service.close();
});

Deno.test("an outcome the store refused to keep survives replaying another process's commit", async () => {
  const { http, store, service, scheduler } = await answeredInOutage();
  store.elsewhere = "commits";
  store.changed("quote");
  await settled();
  await scheduler.advance(10_000);
  assert.equal(await fetchPhase(service), "applied");
  assert.deepEqual([http.jobs.length, store.outbox.size], [1, 0]);
  await service.close();
});

Deno.test("an outcome kept in memory loses to the store's copy of a later attempt", async () => {
  const { http, store, service, scheduler } = await answeredInOutage();
  // Meanwhile the other process took the job over (this one was frozen past its lease) and counted an attempt.
  const [job] = store.outbox.values();
  store.outbox.set(job.id, { ...job, attempt: 2 });
  await scheduler.advance(10_000);
  assert.deepEqual(http.jobs.map((j) => j.attempt), [1, 3], "the store's attempt count runs on");
  assert.equal(store.outbox.size, 0);
  await service.close();
});

Deno.test("an outcome the store refused to keep survives loading anew the model another process evolved", async () => {
  const { http, store, service, scheduler } = await answeredInOutage();
  store.elsewhere = "replaced";
  store.changed("quote");
  await settled();
  await scheduler.advance(10_000);
  assert.equal(await fetchPhase(service), "applied");
  assert.deepEqual([http.jobs.length, store.outbox.size], [1, 0], "not sent again");
  await service.close();
});

/** A service over a shared outbox store with model `quote` created, its warnings kept. */
async function watchedService(spec: object = SPEC) {
  const http = new ScriptedExecutor();
  const warnings: string[] = [];
  const store = new SharedOutboxStore();
  const { service, scheduler } = await effectService([http], {
    store,
    observer: { warn: (message) => warnings.push(message) },
  });
  await service.createModel(spec);
  return { http, warnings, store, service, scheduler };
}

Deno.test("a claim the store fails to answer (an outage) puts the attempt off, the job still scheduled", async () => {
  const { http, warnings, store, service, scheduler } = await watchedService();
  store.claimsRefused = 2;
  await service.mutate("quote", { "$.region": "eu" });
  await scheduler.advance(0);
  assert.match(warnings.join("\n"), /job 'fetch@.*'\): attempt put off \(store down\)$/);
  assert.equal(http.jobs.length, 0);
  for (let waited = 0; store.claimsRefused && waited < 60; waited++) {
    assert.equal(scheduler.pending, 1, `its attempt scheduled after ${waited} s`);
    await scheduler.advance(1000);
  }
  await scheduler.advance(10_000);
  assert.equal(await fetchPhase(service), "applied");
  assert.deepEqual(
    [http.jobs.length, store.outbox.size, warnings.length],
    [1, 0, 1],
    "logged once per outage",
  );
  await service.close();
});

Deno.test("an in_flight commit that finds the model stale is no outage: caught up, the attempt begun at once", async () => {
  const { http, warnings, store, service, scheduler } = await watchedService();
  await service.mutate("quote", { "$.region": "eu" });
  store.stale = 1;
  await scheduler.advance(0);
  assert.deepEqual([store.stale, http.jobs.length, warnings], [0, 1, []], "not put off");
  assert.equal(await fetchPhase(service), "applied");
  await service.close();
});

Deno.test("an attempt other instances' writes keep finding stale (429) is put off, the job still scheduled", async () => {
  const { http, warnings, store, service, scheduler } = await watchedService();
  await service.mutate("quote", { "$.region": "eu" });
  store.stale = Infinity;
  await scheduler.advance(0);
  assert.match(
    warnings.join("\n"),
    /job 'fetch@.*'\): attempt put off \(Model 'quote' is being written by other instances faster .*\)$/,
  );
  assert.equal(http.jobs.length, 0, "not sent while its attempt is uncounted");
  assert.equal(scheduler.pending, 1, "its attempt scheduled again");
  store.stale = 0;
  await scheduler.advance(10_000);
  assert.equal(await fetchPhase(service), "applied");
  assert.deepEqual([http.jobs.map((j) => j.attempt), store.outbox.size], [[1], 0]);
  await service.close();
});

/** {@link SPEC} with its effect backing off from `backoff`. */
function backingOff(backoff: number | { initialMs: number; maxMs: number }) {
  return { ...SPEC, effects: [{ ...SPEC.effects[0], policy: { retries: 2, backoff } }] };
}

/**
 * A service whose model's effect backs off from `backoff`; the times of the claims beginning an attempt kept,
 * each failing with `failures`' next; those holding a put-off job until it is due kept apart.
 */
async function failingClaims(backoff: number | { initialMs: number; maxMs: number }, failures: Error[]) {
  const watched = await watchedService(backingOff(backoff));
  const { store, scheduler } = watched;
  const claimedAt: number[] = [];
  const heldUntil: number[] = [];
  const claim = store.coordination.claim;
  store.coordination.claim = (job, holdMs) => {
    const now = scheduler.clock.now();
    if (job.dueAt > now) {
      // As StoreCoordination.claim holds it: until `holdMs` after it is due as stored.
      heldUntil.push(Math.max(store.outbox.get(job.id)?.dueAt ?? 0, now) + holdMs);
      return claim(job, holdMs);
    }
    claimedAt.push(now);
    const failure = failures.shift();
    return failure ? Promise.reject(failure) : claim(job, holdMs);
  };
  await watched.service.mutate("quote", { "$.region": "eu" });
  return { ...watched, claimedAt, heldUntil };
}

const outage = () => storeUnavailable("store down");

/** After the re-arming under test, a job put off for 5 s is begun when (not before) its wait ends, then applied. */
async function beginsWhenPutOffEnds(claims: Awaited<ReturnType<typeof failingClaims>>): Promise<void> {
  const { http, service, scheduler, claimedAt } = claims;
  await settled();
  await scheduler.advance(4999);
  assert.deepEqual([claimedAt.length, http.jobs.length], [1, 0], "not begun before its put-off ends");
  await scheduler.advance(1);
  assert.deepEqual([claimedAt.length, http.jobs.length], [2, 1], "begun when it ends");
  await scheduler.advance(1000);
  assert.equal(await fetchPhase(service), "applied");
  await service.close();
}
for (
  const [what, failures] of [
    ["an outage", () => Array.from({ length: 6 }, outage)],
    [
      "a store outage and an unexpected error alternating",
      () => [0, 1, 2].flatMap(() => [outage(), conflict("bug")]),
    ],
  ] as const
) {
  Deno.test(`attempts put off in a row (${what}) wait longer each time, up to the longest backoff; one count`, async () => {
    const { http, warnings, service, scheduler, claimedAt } = await failingClaims(
      { initialMs: 100, maxMs: 1000 },
      failures(),
    );
    await scheduler.advance(60_000);
    const waits = claimedAt.slice(1).map((at, i) => at - claimedAt[i]);
    assert.deepEqual(
      waits,
      [100, 200, 400, 800, 1000, 1000],
      "doubling up to the policy's maxMs, whatever failed",
    );
    assert.deepEqual(
      warnings.map((w) => w.replace(/.*: /, "")),
      ["attempt put off (store down)"],
      "once per outage",
    );
    assert.equal(await fetchPhase(service), "applied");
    assert.deepEqual(http.jobs.map((j) => j.attempt), [1], "the put-offs are no attempts");
    await service.close();
  });
}

Deno.test("a put-off is claimed until it ends, so another process sharing the store does not take the job before", async () => {
  const { http, warnings, service, scheduler, claimedAt, heldUntil } = await failingClaims(5000, [
    conflict("bug"),
  ]);
  await scheduler.advance(0);
  assert.match(warnings.join("\n"), /attempt put off \(bug\)$/);
  assert.deepEqual(heldUntil, [claimedAt[0] + 5000], "held until its 5 s wait ends");
  await scheduler.advance(5000);
  assert.deepEqual([claimedAt.length, http.jobs.length], [2, 1], "begun when it ends");
  await service.close();
});

Deno.test("a retry the store fails to keep is claimed until it is due, so another process does not take it before", async () => {
  const { http, warnings, store, service, scheduler, claimedAt, heldUntil } = await failingClaims(5000, []);
  http.answer(unavailable);
  // The retry's commit with its status, then its outbox update alone.
  store.outage = 2;
  await scheduler.advance(0);
  assert.match(warnings.join("\n"), /retry not kept \(store unavailable\): kept in memory$/);
  assert.deepEqual(heldUntil, [claimedAt[0] + 5000], "held until its retry, 5 s later");
  await scheduler.advance(5000);
  assert.deepEqual(http.jobs.map((j) => j.attempt), [1, 2], "retried when due");
  assert.equal(await fetchPhase(service), "applied");
  await service.close();
});

Deno.test("a put-off whose claim finds the job held by another process leaves it to that one", async () => {
  const { http, warnings, store, service, scheduler, heldUntil } = await failingClaims(5000, [
    conflict("bug"),
  ]);
  store.heldElsewhere = true;
  await scheduler.advance(0);
  assert.deepEqual([heldUntil.length, scheduler.pending, warnings], [1, 0, []], "not armed again here");
  await scheduler.advance(60_000);
  assert.equal(http.jobs.length, 0);
  await service.close();
});

Deno.test("a job put off after an unexpected error keeps its wait when a notice re-arms it (the host's copy moved)", async () => {
  const claims = await failingClaims(5000, [conflict("bug")]);
  const { http, store, scheduler, claimedAt } = claims;
  await scheduler.advance(0);
  assert.deepEqual([claimedAt.length, http.jobs.length], [1, 0], "put off");
  // Another process hands the job over (a lease it let go): the service re-arms its own copy of the job.
  store.handOver([...store.outbox.values()]);
  await beginsWhenPutOffEnds(claims);
});

Deno.test("a settlement given up with its failure unrecorded keeps its wait when a notice re-arms it", async () => {
  const { http, warnings, store, service, scheduler } = await watchedService(
    backingOff({ initialMs: 100, maxMs: 2000 }),
  );
  store.outage = Infinity;
  await service.mutate("quote", { "$.region": "eu" });
  // Answered at once, its settlement failed 6 times (retried after 100, 200, 400, 800 and 1600 ms).
  await scheduler.advance(3100);
  assert.match(
    warnings.at(-1)!,
    /settlement failed 6 times .*, retry not kept \(store unavailable\): kept in memory$/,
  );
  const given = warnings.length;
  // Another process hands the job over (a lease it let go): the service re-arms its own copy of the job.
  store.handOver([...store.outbox.values()]);
  await settled();
  await scheduler.advance(1999);
  assert.equal(warnings.length, given, "not settled again before its 2 s wait ends");
  await scheduler.advance(1);
  assert.equal(warnings.length, given + 1, "settled again when it ends");
  store.outage = 0;
  await scheduler.advance(2000);
  assert.equal(await fetchPhase(service), "applied");
  assert.deepEqual([http.jobs.length, store.outbox.size], [1, 0], "sent once");
  await service.close();
});

for (const elsewhere of ["commits", "replaced"] as const) {
  Deno.test(`a put-off the store could not record survives catching up with another process (${elsewhere})`, async () => {
    const claims = await failingClaims(5000, [outage()]);
    const { http, store, scheduler, claimedAt } = claims;
    await scheduler.advance(0);
    assert.deepEqual([claimedAt.length, http.jobs.length], [1, 0], "put off, in memory only");
    // Another process changed the model (or evolved it): this one takes the store's copies of its jobs.
    store.elsewhere = elsewhere;
    store.changed("quote");
    await settled();
    store.handOver([...store.outbox.values()]);
    await beginsWhenPutOffEnds(claims);
  });
}

Deno.test("a put-off kept in memory loses to the store's copy of an attempt another process ran since", async () => {
  const { http, store, service, scheduler, claimedAt } = await failingClaims(5000, [outage()]);
  await scheduler.advance(0);
  // Meanwhile the other process took the job over, made its first attempt and put its retry off by 1 s.
  const [job] = store.outbox.values();
  const ran = { ...job, attempt: 1, dueAt: scheduler.clock.now() + 1000 };
  store.outbox.set(job.id, ran);
  store.elsewhere = "commits";
  store.changed("quote");
  await settled();
  store.handOver([ran]);
  await settled();
  await scheduler.advance(1000);
  assert.deepEqual([claimedAt.length, http.jobs.map((j) => j.attempt)], [2, [2]], "the store's due time");
  await scheduler.advance(1000);
  assert.equal(await fetchPhase(service), "applied");
  await service.close();
});
