/**
 * Log compaction: every `svc.storage.compaction-threshold` entries the log is
 * folded into a base state, the state and retained history read back
 * identically after a restart, and the audit trail is never compacted.
 */
import assert from "node:assert/strict";
import type { ModelService } from "../../engine/service/service.ts";
import { BACKGROUND_UNIT } from "../../server/stores/kv_database.ts";
import {
  type AtomicWrites,
  holdAtomicOperations,
  keysUnder,
  openRawKv,
  openService,
  orderSpec,
  within,
  withTempDir,
} from "./helpers.ts";

interface StoredHeader {
  baseAt: number | null;
  logStart: number;
}

/**
 * The stored header, log-entry sequences (the commit log's `["L", g, id, seq]`)
 * and the sequences of audit records on their own keys of a model, read directly from KV.
 */
async function storedLog(
  dir: string,
  id: string,
): Promise<{ header: StoredHeader; entries: number[]; ownAudit: number[] }> {
  const kv = await openRawKv(dir);
  try {
    const header = (await kv.get<StoredHeader>(["models", id])).value!;
    const entries = (await keysUnder(kv, ["L"])).filter((k) => k.length === 4 && k[2] === id).map((k) =>
      k[3] as number
    );
    const ownAudit = (await keysUnder(kv, ["m", id, "audit"])).filter((k) => k.length === 4).map((k) =>
      k[3] as number
    );
    return { header, entries, ownAudit };
  } finally {
    kv.close();
  }
}

async function observe(service: ModelService) {
  const history = await service.getHistory("orders");
  return {
    state: await service.getState("orders"),
    history,
    at: await Promise.all(history.map((t) => service.getState("orders", t))),
    audit: await service.getAudit("orders", { limit: 10000 }),
  };
}

async function mutateMany(service: ModelService, count: number): Promise<void> {
  await service.mutate("orders", { "$.customer": "Ada", "$.items": [{ name: "pen", price: 1, qty: 0 }] });
  for (let i = 1; i < count; i++) await service.mutate("orders", { "$.items[0].qty": i });
}

for (
  const { history, threshold, commits } of [
    { history: 4, threshold: 10, commits: 37 },
    { history: 8, threshold: 3, commits: 20 },
    { history: 0, threshold: 10, commits: 25 },
    { history: 1, threshold: 5, commits: 12 },
  ]
) {
  Deno.test(
    `compaction every ${threshold} entries with ${history} history entries keeps state and history (${commits} commits)`,
    () =>
      withTempDir(async (dir) => {
        const keys = {
          "svc.persistence-dir": dir,
          "svc.history.max-entries": String(history),
          "svc.storage.compaction-threshold": String(threshold),
        };
        const first = await openService(keys);
        await first.service.createModel(orderSpec());
        await mutateMany(first.service, commits);
        const before = await observe(first.service);
        assert.equal(before.history.length, history);
        await first.service.close();

        const { header, entries, ownAudit } = await storedLog(dir, "orders");
        const kept = Math.max(history - 1, 0);
        assert.ok(
          entries.length >= kept && entries.length < kept + threshold,
          `log of ${entries.length} entries`,
        );
        assert.deepEqual(entries, Array.from({ length: entries.length }, (_, i) => header.logStart + i));
        assert.equal(header.logStart + entries.length, commits, "no entry lost or duplicated");
        // Each commit's audit record rides in its log entry, and moves to a key of its own when folded.
        assert.deepEqual(ownAudit, Array.from({ length: header.logStart }, (_, i) => i));
        // The base is the post-commit state just before the kept entries: a history entry while retained.
        const baseIndex = history - 1 - entries.length;
        if (history === 0) assert.equal(header.baseAt, null);
        else if (baseIndex >= 0) {
          assert.equal(new Date(header.baseAt!).toISOString(), before.history[baseIndex]);
        } else assert.ok(header.baseAt! < Date.parse(before.history[0]));

        const second = await openService(keys);
        assert.deepEqual(second.warnings, []);
        assert.deepEqual(await observe(second.service), before);
        assert.equal(before.audit.length, commits, "the audit trail is never compacted");
        assert.equal((await second.service.verifyAudit("orders")).valid, true);
        await second.service.close();
      }),
  );
}

Deno.test("a restart between compactions and more commits keeps folding correctly", () =>
  withTempDir(async (dir) => {
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "3",
      "svc.storage.compaction-threshold": "4",
    };
    let opened = await openService(keys);
    await opened.service.createModel(orderSpec());
    await mutateMany(opened.service, 6);
    for (let round = 0; round < 3; round++) {
      await opened.service.close();
      opened = await openService(keys);
      for (let i = 0; i < 5; i++) {
        await opened.service.mutate("orders", { "$.items[0].price": round * 10 + i });
      }
    }
    const before = await observe(opened.service);
    await opened.service.close();
    const after = await openService(keys);
    assert.deepEqual(await observe(after.service), before);
    assert.equal(before.audit.length, 21);
    assert.equal((await after.service.verifyAudit("orders")).valid, true);
    await after.service.close();
    const { entries } = await storedLog(dir, "orders");
    assert.ok(entries.length < 2 + 4, `log of ${entries.length} entries`);
  }));

