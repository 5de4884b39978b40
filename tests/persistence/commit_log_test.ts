/**
 * The KV commit log (`["L", g, id, seq]`, each entry with its audit record):
 * a database of the earlier layout (`["m", id, "log", seq]` entries, audit
 * records on their own keys) loads unchanged and goes on in the new one, and
 * a compaction interrupted after writing the folded audit records to their
 * own keys reads each record once.
 */
import assert from "node:assert/strict";
import { encodeJson } from "../../server/stores/kv_values.ts";
import { engineConfig } from "../../engine/config.ts";
import { ModelService } from "../../engine/service/service.ts";
import { KvDatabase } from "../../server/stores/kv_database.ts";
import { KvModelStore } from "../../server/stores/kv_model_store.ts";
import {
  commitEntries,
  holdAtomicOperations,
  keysUnder,
  lookupOf,
  openRawKv,
  openService,
  orderSpec,
  steppingPlatform,
  within,
  withTempDir,
} from "./helpers.ts";

async function observe(service: ModelService) {
  const history = await service.getHistory("orders");
  return {
    state: await service.getState("orders"),
    history,
    at: await Promise.all(history.map((t) => service.getState("orders", t))),
    audit: await service.getAudit("orders", { limit: 10000 }),
  };
}

async function mutate(service: ModelService, from: number, count: number): Promise<void> {
  for (let qty = from; qty < from + count; qty++) {
    await service.mutate("orders", { "$.items": [{ name: "pen", price: 2, qty }] });
  }
}

Deno.test("a database of the earlier layout loads unchanged, goes on in the commit log and folds both", () =>
  withTempDir(async (dir) => {
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "2",
      "svc.storage.compaction-threshold": "4",
    };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    await mutate(first.service, 1, 6);
    const before = await observe(first.service);
    await first.service.close();

    // Rewrite the live entries as the earlier layout stored them, and add an entry of no model.
    const kv = await openRawKv(dir);
    const entries = await commitEntries(kv, "orders");
    assert.ok(entries.length > 0);
    for (const { key, value: { audit, ...logged } } of entries) {
      await kv.set(["m", "orders", "log", key[3]], encodeJson(logged));
      await kv.set(["m", "orders", "audit", (audit as { sequence: number }).sequence], encodeJson(audit));
      await kv.delete(key);
    }
    await kv.set(["L", 1000, "ghost", 0], encodeJson({ at: 0, source: "client", request: {} }));
    kv.close();

    const second = await openService(keys);
    assert.deepEqual(second.warnings, []);
    assert.deepEqual(await observe(second.service), before);
    assert.equal((await second.service.verifyAudit("orders")).valid, true);
    await mutate(second.service, 10, 5);
    const after = await observe(second.service);
    await second.service.close();

    const raw = await openRawKv(dir);
    const header = (await raw.get<{ logStart: number }>(["models", "orders"])).value!;
    const legacy = (await keysUnder(raw, ["m", "orders", "log"])).map((key) => key[3] as number);
    const live = (await commitEntries(raw, "orders")).map((entry) => entry.key);
    const ghost = await commitEntries(raw, "ghost");
    raw.close();
    assert.ok(legacy.every((seq) => seq >= header.logStart), "folded entries of the earlier layout are gone");
    assert.ok(
      header.logStart > Math.min(...entries.map((entry) => entry.key[3] as number)),
      "they were folded",
    );
    assert.deepEqual(ghost, [], "an entry of no model is deleted at load");
    assert.ok(live.every((key) => (key[1] as number) > 1000), "new commits go after every stored one");
    assert.deepEqual(
      [...legacy, ...live.map((key) => key[3] as number)],
      Array.from({ length: legacy.length + live.length }, (_, i) => header.logStart + i),
    );

    const third = await openService(keys);
    assert.deepEqual(third.warnings, []);
    assert.deepEqual(await observe(third.service), after);
    assert.deepEqual(await third.service.verifyAudit("orders"), {
      valid: true,
      recordsChecked: 11,
      firstBrokenSequence: null,
      detail: "ok",
    });
    await third.service.close();
  }));

Deno.test("a compaction interrupted after moving the audit records reads each record once", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.history.max-entries": "0" };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    await mutate(first.service, 1, 3);
    const audit = await first.service.getAudit("orders");
    await first.service.close();

    // What the compaction writes before it moves the header: the records on their own keys too.
    const kv = await openRawKv(dir);
    for (const { value: { audit } } of await commitEntries(kv, "orders")) {
      await kv.set(["m", "orders", "audit", (audit as { sequence: number }).sequence], encodeJson(audit));
    }
    kv.close();

    const second = await openService(keys);
    assert.deepEqual(await second.service.getAudit("orders"), audit);
    await mutate(second.service, 10, 1);
    assert.deepEqual((await second.service.getAudit("orders")).map((r) => r.sequence), [3, 2, 1, 0]);
    assert.deepEqual((await second.service.verifyAudit("orders")).recordsChecked, 4);
    await second.service.close();

    // The next compaction folds them all and writes the records once more.
    const folding = { ...keys, "svc.storage.compaction-threshold": "1" };
    const third = await openService(folding);
    await mutate(third.service, 20, 1);
    await third.service.close();
    const raw = await openRawKv(dir);
    assert.deepEqual(await commitEntries(raw, "orders"), []);
    raw.close();
    const fourth = await openService(folding);
    assert.deepEqual(await fourth.service.verifyAudit("orders"), {
      valid: true,
      recordsChecked: 5,
      firstBrokenSequence: null,
      detail: "ok",
    });
    assert.deepEqual((await fourth.service.getAudit("orders", { limit: 3 })).map((r) => r.sequence), [
      4,
      3,
      2,
    ]);
    await fourth.service.close();
  }));

