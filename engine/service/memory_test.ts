import assert from "node:assert/strict";
import type { AuditRecord } from "../audit/chain.ts";
import { MemoryAuditTrail, MemoryBlobStore, MemoryModelStore } from "./memory.ts";

const record = (modelId: string, sequence: number): AuditRecord => ({
  modelId,
  sequence,
  timestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, sequence)).toISOString(),
  modelVersion: "1.0.0",
  source: "client",
  mutations: { [`$.f${sequence}`]: sequence },
  derivedUpdated: [],
  flaggedConstraints: [],
  dispatchedEffects: [],
  traces: [],
  prevHash: "0".repeat(64),
  hash: String(sequence),
});

Deno.test("MemoryBlobStore tracks the total size and deduplicates by id", async () => {
  const store = new MemoryBlobStore();
  await store.put("a", { bytes: new Uint8Array(3), mediaType: "x" });
  await store.put("a", { bytes: new Uint8Array(3), mediaType: "x" });
  await store.put("b", { bytes: new Uint8Array(5), mediaType: "y" });
  assert.equal(await store.totalBytes(), 8);
  assert.deepEqual(await store.list(), [{ blobId: "a", bytes: 3 }, { blobId: "b", bytes: 5 }]);
  assert.equal(await store.has("a"), true);
  await store.delete("a");
  await store.delete("missing");
  assert.equal(await store.totalBytes(), 5);
  assert.equal(await store.get("a"), null);
  assert.equal(store.enumerable, true);
});

Deno.test("MemoryAuditTrail keeps records per model in sequence order; reads are newest first", () => {
  const trail = new MemoryAuditTrail();
  for (const s of [0, 1, 2]) trail.append(record("m", s));
  trail.append(record("other", 0));
  assert.deepEqual(trail.all("m").map((r) => r.sequence), [0, 1, 2]);
  assert.equal(trail.last("m")!.sequence, 2);
  assert.deepEqual(trail.list("m", { limit: 2 }).map((r) => r.sequence), [2, 1]);
  assert.deepEqual(trail.list("m", { limit: 10, pathPrefix: "$.f1" }).map((r) => r.sequence), [1]);
  trail.delete("m");
  assert.deepEqual(trail.all("m"), []);
  assert.equal(trail.last("m"), null);
  assert.equal(trail.all("other").length, 1);
});

Deno.test("MemoryModelStore appends audit records on commit; without a trail it keeps none", async () => {
  const store = new MemoryModelStore();
  const checkpoint = () => ({ at: null, following: 0, state: () => ({ doc: {}, meta: [], stale: [] }) });
  await store.commit("m", { at: 0, source: "client", request: {} }, checkpoint, record("m", 0));
  assert.equal((await store.lastAudit("m"))!.sequence, 0);
  assert.deepEqual(await store.load(), []);
  const none = new MemoryModelStore(null);
  await none.commit("m", { at: 0, source: "client", request: {} }, checkpoint, record("m", 0));
  assert.deepEqual(await none.allAudit("m"), []);
  assert.match(none.description, /no audit trail/);
});