/** Holds every atomic operation that moves a model's header (a compaction's, a save's). */
const holdHeaderWrites = () => holdAtomicOperations(({ sets }) => sets.some((key) => key[0] === "models"));

Deno.test("a compaction runs beside the writes after it; a deletion waits for it", () =>
  withTempDir(async (dir) => {
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "2",
      "svc.storage.compaction-threshold": "4",
    };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    const hold = holdHeaderWrites();
    let before;
    try {
      // Every write resolves while the compactions they made due are held.
      await within(mutateMany(first.service, 12), "writing while a compaction is held");
      assert.ok(hold.held >= 1, "a compaction was due");
      before = await observe(first.service);
    } finally {
      hold.restore();
    }
    await first.service.close();
    const second = await openService(keys);
    assert.deepEqual(await observe(second.service), before);
    assert.equal((await second.service.verifyAudit("orders")).valid, true);

    // Deleted while a compaction is held: the compaction ends first, and its header does not come back.
    const again = holdHeaderWrites();
    try {
      for (let qty = 100; again.held === 0; qty++) {
        await within(second.service.mutate("orders", { "$.items[0].qty": qty }), "a write");
      }
      let deleted = false;
      const deleting = second.service.deleteModel("orders").then(() => deleted = true);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(deleted, false, "the deletion waits for the compaction");
      again.release();
      await deleting;
    } finally {
      again.restore();
    }
    await second.service.close();
    const kv = await openRawKv(dir);
    try {
      assert.equal((await kv.get(["models", "orders"])).value, null);
    } finally {
      kv.close();
    }
    const third = await openService(keys);
    assert.deepEqual(await third.service.listModels(), []);
    await third.service.close();
  }));

Deno.test("a compaction moves its audit records in small operations of their own, apart from the header's", () =>
  withTempDir(async (dir) => {
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "0",
      "svc.storage.compaction-threshold": "120",
    };
    const { service } = await openService(keys);
    await service.createModel(orderSpec());
    const operations: AtomicWrites[] = [];
    const watch = holdAtomicOperations((writes) => {
      operations.push(writes);
      return false;
    });
    try {
      await mutateMany(service, 160);
      await service.close();
    } finally {
      watch.restore();
    }
    const isAudit = (key: Deno.KvKey) => key[0] === "m" && key[2] === "audit";
    const moving = operations.filter((op) => op.sets.some(isAudit));
    assert.ok(moving.length >= 4, `${moving.length} operations moved 120 or more records`);
    // One operation of 120 records held the database (and every commit behind it) for 10-30 ms.
    for (const op of moving) {
      assert.ok(op.sets.length <= BACKGROUND_UNIT, `${op.sets.length} keys in one operation`);
      assert.ok(!op.sets.some((key) => key[0] === "models"), "the header moves in an operation of its own");
    }
    const { ownAudit, header } = await storedLog(dir, "orders");
    assert.deepEqual(ownAudit, Array.from({ length: header.logStart }, (_, i) => i));

    const reopened = await openService(keys);
    const verified = await reopened.service.verifyAudit("orders");
    assert.equal(verified.valid, true);
    assert.equal(verified.recordsChecked, 160);
    await reopened.service.close();
  }));

Deno.test("audit records with characters of every UTF-8 length move to their own keys intact", () =>
  withTempDir(async (dir) => {
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "0",
      "svc.storage.compaction-threshold": "3",
    };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    // The kept records are views into each commit's bytes: offsets count UTF-8 bytes, not characters.
    for (const [i, customer] of ["Ada", "Zoë", "Łukasz €", "李雷", "🚀 Ada", 'a\u0000"\\b'].entries()) {
      await first.service.mutate("orders", {
        "$.customer": customer,
        "$.items": [{ name: "pen", price: 1, qty: i }],
      });
    }
    const before = await observe(first.service);
    await first.service.close();
    const { ownAudit } = await storedLog(dir, "orders");
    assert.ok(ownAudit.length >= 3, `${ownAudit.length} records folded`);

    const second = await openService(keys);
    assert.deepEqual(second.warnings, []);
    assert.deepEqual(await observe(second.service), before);
    assert.equal((await second.service.verifyAudit("orders")).valid, true);
    await second.service.close();
  }));
