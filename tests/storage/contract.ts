/**
 * The storage contract: one suite every backend of the engine's storage ports
 * (`ModelStore`, `BlobStore`, engine/service/ports.ts) must pass. It uses the
 * ports and the engine only, no Deno or DOM API, so it runs in Deno (memory,
 * Deno KV) and bundled in Chromium (IndexedDB) alike.
 *
 * A backend is a {@link StorageBackend}: `fresh()` gives new, empty backing
 * data whose `open()` can be called again after `close` to see what survived.
 * Cases declare what they need (`durable`: models survive a reopen; `shared`:
 * several stores opened over the same data at once coordinate, as instances
 * of one service sharing a database do); to extend
 * the suite (another port, another part of one), add cases to
 * {@link STORAGE_CONTRACT} with the capability they need, and the capability
 * to the backends that have it.
 *
 * @module
 */
import type { EffectJob, JobChanges } from "../../engine/effects/job.ts";
import type { EffectWork } from "../../engine/runtime/results.ts";
import type { ServiceObserver } from "../../engine/service/service.ts";
import {
  type AuditRecord,
  type BlobStore,
  GENESIS_HASH,
  type Json,
  type LogEntry,
  ModelService,
  type ModelSpec,
  type ModelStore,
  type PersistedState,
  type Platform,
  type RecoveryRecord,
  sealRecord,
  type ServiceEvent,
  StaleModelError,
  type StoreChange,
  webPlatform,
} from "../../engine/mod.ts";

/** Opened stores of a backend. */
export interface OpenedStorage {
  store: ModelStore;
  blobs: BlobStore;
}

/** Backing data of one case. */
export interface StorageFixture {
  /**
   * Opens the stores over this fixture's data (again after both were closed;
   * for a `shared` backend, also while others are open). `jobLeaseMs`: how long a
   * job stays with the store that holds it, where the backend shares jobs.
   */
  open(options: { compactionThreshold: number; jobLeaseMs?: number }): Promise<OpenedStorage>;
  /** Removes the backing data. */
  dispose(): Promise<void>;
  /**
   * With the `tamper` capability: rewrites the request of model `modelId`'s
   * oldest stored log entry in the backing data (with the stores closed, or
   * open where the backend is `shared`), leaving its audit record as it is, as
   * whoever can write the store could.
   */
  alterLoggedRequest?(modelId: string, request: Json): Promise<void>;
}

/** Capabilities a case may need. */
export type Capability = "durable" | "shared" | "tamper";

/** A backend under test. */
export interface StorageBackend {
  name: string;
  /**
   * What it offers: `durable` when specs, states, logs and audit trails survive
   * a reopen; `shared` when stores opened over the same data at once coordinate;
   * `tamper` when its fixtures can alter a stored log entry (`alterLoggedRequest`).
   */
  capabilities: readonly Capability[];
  fresh(): Promise<StorageFixture>;
}

/** One contract case. */
export interface ContractCase {
  name: string;
  needs: readonly Capability[];
  run(fixture: StorageFixture): Promise<void>;
}

/** A failed expectation. */
export class ContractFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContractFailure";
  }
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value instanceof Uint8Array) return [...value];
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Deep equality of plain data (key order ignored), else a {@link ContractFailure}. */
export function same(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(sorted(actual));
  const e = JSON.stringify(sorted(expected));
  if (a !== e) throw new ContractFailure(`${what}: expected ${e}, got ${a}`);
}

const THRESHOLD = 3;

/** A clock advancing one second per reading, so timestamps are distinct and ordered. */
function steppingPlatform(): Platform {
  let now = Date.parse("2030-01-01T00:00:00Z");
  return { clock: { now: () => (now += 1000) }, hasher: webPlatform().hasher };
}

const SPEC: ModelSpec = {
  id: "contract/order",
  schema: {
    type: "object",
    properties: {
      qty: { type: "integer", minimum: 0 },
      price: { type: "number" },
      items: { type: "array", items: { type: "object", properties: { n: { type: "integer" } } } },
    },
  },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  constraints: [{ id: "cap", expr: "$not(total > 1000)", message: "total above 1000", policy: "rollback" }],
} as ModelSpec;

/** A model whose effect (no status document) is put off for a minute, tried within 100 ms. */
const PUT_OFF = {
  id: "contract/put-off",
  schema: { type: "object", properties: { go: { type: "boolean" } } },
  effects: [{
    id: "notify",
    executor: "server",
    trigger: "go = true",
    request: { url: "https://api.example/notify" },
    policy: { timeoutMs: 100, backoff: 60_000 },
  }],
} as ModelSpec;

/** As an earlier version stored it: its checks let `1.0` through as a version; this one's refuse it. */
const UNLOADABLE = { ...SPEC, id: "contract/old", version: "1.0" } as ModelSpec;

const STATE: PersistedState = { doc: { qty: 1 }, meta: [["$.qty#maximum", 9]], stale: ["$.lazy"] };

async function records(modelId: string, count: number, logged: LogEntry[] = []): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  for (let sequence = 0; sequence < count; sequence++) {
    const write = logged[sequence];
    out.push(
      await sealRecord(
        {
          modelId,
          sequence,
          timestamp: new Date(write?.at ?? Date.UTC(2030, 0, 1, 0, 0, sequence)).toISOString(),
          modelVersion: "1.0.0",
          source: write?.source ?? "client",
          mutations: write?.request ?? { [`$.f${sequence}`]: sequence },
          derivedUpdated: [],
          flaggedConstraints: [],
          dispatchedEffects: [],
          traces: [],
        },
        out.at(-1)?.hash ?? GENESIS_HASH,
        webPlatform().hasher,
      ),
    );
  }
  return out;
}

/** Commit states for a raw store commit: no compaction point of interest. */
function statesOf(state: PersistedState, following: number) {
  return { current: () => state, checkpoint: () => ({ at: null, following, state: () => state }) };
}

const entry = (at: number, request: Json): LogEntry => ({ at, source: "client", request });

/** A state kept for recovery. */
const RECOVERY: RecoveryRecord = {
  modelId: SPEC.id,
  detectedAt: "2030-01-01T00:00:00.000Z",
  reason: "log entry 3 is missing",
  spec: SPEC,
  base: STATE,
  baseAt: null,
  log: [entry(1, { "$.qty": 2 })],
};

async function withStorage<T>(
  fixture: StorageFixture,
  run: (storage: OpenedStorage) => Promise<T>,
  compactionThreshold = THRESHOLD,
): Promise<T> {
  const storage = await fixture.open({ compactionThreshold });
  try {
    return await run(storage);
  } finally {
    await storage.store.close();
    await storage.blobs.close();
  }
}