Deno.test("folded entries are deleted together later; a model created again never reads its predecessor's", () =>
  withTempDir(async (dir) => {
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "2",
      "svc.storage.compaction-threshold": "4",
    };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    await mutate(first.service, 1, 10);
    const kv = await openRawKv(dir);
    try {
      // Compactions folded entries; they wait to be deleted with many others.
      assert.equal((await commitEntries(kv, "orders")).length, 10);
      const before = await observe(first.service);
      await first.service.close(); // closing deletes them
      const live = await commitEntries(kv, "orders");
      assert.ok(live.length > 0 && live.length < 10, `${live.length} live entries`);

      const second = await openService(keys);
      assert.deepEqual(second.warnings, []);
      assert.deepEqual(await observe(second.service), before);
      await mutate(second.service, 20, 10); // more folded entries waiting
      await second.service.deleteModel("orders");
      await second.service.createModel(orderSpec());
      await mutate(second.service, 100, 2);
      // The old model's entries went before the new one could write: only the new ones are there.
      const entries = await commitEntries(kv, "orders");
      assert.deepEqual(entries.map((e) => e.key[3]).sort(), [0, 1]);
      const expected = await observe(second.service);
      assert.equal(expected.audit.length, 2);
      await second.service.close();

      const third = await openService(keys);
      assert.deepEqual(third.warnings, []);
      assert.deepEqual(await observe(third.service), expected);
      assert.equal((await third.service.verifyAudit("orders")).valid, true);
      await third.service.close();
    } finally {
      kv.close();
    }
  }));

Deno.test("models written alike do not compact at the same commit: the threshold gets an offset from the id", () =>
  withTempDir(async (dir) => {
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "2",
      "svc.storage.compaction-threshold": "40",
    };
    const { service } = await openService(keys);
    const kv = await openRawKv(dir);
    try {
      const firstFold = new Map<string, number>();
      for (const id of ["alpha", "beta"]) await service.createModel({ ...orderSpec(), id });
      for (let commit = 1; commit <= 60; commit++) {
        for (const id of ["alpha", "beta"]) {
          await service.mutate(id, { "$.items": [{ name: "pen", price: 2, qty: commit }] });
          const header = (await kv.get<{ logStart: number }>(["models", id])).value!;
          if (header.logStart > 0 && !firstFold.has(id)) firstFold.set(id, commit);
        }
      }
      const [alpha, beta] = [firstFold.get("alpha")!, firstFold.get("beta")!];
      for (const at of [alpha, beta]) {
        assert.ok(at >= 40 && at < 40 + 10 + 3, `first compaction at commit ${at}`);
      }
      assert.notEqual(alpha, beta);
    } finally {
      kv.close();
      await service.close();
    }
  }));

Deno.test("a commit-log entry is the JSON of {at, source, request, auditHead, audit}, byte for byte", () =>
  withTempDir(async (dir) => {
    const { service } = await openService({ "svc.persistence-dir": dir });
    await service.createModel(orderSpec());
    await mutate(service, 1, 3);
    await service.mutate("orders", { "$.customer": 'Zoë "Ω" \u2028' }); // text JSON escapes
    await service.close();
    const kv = await openRawKv(dir);
    try {
      const entries = await commitEntries(kv, "orders");
      assert.equal(entries.length, 4);
      for (const { key, value } of entries) {
        assert.deepEqual(Object.keys(value), ["at", "source", "request", "auditHead", "audit"]);
        const stored = (await kv.get<Uint8Array>(key)).value!;
        assert.equal(new TextDecoder().decode(stored), JSON.stringify(value));
      }
    } finally {
      kv.close();
    }
  }));

Deno.test("a model deleted and created again does not wait for a background deletion of folded entries", () =>
  withTempDir(async (dir) => {
    const warn = (message: string) => assert.fail(message);
    const db = await KvDatabase.open(`${dir}/svc.kv`, warn);
    const store = new KvModelStore(db, {
      state: true,
      audit: "kv",
      compactionThreshold: 4,
      retireBatch: 8,
      warn,
    });
    const config = engineConfig(lookupOf({ "svc.history.max-entries": "2" }));
    const service = await ModelService.open({ config, platform: steppingPlatform(), store });
    // The first atomic operation of deletions only (the background deletion of folded entries) waits for `release`.
    const hold = holdAtomicOperations(({ sets, deletes }, heldBefore) =>
      sets.length === 0 && deletes.length > 0 && heldBefore === 0
    );
    try {
      await service.createModel(orderSpec());
      for (let qty = 1; hold.held === 0 && qty < 200; qty++) await mutate(service, qty, 1);
      assert.equal(hold.held, 1, "folded entries are being deleted in the background");
      await service.deleteModel("orders");
      await within(service.createModel(orderSpec()), "creating the model again");
      await mutate(service, 500, 2);
      assert.deepEqual((await service.getAudit("orders")).map((record) => record.sequence), [1, 0]);
      // The deletion is still held: the predecessor's folded entries went with the sweep all the same.
      const kv = await openRawKv(dir);
      try {
        assert.deepEqual((await commitEntries(kv, "orders")).map((entry) => entry.key[3]), [0, 1]);
      } finally {
        kv.close();
      }
    } finally {
      hold.restore();
    }
    const expected = await observe(service);
    await service.close();
    const { service: reopened, warnings } = await openService({
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "2",
    });
    assert.deepEqual(warnings, []);
    assert.deepEqual(await observe(reopened), expected);
    assert.equal((await reopened.verifyAudit("orders")).valid, true);
    await reopened.close();
  }));
