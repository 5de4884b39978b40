/**
 * Fixtures of the persistence tests: a model spec exercising derivations (eager,
 * wildcard, lazy), meta derivations and constraints, a deterministic clock, and
 * services opened over `openStorage` in a temporary directory.
 *
 * @module
 */
import { commitBatches } from "../../engine/service/write_batch.ts";
import { engineConfig } from "../../engine/config.ts";
import type { Platform } from "../../engine/ports.ts";
import { webPlatform } from "../../engine/ports.ts";
import { ModelService, type ServiceOptions } from "../../engine/service/service.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import { openStorage, type Storage } from "../../server/stores/mod.ts";
import { decodeJson, encodeJson } from "../../server/stores/kv_values.ts";

/** An order model: items with line totals, a total, a lazy summary, a meta bound and two constraints. */
export function orderSpec(id = "orders"): ModelSpec {
  return {
    id,
    version: "1.0.0",
    schema: {
      type: "object",
      properties: {
        customer: { type: "string" },
        note: { type: "string" },
        discount: { type: "number" },
        items: {
          type: "array",
          items: {
            type: "object",
            properties: {
              name: { type: "string" },
              price: { type: "number", minimum: 0 },
              qty: { type: "integer", minimum: 0 },
              lineTotal: { type: "number", readOnly: true },
            },
          },
        },
        total: { type: "number", readOnly: true },
        summary: { type: "string", readOnly: true },
        attachment: { type: "object" },
      },
    },
    derivations: [
      { path: "$.items[*].lineTotal", expr: "$parent.price * $parent.qty" },
      { path: "$.total", expr: "$sum(items.lineTotal) - (discount ? discount : 0)" },
      { path: "$.summary", expr: "customer & ': ' & $string($count(items)) & ' items'", evaluation: "lazy" },
    ],
    metaDerivations: [{ path: "$.discount", property: "maximum", expr: "$sum(items.lineTotal)" }],
    constraints: [
      { id: "non-negative", expr: "total >= 0", message: "Total must not be negative", policy: "rollback" },
      { id: "big-order", expr: "total < 1000", message: "Large order", policy: "flag" },
    ],
  } as ModelSpec;
}

/** A clock that advances one second per reading, from a fixed instant. */
export function steppingPlatform(start = Date.parse("2030-01-01T00:00:00Z")): Platform {
  let now = start;
  return { clock: { now: () => (now += 1000) }, hasher: webPlatform().hasher };
}

/** Looks keys up in a plain record. */
export function lookupOf(keys: Record<string, string>): (key: string) => string | undefined {
  return (key) => keys[key];
}

/** A service over the storage `keys` select, with its storage and collected warnings. */
export interface OpenedService {
  service: ModelService;
  storage: Storage;
  warnings: string[];
}

/** Opens storage from `keys` and a service over it. */
export async function openService(
  keys: Record<string, string>,
  platform: Platform = steppingPlatform(),
  options: Pick<ServiceOptions, "auditSigner"> = {},
): Promise<OpenedService> {
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  const storage = await openStorage(lookupOf(keys), warn);
  const service = await ModelService.open({
    config: engineConfig(lookupOf(keys)),
    platform,
    store: storage.store,
    blobs: storage.blobs,
    observer: { warn },
    // As the server opens it: a model's queued writes committed together where the store can.
    writeBatcher: commitBatches,
    ...options,
  });
  return { service, storage, warnings };
}

/** Runs `body` with a fresh temporary directory, removed afterwards. */
export async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc-persistence-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Opens the raw KV database of a persistence directory (for tampering). */
export function openRawKv(dir: string): Promise<Deno.Kv> {
  return Deno.openKv(`${dir}/svc.kv`);
}

/** Every key under a prefix. */
export async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  return keys;
}

/** A commit-log entry of the KV layout: its key `["L", g, id, seq]` and its JSON value. */
export interface CommitEntry {
  key: Deno.KvKey;
  value: Record<string, unknown>;
}

/** The commit-log entries of model `id`, oldest first (entries this small are their bytes, one chunk). */
export async function commitEntries(kv: Deno.Kv, id: string): Promise<CommitEntry[]> {
  const entries: CommitEntry[] = [];
  for await (const entry of kv.list<Uint8Array>({ prefix: ["L"] })) {
    if (entry.key.length === 4 && entry.key[2] === id) {
      entries.push({ key: entry.key, value: decodeJson(entry.value) as Record<string, unknown> });
    }
  }
  return entries;
}

/** Stores a commit-log entry's value (one chunk). */
export async function putCommitEntry(kv: Deno.Kv, entry: CommitEntry): Promise<void> {
  await kv.set(entry.key, encodeJson(entry.value));
}

/** The keys an atomic operation sets and deletes, as its `commit` is called. */
export interface AtomicWrites {
  sets: Deno.KvKey[];
  deletes: Deno.KvKey[];
}

/**
 * Holds, in every Deno KV handle of this process, the atomic operations `holds`
 * picks (given what they write and how many were held before) until `release`;
 * `held` counts them; `restore` releases them and undoes the hold.
 */
export function holdAtomicOperations(holds: (writes: AtomicWrites, heldBefore: number) => boolean) {
  const gate = Promise.withResolvers<void>();
  const atomic = Deno.AtomicOperation.prototype;
  const { set, delete: remove, commit } = atomic;
  const writes = new WeakMap<Deno.AtomicOperation, AtomicWrites>();
  const of = (op: Deno.AtomicOperation) =>
    writes.get(op) ?? writes.set(op, { sets: [], deletes: [] }).get(op)!;
  const control = {
    held: 0,
    release: () => gate.resolve(),
    restore: () => {
      gate.resolve();
      Object.assign(atomic, { set, delete: remove, commit });
    },
  };
  atomic.set = function (this: Deno.AtomicOperation, key, value, options) {
    of(this).sets.push(key);
    return set.call(this, key, value, options);
  };
  atomic.delete = function (this: Deno.AtomicOperation, key) {
    of(this).deletes.push(key);
    return remove.call(this, key);
  };
  atomic.commit = async function (this: Deno.AtomicOperation) {
    if (holds(of(this), control.held)) {
      control.held++;
      await gate.promise;
    }
    return commit.call(this);
  };
  return control;
}

/** `work`, or a failure naming `what` when it takes more than five seconds. */
export function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within 5 s`)), 5000);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