async function withService<T>(
  fixture: StorageFixture,
  run: (service: ModelService) => Promise<T>,
): Promise<T> {
  return await withStorage(fixture, async ({ store, blobs }) => {
    const service = await ModelService.open({ store, blobs, platform: steppingPlatform() });
    return await run(service);
  });
}

/** A service over `store` whose `server` executor answers every job at once and records it in `sent`. */
async function recordingService(store: ModelStore, blobs: BlobStore, observer?: ServiceObserver) {
  const sent: EffectJob[] = [];
  const service = await ModelService.open({
    store,
    blobs,
    platform: webPlatform(),
    executors: [{
      kind: "server",
      execute: (job) => (sent.push(job), Promise.resolve({ ok: true, response: null, status: 200 })),
    }],
    observer,
  });
  return { service, sent };
}

/** Resolves once `check` holds (polled), else fails naming `what` after 5 s. */
async function eventually(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new ContractFailure(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The error kind `promise` rejects with, or `accepted`. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  return await promise.then(() => "accepted", (err) => String(err?.kind ?? err));
}

/** Fails unless `promise` rejects with a {@link StaleModelError}. */
export async function refusedAsStale(promise: Promise<unknown>, what: string): Promise<void> {
  const outcome = await promise.then(
    () => "accepted",
    (err) => err instanceof StaleModelError ? "stale" : `${err}`,
  );
  same(outcome, "stale", what);
}

/** Two stores over one fixture's data at once, as two instances. */
async function withTwo<T>(
  fixture: StorageFixture,
  run: (a: OpenedStorage, b: OpenedStorage) => Promise<T>,
  jobLeaseMs?: number,
): Promise<T> {
  const a = await fixture.open({ compactionThreshold: THRESHOLD, jobLeaseMs });
  const b = await fixture.open({ compactionThreshold: THRESHOLD, jobLeaseMs });
  try {
    return await run(a, b);
  } finally {
    for (const { store, blobs } of [a, b]) {
      await store.close();
      await blobs.close();
    }
  }
}

/**
 * A service paused past its lease as it counts an attempt, the job taken through another store meanwhile:
 * with its in_flight phase (`phase`: the commit refused as stale, its start run again, whose claim fails) or
 * alone (no status document: the count dropped, the claim after it fails); either way the request is not sent.
 */
function pausedBeforeCounting(phase: boolean): ContractCase {
  const write = phase ? "commit" : "updateJobs";
  return {
    name: `shared: a service paused past its lease before counting an attempt (${
      phase ? "its in_flight phase" : "no status document"
    }), the job taken through another store meanwhile, does not send it`,
    needs: ["shared"],
    async run(fixture) {
      const spec = {
        id: "contract/late",
        schema: { type: "object", properties: { go: { type: "boolean" } } },
        effects: [{
          id: "fx",
          trigger: "go",
          request: { url: "https://api.example/x" },
          ...phase && { statusPath: "$.io" },
          policy: { timeoutMs: 100 },
        }],
      } as ModelSpec;
      await withTwo(fixture, async (a, b) => {
        let paused = false;
        /** The job whose count paused, and this store's claims of it since. */
        let pausedJob = "";
        const claimsAfter: (EffectJob | null)[] = [];
        const shared = a.store.coordination!;
        const store = new Proxy(a.store, {
          get(target, key) {
            // The write counting the attempt waits until the other store takes the job.
            if (key === write) {
              return async (...args: unknown[]) => {
                const [counted] = (args[phase ? 4 : 1] as JobChanges | undefined)?.update ?? [];
                if (counted?.attempt && !paused) {
                  paused = true;
                  pausedJob = counted.id;
                  await b.store.load();
                  await eventually(
                    async () => !!await b.store.coordination!.claim(counted, 0),
                    "the job taken",
                  );
                }
                return await (target[write] as (...args: unknown[]) => Promise<void>)(...args);
              };
            }
            // Not watching (its poller would take nothing: the other store holds the job).
            if (key === "coordination") {
              return {
                refresh: shared.refresh.bind(shared),
                claim: async (job: EffectJob, holdMs: number) => {
                  const claimed = await shared.claim(job, holdMs);
                  if (paused && job.id === pausedJob) claimsAfter.push(claimed);
                  return claimed;
                },
                watch: () => Promise.resolve(() => {}),
              };
            }
            const value = Reflect.get(target, key);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        const { service, sent } = await recordingService(store, a.blobs);
        await service.createModel(spec);
        await service.mutate(spec.id, { "$.go": true });
        // Claimed again after the write, which fails (without that, the request is sent).
        await eventually(() => claimsAfter.length + sent.length > 0, "claimed again or sent");
        // One more turn of the model's queue, after which an attempt begun would have been sent. Without a status
        // document the write fires the effect anew: that job's claims and attempt are its own, not looked at.
        await service.mutate(spec.id, { "$.go": true });
        const job = (await b.store.load()).find((m) => m.spec.id === spec.id)?.jobs?.find((j) =>
          j.id === pausedJob
        );
        same(
          [claimsAfter, sent.filter((j) => j.id === pausedJob), job?.attempt],
          [[null], [], 0],
          "not claimed, not sent, no attempt counted",
        );
        const state = await service.getState(spec.id) as { io?: { phase: string } };
        same(state.io?.phase, phase ? "pending" : undefined, "its status document still pending");
        await service.close();
      }, 200);
    },
  };
}

/** Every case of the contract. */
export const STORAGE_CONTRACT: readonly ContractCase[] = [
  {
    name: "blobs are content-addressed: put once, read, list, size, delete",
    needs: [],
    async run(fixture) {
      await withStorage(fixture, async ({ blobs }) => {
        same(blobs.enumerable, true, "enumerable");
        await blobs.put("a", { bytes: new Uint8Array([1, 2, 3]), mediaType: "text/plain" });
        await blobs.put("a", { bytes: new Uint8Array([1, 2, 3]), mediaType: "text/plain" });
        await blobs.put("b", { bytes: new Uint8Array(5), mediaType: "application/octet-stream" });
        same(await blobs.has("a"), true, "has a");
        same(await blobs.has("zz"), false, "has zz");
        same(await blobs.get("a"), { bytes: new Uint8Array([1, 2, 3]), mediaType: "text/plain" }, "get a");
        same(await blobs.get("zz"), null, "get zz");
        same((await blobs.list()).sort((x, y) => x.blobId.localeCompare(y.blobId)), [
          { blobId: "a", bytes: 3 },
          { blobId: "b", bytes: 5 },
        ], "list");
        same(await blobs.totalBytes(), 8, "total");
        await blobs.delete("a");
        await blobs.delete("missing");
        same(await blobs.get("a"), null, "deleted a");
        same(await blobs.totalBytes(), 5, "total after delete");
      });
    },
  },
  {
    name:
      "audit trails: newest first with limit, a sequence cursor, prefix and time window; all in sequence order",
    needs: [],
    async run(fixture) {
      const trail = await records("m", 4);
      const other = await records("other", 1);
      await withStorage(fixture, async ({ store }) => {
        await store.save({ ...SPEC, id: "m" }, STATE, { created: true });
        await store.save({ ...SPEC, id: "other" }, STATE, { created: true });
        for (const [i, record] of trail.entries()) {
          await store.commit("m", entry(i, { [`$.f${i}`]: i }), statesOf(STATE, i + 1), record);
        }
        await store.commit("other", entry(0, {}), statesOf(STATE, 1), other[0]);
        same((await store.lastAudit("m"))?.sequence, 3, "last");
        same((await store.allAudit("m")).map((r) => r.sequence), [0, 1, 2, 3], "all");
        same((await store.listAudit("m", { limit: 2 })).map((r) => r.sequence), [3, 2], "limit");
        same((await store.listAudit("m", { limit: 10, before: 2 })).map((r) => r.sequence), [1, 0], "before");
        same(
          (await store.listAudit("m", { limit: 10, pathPrefix: "$.f1" })).map((r) => r.sequence),
          [1],
          "prefix",
        );
        const from = Date.parse(trail[1].timestamp);
        const to = Date.parse(trail[3].timestamp);
        same((await store.listAudit("m", { limit: 10, from, to })).map((r) => r.sequence), [2, 1], "window");
        same((await store.allAudit("m"))[2], trail[2], "record kept verbatim");
        // A deleted model's trail may be swept in the background; a model created again starts clean.
        await store.delete("m");
        await store.save({ ...SPEC, id: "m" }, STATE, { created: true });
        same(await store.allAudit("m"), [], "trail of the model created again");
        same(await store.lastAudit("m"), null, "last of the model created again");
        same((await store.allAudit("other")).length, 1, "other model untouched");
      });
    },
  },
  {
    name: "a model created under an id whose model was not deleted first starts with an empty audit trail",
    needs: [],
    async run(fixture) {
      const [record] = await records(SPEC.id, 1);
      await withStorage(fixture, async ({ store }) => {
        await store.save(SPEC, STATE, { created: true });
        await store.commit(SPEC.id, entry(1, { "$.qty": 2 }), statesOf(STATE, 1), record);
        // Created again over it (a replacement's creation, another process's): no record of the old one stays.
        await store.save(SPEC, STATE, { created: true });
        same(await store.allAudit(SPEC.id), [], "trail of the model created again");
        same(await store.lastAudit(SPEC.id), null, "last of the model created again");
        same(await store.listAudit(SPEC.id, { limit: 10 }), [], "records of the model created again");
      });
    },
  },
  {
    name: "a saved spec and state load back; a created model drops what its id held before",
    needs: ["durable"],
    async run(fixture) {
      const [record] = await records(SPEC.id, 1);
      await withStorage(fixture, async ({ store }) => {
        await store.save(SPEC, STATE, { created: true });
        await store.commit(SPEC.id, entry(1, { "$.qty": 2 }), statesOf(STATE, 1), record);
      });
      await withStorage(fixture, async ({ store }) => {
        const [loaded, ...rest] = await store.load();
        same(rest.length, 0, "one model");
        same(loaded.spec, SPEC, "spec");
        same(loaded.base, STATE, "base");
        same(loaded.log, [entry(1, { "$.qty": 2 })], "log");
        same((await store.lastAudit(SPEC.id))?.hash, record.hash, "audit");
        await store.save(SPEC, { ...STATE, doc: { qty: 7 } }, { created: true });
      });
      await withStorage(fixture, async ({ store }) => {
        const [loaded] = await store.load();
        same(loaded.base?.doc, { qty: 7 }, "recreated state");
        same(loaded.log, [], "recreated log");
        same(await store.allAudit(SPEC.id), [], "recreated audit");
      });
    },
  },
  {
    name: "a save (evolve, restore) replaces the state and drops the log",
    needs: ["durable"],
    async run(fixture) {
      await withStorage(fixture, async ({ store }) => {
        await store.save(SPEC, STATE, { created: true });
        await store.commit(SPEC.id, entry(1, { "$.qty": 2 }), statesOf(STATE, 1), null);
        await store.save({ ...SPEC, version: "1.1.0" }, { doc: { qty: 2 }, meta: [], stale: [] });
      });
      await withStorage(fixture, async ({ store }) => {
        const [loaded] = await store.load();
        same(loaded.spec.version, "1.1.0", "version");
        same(loaded.base?.doc, { qty: 2 }, "state");
        same(loaded.log, [], "log");
      });
    },
  },
  {
    name: "the outbox: jobs fired with a commit load back, settle, update, and go with their model",
    needs: ["durable"],
    async run(fixture) {
      const [first, second] = [job(SPEC.id, "remind@1#1", 10), job(SPEC.id, "remind@2#2", 20)];
      await withStorage(fixture, async ({ store }) => {
        await store.save(SPEC, STATE, { created: true, jobs: { put: [first] } });
        await store.commit(SPEC.id, entry(1, { "$.qty": 2 }), statesOf(STATE, 1), null, { put: [second] });
        await store.updateJobs(SPEC.id, { update: [{ ...first, attempt: 1, dueAt: 15 }] });
      });
      await withStorage(fixture, async ({ store }) => {
        const [loaded] = await store.load();
        same(
          (loaded.jobs ?? []).sort((a, b) => a.id.localeCompare(b.id)),
          [{ ...first, attempt: 1, dueAt: 15 }, second],
          "jobs after a reopen",
        );
        await store.commit(SPEC.id, entry(2, { "$.qty": 3 }), statesOf(STATE, 2), null, {
          remove: [first.id],
        });
      });
      await withStorage(fixture, async ({ store }) => {
        same((await store.load())[0].jobs, [second], "a settled job is gone");
        await store.save(SPEC, STATE, { created: true });
      });
      await withStorage(fixture, async ({ store }) => {
        same((await store.load())[0].jobs ?? [], [], "a model created again has an empty outbox");
      });
    },
  },
  {
    name: "the outbox: an update changes a job still there (a failed settlement's outcome kept with it) " +
      "and never brings back one removed",
    needs: ["durable"],
    async run(fixture) {
      const due = job(SPEC.id, "remind@1#1", 10);
      // A retried settlement keeps the executor's outcome, so a restart settles it without sending it again.
      const outcome = { ok: true as const, response: { v: [1, "é", null] }, status: 200 };
      const counted = { ...due, attempt: 1, dueAt: 15, outcome, settleFailures: 1 };
      const again = { ...due, attempt: 2, dueAt: 20 };
      await withStorage(fixture, async ({ store }) => {
        await store.save(SPEC, STATE, { created: true, jobs: { put: [due] } });
        await store.commit(SPEC.id, entry(1, { "$.qty": 2 }), statesOf(STATE, 1), null, {
          update: [counted],
        });
      });
      await withStorage(fixture, async ({ store }) => {
        same((await store.load())[0].jobs, [counted], "an update of a job there");
        await store.updateJobs(SPEC.id, { remove: [due.id] });
        // Removed meanwhile (settled): neither a commit's update nor one on its own writes it back.
        await store.commit(SPEC.id, entry(2, { "$.qty": 3 }), statesOf(STATE, 2), null, { update: [again] });
        await store.updateJobs(SPEC.id, { update: [again] });
      });
      await withStorage(fixture, async ({ store }) => {
        same((await store.load())[0].jobs ?? [], [], "a removed job stays removed");
      });
    },
  },
  {
    name:
      "the outbox: a job whose work, kept outcome or settlement count is malformed is dropped when loaded, " +
      "like any unreadable job",
    needs: ["durable"],
    async run(fixture) {
      const due = job(SPEC.id, "remind@1#1", 10);
      const kept = { ok: false as const, error: "down", retryable: true };
      const good = [
        { ...due, id: "fine@1#1", outcome: kept, settleFailures: 2 },
        {
          ...due,
          id: "parts@1#2",
          outcome: {
            ok: true as const,
            response: null,
            status: 200,
            parts: [{ ok: false as const, error: "x" }],
          },
        },
        // Every kind of work, as a fired effect stores it.
        ...([
          {
            type: "http",
            requests: [{ method: "GET", url: "https://a.example/", headers: { a: "1" }, body: 2 }],
          },
          { type: "http", requests: [], fanOut: true },
          { type: "llm", prompt: "hi", responseSchema: null },
          { type: "link", ref: "other", path: "$.x", read: null, watch: false, body: { n: 1 } },
          { type: "link", ref: "other", path: null, read: "$.y", watch: true, body: null },
          { type: "plugin", definition: { id: "p" }, document: {} },
          { type: "invalid", error: "no request" },
        ] as EffectWork[]).map((work, i) => ({ ...due, id: `work@1#${i}`, work })),
      ];
      const bad: Record<string, unknown>[] = [
        { outcome: "applied" },
        { outcome: null },
        { outcome: { ok: "yes" } },
        { outcome: { ok: false, error: 5, retryable: true } },
        { outcome: { ok: false, error: "down" } },
        { outcome: { ok: true, response: 1, status: "200" } },
        { outcome: { ok: true, response: 1, status: 200, parts: [null] } },
        { outcome: { ok: true, response: 1, status: 200, parts: "all" } },
        { outcome: kept, settleFailures: -1 },
        { outcome: kept, settleFailures: 1.5 },
        { outcome: kept, settleFailures: "2" },
        { work: null },
        { work: [] },
        { work: { type: "email" } },
        { work: { type: "timer" } },
        { work: { type: "timer", fireAt: "10" } },
        { work: { type: "http" } },
        { work: { type: "http", requests: [null] } },
        { work: { type: "http", requests: [{ method: "GET", headers: {} }] } },
        { work: { type: "http", requests: [{ method: "GET", url: "https://a.example/", headers: null }] } },
        { work: { type: "http", requests: [], fanOut: "yes" } },
        { work: { type: "llm", responseSchema: null } },
        { work: { type: "llm", prompt: "hi" } },
        { work: { type: "link", path: null, read: "$.y", watch: true, body: null } },
        { work: { type: "link", ref: "other", path: 1, read: null, watch: false, body: null } },
        { work: { type: "link", ref: "other", path: null, read: "$.y", watch: "no", body: null } },
        { work: { type: "link", ref: "other", path: null, read: "$.y", watch: true } },
        { work: { type: "plugin", document: {} } },
        { work: { type: "invalid" } },
      ];
      const malformed = bad.map((fields, i) =>
        ({ ...due, id: `bad@1#${i}`, ...fields }) as unknown as EffectJob
      );
      await withStorage(fixture, async ({ store }) => {
        await store.save(SPEC, STATE, { created: true, jobs: { put: [...good, ...malformed] } });
      });
      await withStorage(fixture, async ({ store }) => {
        const [loaded] = await store.load();
        same((loaded.jobs ?? []).sort((a, b) => a.id.localeCompare(b.id)), good, "the well-formed jobs only");
      });
    },
  },
  {
    name:
      "recovery records: kept apart, listed, read back after a reopen, outlive their model, deleted per model",
    needs: ["durable"],
    async run(fixture) {
      await withStorage(fixture, async ({ store }) => {
        await store.save(SPEC, STATE, { created: true });
        await store.keepForRecovery(RECOVERY);
        await store.delete(SPEC.id);
      });
      await withStorage(fixture, async ({ store }) => {
        same(await store.listRecovery(), [{
          modelId: SPEC.id,
          detectedAt: RECOVERY.detectedAt,
          reason: RECOVERY.reason,
          logEntries: 1,
        }], "list");
        same(await store.getRecovery(SPEC.id), [RECOVERY], "records");
        same(await store.getRecovery("other"), [], "another model's");
        await store.keepForRecovery({
          ...RECOVERY,
          modelId: "other",
          detectedAt: "2030-01-02T00:00:00.000Z",
        });
        same(await store.deleteRecovery(SPEC.id), 1, "deleted");
        same(await store.deleteRecovery(SPEC.id), 0, "deleted again");
      });
      await withStorage(fixture, async ({ store }) => {
        same(await store.getRecovery(SPEC.id), [], "gone after a reopen");
        same((await store.listRecovery()).map((s) => s.modelId), ["other"], "another model's kept");
      });
    },
  },
  {
    name: "through the service: state, history, audit and blobs survive a reopen, compaction included",
    needs: ["durable"],
    async run(fixture) {
      const before = await withService(fixture, async (service) => {
        await service.createModel(SPEC);
        for (let qty = 1; qty <= 2 * THRESHOLD + 1; qty++) {
          await service.mutate(SPEC.id, { "$.qty": qty, "$.price": 2 });
        }
        await service.patch(SPEC.id, [{ op: "add", path: "/items", value: [{ n: 1 }] }]);
        await service.mutate(SPEC.id, { "$.qty": 1000 }).then(
          () => Promise.reject(new ContractFailure("a rollback must fail")),
          () => undefined,
        );
        const ref = await service.uploadBlob(new Uint8Array([9, 8, 7]), "image/png");
        return {
          state: await service.getState(SPEC.id),
          history: await service.getHistory(SPEC.id),
          audit: await service.getAudit(SPEC.id, { limit: 100 }),
          ref,
        };
      });
      await withService(fixture, async (service) => {
        same(await service.listModels(), [SPEC.id], "models");
        same(await service.getState(SPEC.id), before.state, "state");
        same(await service.getHistory(SPEC.id), before.history, "history");
        same(await service.getAudit(SPEC.id, { limit: 100 }), before.audit, "audit");
        same((await service.verifyAudit(SPEC.id)).valid, true, "audit chain verifies");
        same(await service.getBlob(before.ref.$blobId), {
          bytes: new Uint8Array([9, 8, 7]),
          mediaType: "image/png",
        }, "blob");
        const at = before.history[1];
        same(await service.getState(SPEC.id, at), { qty: 2, price: 2, total: 4 }, "point-in-time state");
        await service.mutate(SPEC.id, { "$.qty": 3 });
        await service.deleteModel(SPEC.id);
      });
      await withService(fixture, async (service) => {
        same(await service.listModels(), [], "deleted model stays deleted");
      });
    },
  },
  {
    name:
      "through the service: a log entry altered on its own is not replayed, and verify names its record " +
      "until the recovery records are deleted",
    needs: ["durable", "tamper"],
    async run(fixture) {
      await withService(fixture, async (service) => {
        await service.createModel(SPEC);
        await service.mutate(SPEC.id, { "$.qty": 1, "$.price": 2 });
        await service.mutate(SPEC.id, { "$.qty": 2 });
      });
      await fixture.alterLoggedRequest!(SPEC.id, { "$.qty": 400, "$.price": 2 });
      await withStorage(fixture, async ({ store, blobs }) => {
        const service = await ModelService.open({ store, blobs, platform: steppingPlatform() });
        same(await service.getState(SPEC.id), {}, "the state, reset: the altered entry is not replayed");
        const [kept] = await store.getRecovery(SPEC.id);
        same(
          kept.log.map((e) => e.request),
          [{ "$.qty": 400, "$.price": 2 }, { "$.qty": 2 }],
          "the log kept",
        );
        same(
          [kept.auditSequence, /its request disagrees with audit record 0 /.test(kept.reason)],
          [0, true],
          `the recovery record (${kept.reason})`,
        );
        const verdict = await service.verifyAudit(SPEC.id);
        same(
          [verdict.valid, verdict.firstBrokenSequence, verdict.detail.split(" (")[0]],
          [false, 0, "sequence 0: the stored log entry of this commit did not match it"],
          "verify",
        );
        same(await store.deleteRecovery(SPEC.id), 1, "recovery records deleted");
        same(await service.verifyAudit(SPEC.id), {
          valid: true,
          recordsChecked: 2,
          firstBrokenSequence: null,
          detail: "ok",
        }, "verify once they are deleted: the trail itself is intact");
      });
    },
  },
  {
    name: "through the service: a restored pending status document with no job re-fires its effect, " +
      "the job kept across a reopen",
    needs: ["durable"],
    async run(fixture) {
      const spec = {
        id: "contract/fx",
        schema: { type: "object", properties: { go: { type: "boolean" } } },
        effects: [{ id: "fx", trigger: "go", request: { url: "https://api.example/x" }, statusPath: "$.io" }],
      } as ModelSpec;
      const pending = { phase: "pending", key: null, at: "2029-01-01T00:00:00.000Z", error: null };
      await withService(fixture, async (service) => {
        await service.createModel(spec);
        // A snapshot taken while a job was outstanding; that job settled since (this model never fired it).
        await service.restore(spec.id, { baseDoc: { go: true, io: pending } });
      });
      await withStorage(fixture, async ({ store }) => {
        const [loaded] = await store.load();
        same(
          (loaded.jobs ?? []).map((j) => [j.effectId, j.statusAt === undefined]),
          [["fx", false]],
          "outbox",
        );
      });
    },
  },
  {
    name: "through the service: a stored model whose spec no longer validates is repaired by an evolution, " +
      "or discarded",
    needs: ["durable"],
    async run(fixture) {
      const id = UNLOADABLE.id;
      const doomed = "contract/doomed";
      // The records agree with the logged writes (a load replays a write only then).
      const logged = [entry(1, { "$.qty": 3 }), entry(2, { "$.qty": 4 })];
      const trail = await records(id, 2, logged);
      const stateAt = (qty: number) => ({ doc: { qty, price: 3, total: 3 * qty }, meta: [], stale: [] });
      await withStorage(fixture, async ({ store }) => {
        await store.save(UNLOADABLE, stateAt(2), { created: true });
        await store.save({ ...UNLOADABLE, id: doomed }, stateAt(2), { created: true });
        for (const [i, audit] of trail.entries()) {
          await store.commit(id, logged[i], statesOf(stateAt(3 + i), i + 1), audit);
        }
      });
      await withService(fixture, async (service) => {
        same(await service.listModels(), [], "neither loads");
        same(
          (await service.listUnloadedModels()).map((u) => [u.id, u.errors.map((f) => f.location)]),
          [[doomed, ["version"]], [id, ["version"]]],
          "both listed with their findings",
        );
        for (const read of [service.getInfo(id), service.getState(id), service.verifyAudit(id)]) {
          same(await refusal(read), "conflict", "a read of it");
        }
        same(
          await refusal(service.evolveSpec(id, { upsertConstants: { rate: 2 } })),
          "validation_failed",
          "a repair leaving the finding",
        );
        const heard: ServiceEvent[] = [];
        service.subscribe((event) => heard.push(event));
        await service.deleteModel(doomed);
        same(heard, [{ type: "deleted", modelId: doomed }], "its deletion heard, as a loaded model's is");
      });
      await withService(fixture, async (service) => {
        same(await service.getSpec(id), UNLOADABLE, "the failed repair changed nothing");
        same((await service.listUnloadedModels()).map((u) => u.id), [id], "the deleted one is gone");
        same(await service.evolveSpec(id, { newVersion: "1.1.0" }), { id, version: "1.1.0" }, "repaired");
        same(
          await service.getState(id),
          { qty: 4, price: 3, total: 12 },
          "its stored state, logged writes included",
        );
        await service.mutate(id, { "$.qty": 5 });
        same((await service.verifyAudit(id)).recordsChecked, 3, "the stored trail continues");
      });
      await withService(fixture, async (service) => {
        same(await service.listModels(), [id], "an ordinary model after a reopen");
        same(await service.listUnloadedModels(), [], "none unloaded");
        same((await service.getInfo(id)).version, "1.1.0", "version");
        same(await service.getState(id), { qty: 5, price: 3, total: 15 }, "state");
        same(await service.verifyAudit(id), {
          valid: true,
          recordsChecked: 3,
          firstBrokenSequence: null,
          detail: "ok",
        }, "audit chain");
        await service.createModel({ ...SPEC, id: doomed });
        same(await service.getAudit(doomed), [], "the deleted one's trail went with it");
      });
    },
  },
  {
    name: "shared: a write on a stale view is refused; refresh replays others' commits; watch reports them",
    needs: ["shared"],
    async run(fixture) {
      // Records as the service writes them, agreeing with their log entries (a store may compare them).
      const trail = await records(SPEC.id, 2, [entry(1, { "$.qty": 2 }), entry(2, { "$.qty": 3 })]);
      await withTwo(fixture, async (a, b) => {
        const coordination = b.store.coordination!;
        const changes: StoreChange[] = [];
        const unwatch = await coordination.watch((change) => changes.push(change));
        await a.store.save(SPEC, STATE, { created: true });
        await eventually(() => changes.length > 0, "the creation reported to the other store");
        same(changes[0], { type: "model", modelId: SPEC.id }, "change");
        same((await coordination.refresh(SPEC.id)).kind, "replaced", "an unknown model loads whole");
        await a.store.commit(SPEC.id, entry(1, { "$.qty": 2 }), statesOf(STATE, 1), trail[0]);
        await refusedAsStale(
          b.store.commit(SPEC.id, entry(2, { "$.qty": 3 }), statesOf(STATE, 1), trail[0]),
          "a commit on a stale view",
        );
        same(await b.store.allAudit(SPEC.id), [trail[0]], "the refused commit wrote nothing");
        same(await coordination.refresh(SPEC.id), {
          kind: "commits",
          entries: [entry(1, { "$.qty": 2 })],
          jobs: [],
          auditHead: { sequence: 0, hash: trail[0].hash },
        }, "refresh");
        same(await coordination.refresh(SPEC.id), { kind: "current" }, "nothing new");
        await b.store.commit(SPEC.id, entry(2, { "$.qty": 3 }), statesOf(STATE, 2), trail[1]);
        same((await a.store.coordination!.refresh(SPEC.id)).kind, "commits", "the first store catches up");
        await a.store.save({ ...SPEC, version: "1.1.0" }, STATE);
        const replaced = await coordination.refresh(SPEC.id);
        same(replaced.kind === "replaced" && replaced.model.spec.version, "1.1.0", "an evolution reloads");
        // A deletion is refused the same: what the other store deletes is the model as it last saw it.
        await a.store.save({ ...SPEC, version: "1.2.0" }, STATE);
        await refusedAsStale(b.store.delete(SPEC.id), "a deletion on a stale view");
        const other = { ...SPEC, id: "contract/other" };
        await a.store.save(other, STATE, { created: true });
        await refusedAsStale(b.store.save(other, STATE, { created: true }), "creating an id another created");
        await a.store.delete(SPEC.id);
        same(await coordination.refresh(SPEC.id), { kind: "deleted" }, "a deletion");
        unwatch();
      });
    },
  },
  {
    name:
      "shared: a refresh to another store's commit whose log entry was altered since reloads the model, " +
      "reporting it",
    needs: ["shared", "tamper"],
    async run(fixture) {
      const logged = entry(1, { "$.qty": 2 });
      const [record] = await records(SPEC.id, 1, [logged]);
      await withTwo(fixture, async (a, b) => {
        await a.store.save(SPEC, STATE, { created: true });
        same((await b.store.coordination!.refresh(SPEC.id)).kind, "replaced", "an unknown model loads whole");
        await a.store.commit(SPEC.id, logged, statesOf(STATE, 1), record);
        await fixture.alterLoggedRequest!(SPEC.id, { "$.qty": 9 });
        const refresh = await b.store.coordination!.refresh(SPEC.id);
        same(
          refresh.kind === "replaced" &&
            [
              refresh.model.auditSequence,
              /^log entry 0: its request disagrees with audit record 0 /.test(
                refresh.model.problem ?? "",
              ),
            ],
          [0, true],
          `the refresh (${JSON.stringify(refresh)})`,
        );
      });
    },
  },
  {
    name: "shared: two stores keeping states of one model for recovery at once keep both",
    needs: ["shared"],
    async run(fixture) {
      await withTwo(fixture, async (a, b) => {
        await Promise.all([
          a.store.keepForRecovery({ ...RECOVERY, reason: "seen by a" }),
          b.store.keepForRecovery({ ...RECOVERY, reason: "seen by b" }),
        ]);
        same(
          (await a.store.getRecovery(SPEC.id)).map((r) => r.reason).sort(),
          ["seen by a", "seen by b"],
          "both kept",
        );
      });
    },
  },
  {
    name: "shared: deleting recovery records while another store keeps one counts what it deleted",
    needs: ["shared"],
    async run(fixture) {
      await withTwo(fixture, async (a, b) => {
        await a.store.keepForRecovery(RECOVERY);
        const [deleted] = await Promise.all([
          b.store.deleteRecovery(SPEC.id),
          a.store.keepForRecovery({ ...RECOVERY, reason: "kept meanwhile" }),
        ]);
        same(deleted + (await a.store.getRecovery(SPEC.id)).length, 2, "deleted and left");
      });
    },
  },
  {
    name:
      "shared: a job runs in one store at a time, claimed as stored; one nobody runs any more is handed over",
    needs: ["shared"],
    async run(fixture) {
      const due = job(SPEC.id, "remind@1#1", Date.now());
      const counted = { ...due, attempt: 1 };
      await withTwo(fixture, async (a, b) => {
        await a.store.save(SPEC, STATE, { created: true, jobs: { put: [due] } });
        same(await b.store.coordination!.claim(due, 0), null, "held by the store whose commit fired it");
        same(await a.store.coordination!.claim(due, 0), due, "renewed by its holder");
        await a.store.updateJobs(SPEC.id, { update: [counted] });
      }, 600);
      // Its holder is gone: after the lease the job is handed to one other store.
      await withTwo(fixture, async (a, b) => {
        const handed: EffectJob[][] = [[], []];
        const stop = await Promise.all(
          [a, b].map((opened, i) =>
            opened.store.coordination!.watch((change) => {
              if (change.type === "jobs") handed[i].push(...change.jobs);
            })
          ),
        );
        await eventually(() => handed[0].length + handed[1].length > 0, "the job handed over");
        await new Promise((resolve) => setTimeout(resolve, 200));
        same([...handed[0], ...handed[1]], [counted], "handed over once, its attempt counted");
        const [holder, other] = handed[0].length ? [a, b] : [b, a];
        same(await other.store.coordination!.claim(due, 0), null, "not to the other");
        same(
          await holder.store.coordination!.claim(due, 0),
          counted,
          "the new holder runs it, from the store's copy rather than its own older one",
        );
        await holder.store.load();
        await holder.store.updateJobs(SPEC.id, { remove: [due.id] });
        same(await holder.store.coordination!.claim(due, 0), null, "gone once settled");
        stop.forEach((unwatch) => unwatch());
      }, 600);
    },
  },
  {
    name: "shared: a store whose lease ran out and another took writes the job no more: its late retry, " +
      "kept answer or put leave the holder's copy, a commit counting an attempt is refused as stale; " +
      "its settlement still removes it",
    needs: ["shared"],
    async run(fixture) {
      const due = job(SPEC.id, "remind@1#1", Date.now());
      await withTwo(fixture, async (a, b) => {
        await a.store.save(SPEC, STATE, { created: true, jobs: { put: [due] } });
        // Still its holder, its lease run out or not: its count is written.
        const mine = { ...due, attempt: 1 };
        await a.store.updateJobs(SPEC.id, { update: [mine] });
        await b.store.load();
        // Its attempt outlives the lease (a pause): the other store takes the job and counts an attempt.
        let taken: EffectJob | null = null;
        await eventually(
          async () => (taken = await b.store.coordination!.claim(due, 0)) !== null,
          "the lease run out",
        );
        same(taken, mine, "claimed as stored");
        const counted = { ...due, attempt: 2 };
        await b.store.updateJobs(SPEC.id, { update: [counted] });
        // The late store's retry keeping its answer (its settlement failed), a commit putting the job, and
        // one counting an attempt (its in_flight phase): refused, so its service runs the attempt's start
        // again, whose claim fails (the request is not sent behind the holder's back).
        const outcome = { ok: true as const, response: 1, status: 200 };
        const late = { ...mine, dueAt: due.dueAt + 60_000, outcome, settleFailures: 1 };
        await a.store.coordination!.refresh(SPEC.id);
        await a.store.updateJobs(SPEC.id, { update: [late] });
        await a.store.commit(SPEC.id, entry(1, { "$.qty": 2 }), statesOf(STATE, 1), null, { put: [late] });
        await refusedAsStale(
          a.store.commit(SPEC.id, entry(2, { "$.qty": 3 }), statesOf(STATE, 2), null, { update: [late] }),
          "a late count",
        );
        const [stored] = await b.store.load();
        same([stored.jobs, stored.log.length], [[counted], 1], "the holder's copy, the late answer dropped");
        same(await a.store.coordination!.claim(due, 0), null, "still held by the other store");
        same(await b.store.coordination!.claim(due, 0), counted, "renewed by its holder");
        // A settlement removes the job whoever holds it: the result folded back stands (the holder's own
        // settlement then finds the job gone).
        await a.store.commit(SPEC.id, entry(3, { "$.qty": 4 }), statesOf(STATE, 2), null, {
          remove: [due.id],
        });
        same((await b.store.load())[0].jobs ?? [], [], "settled by the late store");
      }, 200);
    },
  },
  pausedBeforeCounting(true),
  pausedBeforeCounting(false),
  {
    name: "shared: an attempt one service put off (its begin failed) is stored with its later due time, " +
      "not claimed through another store before its wait ends",
    needs: ["shared"],
    async run(fixture) {
      const leaseMs = 200;
      await withTwo(fixture, async (a, b) => {
        // Counting the attempt fails once, unexpectedly: the attempt is put off for its effect's backoff.
        let failures = 1;
        const shared = a.store.coordination!;
        const store = new Proxy(a.store, {
          get(target, key) {
            if (key === "updateJobs" && failures > 0 && failures--) {
              return () => Promise.reject(new Error("out of file handles"));
            }
            // Not watching, so its own poller does not take back a job whose lease ran out before the other
            // store's can (whichever polls first would): only the other store may take it.
            if (key === "coordination") {
              return {
                refresh: shared.refresh.bind(shared),
                claim: shared.claim.bind(shared),
                watch: () => Promise.resolve(() => {}),
              };
            }
            const value = Reflect.get(target, key);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
        const warnings: string[] = [];
        const { service, sent } = await recordingService(store, a.blobs, {
          warn: (message) => warnings.push(message),
        });
        const handed: EffectJob[] = [];
        const unwatch = await b.store.coordination!.watch((change) => {
          if (change.type === "jobs") handed.push(...change.jobs);
        });
        await service.createModel(PUT_OFF);
        const firedBefore = Date.now();
        await service.mutate(PUT_OFF.id, { "$.go": true });
        await eventually(
          () => warnings.some((w) => w.endsWith("attempt put off (out of file handles)")),
          "put off",
        );
        // The lease the attempt's claim took (its time limit and the lease time) has run out, and the other
        // store's poller has had its turns; the put-off's minute has not.
        await new Promise((resolve) => setTimeout(resolve, 100 + leaseMs + 500));
        const [job] = (await b.store.load()).find((m) => m.spec.id === PUT_OFF.id)?.jobs ?? [];
        same(job?.attempt, 0, "the job in the outbox, no attempt counted");
        same(job.dueAt >= firedBefore + 60_000, true, "stored with the put-off's due time");
        same(await b.store.coordination!.claim(job, 0), null, "not claimed through the other store");
        same([handed, sent], [[], []], "neither handed to the other store nor sent");
        unwatch();
        await service.close();
      }, leaseMs);
    },
  },
  {
    name: "shared: two services: writes through either join one audit chain, each hears the other's",
    needs: ["shared"],
    async run(fixture) {
      await withTwo(fixture, async (a, b) => {
        const [one, two] = await Promise.all(
          [a, b].map(({ store, blobs }) => ModelService.open({ store, blobs, platform: webPlatform() })),
        );
        const heard: ServiceEvent[] = [];
        two.subscribe((event) => heard.push(event));
        await one.createModel(SPEC);
        await eventually(async () => (await two.listModels()).includes(SPEC.id), "the model on the other");
        const writes = [];
        for (let qty = 1; qty <= 8; qty++) {
          writes.push((qty % 2 ? one : two).mutate(SPEC.id, { "$.qty": qty, "$.price": 1 }));
        }
        await Promise.all(writes);
        same((await one.verifyAudit(SPEC.id)).valid, true, "one valid chain");
        same((await one.getAudit(SPEC.id, { limit: 100 })).length, 8, "every write audited once");
        await eventually(
          async () =>
            JSON.stringify(await one.getState(SPEC.id)) === JSON.stringify(await two.getState(SPEC.id)),
          "both services at the same state",
        );
        same(heard.filter((e) => e.type === "mutation").length, 8, "the other service's writes heard too");
        await one.evolveSpec(SPEC.id, { upsertConstants: { rate: 2 } });
        await eventually(() => heard.some((e) => e.type === "spec-evolved"), "the evolution heard");
        await two.mutate(SPEC.id, { "$.qty": 9 });
        await one.deleteModel(SPEC.id);
        await eventually(async () => (await two.listModels()).length === 0, "the deletion heard");
        await one.close();
        await two.close();
      });
    },
  },
  {
    name: "shared: a write or any read through the other service right after a create finds the model",
    needs: ["shared"],
    async run(fixture) {
      await withTwo(fixture, async (a, b) => {
        const [one, two] = await Promise.all(
          [a, b].map(({ store, blobs }) => ModelService.open({ store, blobs, platform: webPlatform() })),
        );
        // No wait for the creation's notice, as behind a load balancer without sticky sessions.
        for (const id of ["contract/a", "contract/b", "contract/c"]) {
          await one.createModel({ ...SPEC, id });
          const written = await refusal(two.mutate(id, { "$.qty": 2, "$.price": 3 }));
          same(written, "accepted", `the write to ${id} through the other`);
        }
        await one.createModel({ ...SPEC, id: "contract/d" });
        same(await two.getState("contract/d"), {}, "a state read through the other");
        same(await refusal(two.mutate("contract/none", { "$.qty": 1 })), "not_found", "an unknown model");
        // Every other read of a model too (until the twentieth session these answered 404 until the notice came).
        const reads: Record<string, (id: string) => Promise<unknown>> = {
          info: (id) => two.getInfo(id),
          spec: (id) => two.getSpec(id),
          audit: (id) => two.getAudit(id),
          "audit verification": (id) => two.verifyAudit(id),
          history: (id) => two.getHistory(id),
          schema: (id) => two.getSchema(id, "$.qty"),
          explanation: (id) => two.explain(id, "$.total"),
          graph: (id) => two.getGraph(id),
          lineage: (id) => two.getLineage(id),
          verification: (id) => two.getVerification(id),
        };
        for (const [what, read] of Object.entries(reads)) {
          const id = `contract/${what.replace(" ", "-")}`;
          await one.createModel({ ...SPEC, id });
          same(await refusal(read(id)), "accepted", `a read of its ${what} through the other`);
        }
        same(await refusal(two.getInfo("contract/none")), "not_found", "an unknown model's info");
        await one.close();
        await two.close();
      });
    },
  },
  {
    name:
      "shared: a stored model that does not load, repaired or discarded through one service, is so in the other",
    needs: ["shared"],
    async run(fixture) {
      await withTwo(fixture, async (a, b) => {
        const doomed = { ...UNLOADABLE, id: "contract/doomed" };
        for (const spec of [UNLOADABLE, doomed]) await a.store.save(spec, STATE, { created: true });
        const [one, two] = await Promise.all(
          [a, b].map(({ store, blobs }) => ModelService.open({ store, blobs, platform: webPlatform() })),
        );
        same((await two.listUnloadedModels()).length, 2, "both unloaded in the other");
        const heard: ServiceEvent[][] = [[], []];
        [one, two].forEach((service, i) => service.subscribe((event) => heard[i].push(event)));
        await one.evolveSpec(UNLOADABLE.id, { newVersion: "1.1.0" });
        await one.deleteModel(doomed.id);
        await eventually(
          async () => (await two.listModels()).includes(UNLOADABLE.id),
          "the repair in the other",
        );
        same((await two.getInfo(UNLOADABLE.id)).version, "1.1.0", "the repaired version there");
        await eventually(
          async () => (await two.listUnloadedModels()).length === 0,
          "the deletion in the other",
        );
        // Each service's subscribers hear the repair as a creation and the discard as a deletion.
        const deleted = { type: "deleted", modelId: doomed.id };
        same(heard[0].filter((e) => e.type === "deleted"), [deleted], "the deletion heard where it was made");
        same(heard[1].filter((e) => e.type === "deleted"), [deleted], "the deletion heard in the other");
        same(
          heard[1].filter((e) => e.type === "created"),
          [{ type: "created", modelId: UNLOADABLE.id }],
          "the repair heard in the other",
        );
        await two.createModel({ ...SPEC, id: doomed.id });
        await one.close();
        await two.close();
      });
    },
  },
];

/** An outbox job of `modelId` (a timer due at `dueAt`). */
export function job(modelId: string, id: string, dueAt: number): EffectJob {
  return {
    id,
    modelId,
    effectId: id.split("@")[0],
    executor: "timer",
    key: null,
    work: { type: "timer", fireAt: dueAt },
    statusPath: null,
    firedAt: 0,
    dueAt,
    attempt: 0,
  };
}

/** The cases a backend runs, each on fresh backing data (disposed afterwards). */
export function contractCases(backend: StorageBackend): { name: string; run(): Promise<void> }[] {
  return STORAGE_CONTRACT.filter((c) => c.needs.every((n) => backend.capabilities.includes(n))).map((c) => ({
    name: `${backend.name} storage: ${c.name}`,
    async run() {
      const fixture = await backend.fresh();
      try {
        await c.run(fixture);
      } finally {
        await fixture.dispose();
      }
    },
  }));
}
