/**
 * Restart round trips through ModelService over Deno KV: what a service
 * committed is what a new service over the same directory reads back.
 */
import assert from "node:assert/strict";
import type { ModelService } from "../../engine/service/service.ts";
import { librarySpec } from "../server/helpers.ts";
import {
  commitEntries,
  keysUnder,
  openRawKv,
  openService,
  orderSpec,
  steppingPlatform,
  withTempDir,
} from "./helpers.ts";

/** Everything a client can observe of a model. */
async function observe(service: ModelService, id: string) {
  const history = await service.getHistory(id);
  return {
    info: await service.getInfo(id),
    spec: await service.getSpec(id),
    state: await service.getState(id),
    history,
    at: await Promise.all(history.map((t) => service.getState(id, t))),
    audit: await service.getAudit(id, { limit: 10000 }),
    verify: await service.verifyAudit(id),
    schema: await service.getSchema(id, "$.discount"),
  };
}

const LATER = Date.parse("2031-01-01T00:00:00Z");

Deno.test("a restart restores spec, state, history, audit trail and blobs", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    const first = await openService(keys);
    const svc = first.service;
    await svc.createModel(orderSpec());
    await svc.createModel(orderSpec("other"));
    await svc.mutate("orders", { "$.customer": "Ada", "$.items": [{ name: "pen", price: 2, qty: 3 }] });
    await svc.patch("orders", [{ op: "add", path: "/items/-", value: { name: "ink", price: 5, qty: 1 } }]);
    await svc.foldback("orders", { "$.note": "from an effect" });
    const flagged = await svc.mutate("orders", { "$.items[1].qty": 300 });
    assert.deepEqual(flagged.flaggedConstraints.map((f) => f.constraintId), ["big-order"]);
    await assert.rejects(svc.mutate("orders", { "$.discount": 5000 }));
    await svc.mutate("orders", { "$.items[1].qty": 2, "$.discount": 1 });
    await svc.mutate("other", { "$.customer": "Bob" });
    const ref = await svc.uploadBlob(new TextEncoder().encode("attachment bytes"), "text/plain");
    await svc.mutate("orders", { "$.attachment": ref as never });
    const before = await observe(svc, "orders");
    assert.equal(before.history.length, 6);
    assert.deepEqual(before.audit.map((r) => r.source), [
      "client",
      "client",
      "client",
      "foldback",
      "patch",
      "client",
    ]);
    await svc.close();

    const second = await openService(keys, steppingPlatform(LATER));
    assert.deepEqual(second.warnings, []);
    assert.deepEqual(await second.service.listModels(), ["orders", "other"]);
    assert.deepEqual(await observe(second.service, "orders"), before);
    assert.equal((await second.service.getState("other") as { customer: string }).customer, "Bob");
    const blob = await second.service.getModelBlob("orders", ref.$blobId);
    assert.equal(new TextDecoder().decode(blob.bytes), "attachment bytes");
    assert.equal(blob.mediaType, "text/plain");
    assert.deepEqual(await second.storage.blobs.list(), [{ blobId: ref.$blobId, bytes: 16 }]);
    assert.equal(await second.storage.blobs.totalBytes(), 16);

    // The chain continues across the restart.
    await second.service.mutate("orders", { "$.customer": "Ada L." });
    const verify = await second.service.verifyAudit("orders");
    assert.deepEqual(verify, { valid: true, recordsChecked: 7, firstBrokenSequence: null, detail: "ok" });
    await second.service.close();
  }));

