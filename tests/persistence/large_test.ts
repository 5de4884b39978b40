/**
 * Values beyond Deno KV's limits (64 KiB per value, 800 KiB and 1,000
 * mutations per atomic operation) are chunked: large documents, log entries,
 * audit records and blobs round-trip, and long logs reload.
 */
import assert from "node:assert/strict";
import { KvDatabase } from "../../server/stores/kv_database.ts";
import { KvBlobStore } from "../../server/stores/kv_blob_store.ts";
import { keysUnder, openRawKv, openService, orderSpec, withTempDir } from "./helpers.ts";

/** A string of `bytes` ASCII characters that does not compress to a pattern. */
function text(bytes: number, seed: number): string {
  let out = "";
  let x = seed;
  while (out.length < bytes) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out += x.toString(36);
  }
  return out.slice(0, bytes);
}

Deno.test("documents, log entries and audit records beyond 64 KiB and 800 KiB round-trip", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.storage.compaction-threshold": "3" };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    // 300 KB in one value: a chunked log entry and audit record within one atomic operation.
    await first.service.mutate("orders", { "$.note": text(300_000, 1) });
    // 1.5 MB in one mutation: its chunks need several atomic operations before the commit.
    const items = Array.from({ length: 25 }, (_, i) => ({ name: text(60_000, i + 2), price: i, qty: 1 }));
    await first.service.mutate("orders", { "$.items": items });
    await first.service.mutate("orders", { "$.customer": "Ada" });
    await first.service.mutate("orders", { "$.items[3].qty": 2 });
    const state = await first.service.getState("orders");
    const audit = await first.service.getAudit("orders");
    await first.service.close();
    const kv = await openRawKv(dir);
    // Log entries carry their audit records: ["L", g, id, seq, chunk].
    const chunks = (await keysUnder(kv, ["L"])).filter((key) => key.length === 5);
    kv.close();
    assert.ok(chunks.length > 50, `log entries and audit records are chunked (${chunks.length} chunks)`);

    const second = await openService(keys);
    assert.deepEqual(second.warnings, []);
    assert.deepEqual(await second.service.getState("orders"), state);
    assert.deepEqual(await second.service.getAudit("orders"), audit);
    assert.equal((await second.service.verifyAudit("orders")).valid, true);
    await second.service.close();

    // Folding every entry moves the large audit records to keys of their own, chunked.
    const folding = { ...keys, "svc.history.max-entries": "0", "svc.storage.compaction-threshold": "1" };
    const third = await openService(folding);
    await third.service.mutate("orders", { "$.customer": "Bob" });
    const after = await third.service.getAudit("orders");
    await third.service.close();
    const raw = await openRawKv(dir);
    const own = (await keysUnder(raw, ["m", "orders", "audit"])).filter((key) => key.length === 5);
    const live = await keysUnder(raw, ["L"]);
    raw.close();
    assert.ok(own.length > 25, `audit records on their own keys are chunked (${own.length} chunks)`);
    assert.deepEqual(live, []);
    const fourth = await openService(folding);
    assert.deepEqual(await fourth.service.getAudit("orders"), after);
    assert.deepEqual(after.slice(1), audit);
    assert.equal((await fourth.service.verifyAudit("orders")).valid, true);
    await fourth.service.close();
  }));

Deno.test("a long log with several compactions reloads state, history and the whole trail", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    await first.service.mutate("orders", { "$.items": [{ name: "pen", price: 1, qty: 0 }] });
    for (let i = 1; i < 420; i++) await first.service.mutate("orders", { "$.items[0].qty": i });
    const state = await first.service.getState("orders");
    const history = await first.service.getHistory("orders");
    assert.equal(history.length, 50);
    const oldest = await first.service.getState("orders", history[0]);
    await first.service.close();

    const second = await openService(keys);
    assert.deepEqual(await second.service.getState("orders"), state);
    assert.deepEqual(await second.service.getHistory("orders"), history);
    assert.deepEqual(await second.service.getState("orders", history[0]), oldest);
    assert.deepEqual(await second.service.verifyAudit("orders"), {
      valid: true,
      recordsChecked: 420,
      firstBrokenSequence: null,
      detail: "ok",
    });
    assert.equal((await second.service.getAudit("orders", { limit: 10000 })).length, 420);
    assert.deepEqual(
      (await second.service.getAudit("orders", { limit: 3 })).map((r) => r.sequence),
      [419, 418, 417],
    );
    await second.service.close();
  }));

Deno.test("blobs beyond one atomic operation round-trip and delete completely", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    const bytes = new TextEncoder().encode(text(2_500_000, 7));
    const first = await openService(keys);
    const ref = await first.service.uploadBlob(bytes, "application/x-test");
    await first.service.close();

    const second = await openService(keys);
    const blob = await second.service.getBlob(ref.$blobId);
    assert.deepEqual(blob, { bytes, mediaType: "application/x-test" });
    assert.equal(await second.storage.blobs.totalBytes(), bytes.byteLength);
    await second.storage.blobs.delete(ref.$blobId);
    assert.equal(await second.storage.blobs.has(ref.$blobId), false);
    await second.service.close();

    const kv = await openRawKv(dir);
    try {
      assert.deepEqual(await keysUnder(kv, ["blob"]), []);
      assert.deepEqual(await keysUnder(kv, ["blob-pending"]), []);
    } finally {
      kv.close();
    }
  }));

Deno.test("an interrupted blob upload is cleaned up at the next open", () =>
  withTempDir(async (dir) => {
    const path = `${dir}/svc.kv`;
    const kv = await Deno.openKv(path);
    await kv.set(["blob-pending", "abc"], true);
    await kv.set(["blob", "abc", 0], new Uint8Array(10));
    await kv.set(["blob", "abc", 1], new Uint8Array(10));
    kv.close();

    const db = (await KvDatabase.open(path, () => {})).acquire();
    const store = await KvBlobStore.open(db);
    assert.equal(await store.has("abc"), false);
    assert.deepEqual(await store.list(), []);
    assert.deepEqual(await keysUnder(db.kv, ["blob"]), []);
    assert.deepEqual(await keysUnder(db.kv, ["blob-pending"]), []);
    await store.close();
    await db.release();
  }));
