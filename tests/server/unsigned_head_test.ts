/**
 * With `svc.audit.signing-key` set, a write to a model whose stored chain head
 * is unsigned would sign over records nobody signed (written before the key,
 * or rewritten without it): the server refuses it (409) until an operator lists
 * the head's hash in `svc.audit.accept-unsigned-heads`.
 */
import assert from "node:assert/strict";
import { type AuditRecord, GENESIS_HASH, sealRecord } from "../../engine/audit/chain.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import { webPlatform } from "../../engine/ports.ts";
import { MemoryModelStore } from "../../engine/service/memory.ts";
import type { CommitStates, ModelStore } from "../../engine/service/ports.ts";
import { guardUnsignedHeads } from "../../server/unsigned_head_guard.ts";
import { commitEntries, openRawKv, putCommitEntry } from "../persistence/helpers.ts";
import { call, orderSpec, startTestServer } from "./helpers.ts";

const KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

/** Runs `body` against a server over `keys`, closed afterwards. */
async function served(keys: Record<string, string>, body: (url: string) => Promise<void>): Promise<void> {
  const server = await startTestServer(keys);
  try {
    await body(server.url);
  } finally {
    await server.close();
  }
}

Deno.test("with a signing key, a write over an unsigned head is refused until the operator accepts the head", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-unsigned-head-" });
  const keys = { "svc.storage.type": "kv", "svc.persistence-dir": dir };
  const signed = { ...keys, "svc.audit.signing-key": KEY };
  try {
    // Written before the key was set (or, for all the store can tell, rewritten without it).
    await served(keys, async (url) => {
      assert.equal((await call(url, "POST", "/models", orderSpec())).status, 201);
      assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 2 })).status, 200);
    });
    let head = "";
    await served(signed, async (url) => {
      head = (await call(url, "GET", "/models/order/audit?limit=1")).json[0].hash;
      const refused = await call(url, "POST", "/models/order/mutations", { "$.qty": 3 });
      assert.equal(refused.status, 409);
      assert.equal(refused.headers.get("content-type"), "application/problem+json");
      assert.match(refused.json.detail, /audit chain head \(sequence 0, hash [0-9a-f]{64}\) is not signed/);
      assert.ok(refused.json.detail.includes(head), "the detail names the hash to accept");
      assert.match(refused.json.detail, /svc\.audit\.accept-unsigned-heads/);
      // Every path of a write: a patch, and writes queued together (one batched store write).
      const patch = await call(url, "POST", "/models/order/mutations/patch", [
        { op: "replace", path: "/qty", value: 4 },
      ]);
      assert.equal(patch.status, 409);
      const queued = await Promise.all(
        [5, 6, 7].map((qty) => call(url, "POST", "/models/order/mutations", { "$.qty": qty })),
      );
      assert.deepEqual(queued.map((reply) => reply.status), [409, 409, 409]);
      // Nothing was written: the state and the trail are as they were.
      assert.equal((await call(url, "GET", "/models/order/state")).json.qty, 2);
      assert.equal((await call(url, "GET", "/models/order/audit?limit=10")).json.length, 1);
      // A model created under the key starts its own chain: nothing unsigned to vouch for.
      await call(url, "POST", "/models", orderSpec("fresh"));
      assert.equal((await call(url, "POST", "/models/fresh/mutations", { "$.qty": 1 })).status, 200);
    });
    // An accepted head that is not this one changes nothing.
    await served({ ...signed, "svc.audit.accept-unsigned-heads": "0".repeat(64) }, async (url) => {
      assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 3 })).status, 409);
    });
    // The operator checked the trail and accepts its head: the next write signs over it ...
    await served(
      { ...signed, "svc.audit.accept-unsigned-heads": ` ${"1".repeat(64)} , ${head}` },
      async (url) => {
        assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 3 })).status, 200);
        assert.equal((await call(url, "GET", "/models/order/audit/verify")).json.valid, true);
      },
    );
    // ... and from then on the head is signed: no acceptance is needed.
    await served(signed, async (url) => {
      assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 4 })).status, 200);
      assert.equal((await call(url, "GET", "/models/order/state")).json.qty, 4);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a signed trail rewritten without the key is not laundered by the next write", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-unsigned-head-" });
  const signed = { "svc.storage.type": "kv", "svc.persistence-dir": dir, "svc.audit.signing-key": KEY };
  try {
    await served(signed, async (url) => {
      await call(url, "POST", "/models", orderSpec());
      assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 2 })).status, 200);
    });
    // Whoever can write the store, without the key, re-chains the only record with another request
    // (the log entry beside it made to agree, or the load would notice).
    const kv = await openRawKv(dir);
    const [carrier] = await commitEntries(kv, "order");
    const { prevHash, hash: _hash, signature: _signature, ...body } = carrier.value.audit as AuditRecord;
    const forged = await sealRecord({ ...body, mutations: { "$.qty": 90 } }, prevHash, webPlatform().hasher);
    await putCommitEntry(kv, {
      key: carrier.key,
      value: {
        ...carrier.value,
        request: forged.mutations,
        audit: forged,
        auditHead: { sequence: 0, hash: forged.hash },
      },
    });
    kv.close();
    await served(signed, async (url) => {
      assert.equal((await call(url, "GET", "/models/order/state")).json.qty, 90, "the rewrite loads");
      assert.match(
        (await call(url, "GET", "/models/order/audit/verify")).json.detail,
        /chain head is not signed/,
      );
      // Signing a new head over it would make verify valid again: refused.
      const refused = await call(url, "POST", "/models/order/mutations", { "$.qty": 3 });
      assert.equal(refused.status, 409);
      assert.ok(refused.json.detail.includes(forged.hash));
      assert.equal((await call(url, "GET", "/models/order/audit/verify")).json.valid, false);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without a signing key, writes over unsigned heads go on as before", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-unsigned-head-" });
  const keys = { "svc.storage.type": "kv", "svc.persistence-dir": dir };
  try {
    for (const qty of [1, 2]) {
      await served(keys, async (url) => {
        if (qty === 1) await call(url, "POST", "/models", orderSpec());
        assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": qty })).status, 200);
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a discarded trail's signed head vouches for nothing stored under its id afterwards", async () => {
  const id = "order";
  const spec = orderSpec(id) as unknown as ModelSpec;
  const trail: AuditRecord[] = [];
  for (let sequence = 0; sequence < 3; sequence++) {
    const body = {
      modelId: id,
      sequence,
      timestamp: new Date(Date.UTC(2030, 0, 1, 0, 0, sequence)).toISOString(),
      modelVersion: "1.0.0",
      source: "client" as const,
      mutations: { "$.qty": sequence },
      derivedUpdated: [],
      flaggedConstraints: [],
      dispatchedEffects: [],
      traces: [],
    };
    trail.push(await sealRecord(body, trail.at(-1)?.hash ?? GENESIS_HASH, webPlatform().hasher));
  }
  const signed = (record: AuditRecord): AuditRecord => ({ ...record, signature: "c2lnbmVk" });
  const commit = (store: ModelStore, audit: AuditRecord) =>
    store.commit(id, { at: 0, source: "client", request: {} }, {} as CommitStates, audit);
  // Both writes that discard a model's trail: a deletion, and a create over whatever was stored.
  const discards: ((store: ModelStore) => Promise<void>)[] = [
    (store) => store.delete(id),
    (store) => store.save(spec, { doc: {}, meta: [], stale: [] }, { created: true }),
  ];
  for (const discard of discards) {
    const raw = new MemoryModelStore();
    const guarded = guardUnsignedHeads(raw, []);
    for (const record of trail.slice(0, 2)) await commit(guarded, signed(record));
    await discard(guarded);
    // Stored under the id since, by someone without the key: the same records, unsigned.
    await raw.delete(id);
    for (const record of trail.slice(0, 2)) await commit(raw, record);
    await assert.rejects(
      commit(guarded, signed(trail[2])),
      /audit chain head \(sequence 1, hash [0-9a-f]{64}\) is not signed/,
    );
  }
});