Deno.test("restore, evolve and delete survive a restart", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    const first = await openService(keys);
    const svc = first.service;
    await svc.createModel(orderSpec());
    await svc.mutate("orders", { "$.customer": "Ada", "$.items": [{ name: "pen", price: 2, qty: 3 }] });
    const snapshot = await svc.snapshot("orders");
    await svc.mutate("orders", { "$.items[0].qty": 9 });
    await svc.restore("orders", snapshot);
    await svc.evolveSpec("orders", {
      newVersion: "1.1.0",
      upsertSchemaNodes: [{ path: "$.priority", schema: { type: "string" } }],
    });
    await svc.mutate("orders", { "$.priority": "high" });
    const restored = await svc.getState("orders");
    const history = await svc.getHistory("orders");
    assert.equal(history.length, 1, "evolve clears history; one commit since");
    await svc.createModel(orderSpec("doomed"));
    await svc.mutate("doomed", { "$.customer": "Eve" });
    await svc.deleteModel("doomed");
    await svc.close();
    const raw = await openRawKv(dir);
    try {
      assert.deepEqual(await commitEntries(raw, "doomed"), [], "the deletion sweeps its commit-log entries");
    } finally {
      raw.close();
    }

    const second = await openService(keys);
    assert.deepEqual(await second.service.listModels(), ["orders"]);
    assert.equal((await second.service.getInfo("orders")).version, "1.1.0");
    assert.deepEqual(await second.service.getState("orders"), restored);
    assert.deepEqual(await second.service.getHistory("orders"), history);
    assert.equal((await second.service.getAudit("orders")).length, 3, "restore and evolve are not audited");
    assert.equal((await second.service.verifyAudit("orders")).valid, true);
    // A model created again under a deleted id starts a fresh trail.
    await second.service.createModel(orderSpec("doomed"));
    assert.deepEqual(await second.service.getAudit("doomed"), []);
    await second.service.close();

    const kv = await openRawKv(dir);
    try {
      assert.deepEqual(
        await keysUnder(kv, ["m", "doomed", "audit"]),
        [],
        "the deleted model's audit trail is gone",
      );
      assert.deepEqual(await keysUnder(kv, ["deleting"]), []);
    } finally {
      kv.close();
    }
  }));

Deno.test("a model whose stored spec no longer validates is skipped, its id kept; deleted, its id starts afresh", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    const spec = { ...orderSpec(), effects: [{ id: "notify", trigger: "total > 0", executor: "caller" }] };
    const first = await openService(keys);
    await first.service.createModel(spec);
    await first.service.mutate("orders", {
      "$.customer": "Ada",
      "$.items": [{ name: "pen", price: 2, qty: 3 }],
    });
    await first.service.close();

    const strict = await openService({ ...keys, "svc.effects.kinds.enabled": "server" });
    assert.deepEqual(await strict.service.listModels(), []);
    assert.match(
      strict.warnings.join("\n"),
      /model 'orders' not loaded: its stored spec no longer validates/,
    );
    // Its id stays taken: a create would discard what is stored under it.
    await assert.rejects(
      () => strict.service.createModel(orderSpec()),
      /is stored but not loaded/,
    );
    await strict.service.deleteModel("orders");
    await strict.service.createModel(orderSpec());
    assert.deepEqual(
      await strict.service.getAudit("orders"),
      [],
      "the unloadable model's trail is discarded",
    );
    assert.equal((await strict.service.getState("orders") as { customer?: string }).customer, undefined);
    await strict.service.mutate("orders", { "$.customer": "Bob" });
    await strict.service.close();

    const again = await openService(keys);
    assert.equal((await again.service.getState("orders") as { customer: string }).customer, "Bob");
    assert.equal((await again.service.verifyAudit("orders")).recordsChecked, 1);
    await again.service.close();
  }));

Deno.test("a deletion interrupted before its sweep finished is completed at the next start", () =>
  withTempDir(async (dir) => {
    const kv = await openRawKv(dir);
    await kv.set(["deleting", "gone"], true);
    for (let i = 0; i < 1200; i++) await kv.set(["m", "gone", "audit", i], new Uint8Array(8));
    kv.close();

    const reopened = await openService({ "svc.persistence-dir": dir });
    assert.deepEqual(await reopened.service.listModels(), []);
    await reopened.service.close();
    await reopened.service.close();
    const after = await openRawKv(dir);
    try {
      assert.deepEqual(await keysUnder(after, ["m", "gone"]), []);
      assert.deepEqual(await keysUnder(after, ["deleting"]), []);
    } finally {
      after.close();
    }
  }));

Deno.test("a model with a library loads again: its exports are computed anew and its log replays", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    const first = await openService(keys);
    await first.service.createModel(librarySpec());
    await first.service.mutate("priced", { "$.net": 10 });
    await first.service.mutate("priced", { "$.net": 20 });
    const library = await first.service.getLibrary("priced");
    await first.service.close();

    const second = await openService(keys);
    assert.deepEqual(second.warnings, []);
    assert.equal((await second.service.getState("priced") as { gross: number }).gross, 24);
    assert.deepEqual(await second.service.getLibrary("priced"), library);
    await second.service.mutate("priced", { "$.net": 1 });
    assert.equal((await second.service.getState("priced") as { gross: number }).gross, 1.2);
    await second.service.close();
  }));
