/**
 * A stored state that cannot be reconstructed loads spec-only with the state
 * reset and a warning naming the model; the reset is stored, and the audit
 * trail and other models are untouched.
 */
import assert from "node:assert/strict";
import { type AuditRecord, sealRecord } from "../../engine/audit/chain.ts";
import { webPlatform } from "../../engine/ports.ts";
import { ModelService } from "../../engine/service/service.ts";
import { encodeJson } from "../../server/stores/kv_values.ts";
import {
  commitEntries,
  type CommitEntry,
  keysUnder,
  openRawKv,
  openService,
  orderSpec,
  putCommitEntry,
  withTempDir,
} from "./helpers.ts";

interface Header {
  base: { gen: string } | null;
  logStart: number;
}

/** Creates `orders` (three commits after its base) and `other` (one). */
async function seed(dir: string): Promise<{ initial: unknown; other: unknown }> {
  const { service } = await openService({ "svc.persistence-dir": dir });
  await service.createModel(orderSpec());
  const initial = await service.getState("orders");
  await service.createModel(orderSpec("other"));
  await service.mutate("orders", { "$.customer": "Ada", "$.items": [{ name: "pen", price: 2, qty: 3 }] });
  await service.mutate("orders", { "$.items[0].qty": 4 });
  await service.mutate("orders", { "$.items[0].qty": 5 });
  await service.mutate("other", { "$.customer": "Bob" });
  const other = await service.getState("other");
  await service.close();
  return { initial, other };
}

async function tamper(dir: string, change: (kv: Deno.Kv, header: Header) => Promise<unknown>): Promise<void> {
  const kv = await openRawKv(dir);
  try {
    await change(kv, (await kv.get<Header>(["models", "orders"])).value!);
  } finally {
    kv.close();
  }
}

/** The commit-log entry of log sequence `seq` of `orders`. */
async function logEntry(kv: Deno.Kv, seq: number): Promise<CommitEntry> {
  return (await commitEntries(kv, "orders")).find((entry) => entry.key[3] === seq)!;
}

const CASES: {
  name: string;
  reason: RegExp;
  change: (kv: Deno.Kv, header: Header) => Promise<unknown>;
  /** The audit record lost with a log entry lost whole (it rode in it); verify names it. */
  lostAudit?: number;
}[] = [
  {
    name: "an altered base state",
    reason: /base state is unreadable: content does not match its SHA-256/,
    change: (kv, h) =>
      kv.set(["m", "orders", "v", h.base!.gen, 0], encodeJson({ doc: {}, meta: [], stale: [] })),
  },
  {
    name: "a missing base chunk",
    reason: /base state is unreadable: 0 of 1 chunks readable/,
    change: (kv, h) => kv.delete(["m", "orders", "v", h.base!.gen, 0]),
  },
  {
    name: "a missing log entry",
    reason: /log entry 1 is missing/,
    change: async (kv, h) => kv.delete((await logEntry(kv, h.logStart + 1)).key),
    lostAudit: 1,
  },
  {
    name: "an unreadable log entry",
    reason: /log entry 1 is unreadable/,
    change: async (kv, h) =>
      kv.set((await logEntry(kv, h.logStart + 1)).key, { n: 1, data: new Uint8Array([123, 0, 255]) }),
    lostAudit: 1,
  },
  {
    name: "a log entry whose fields are unreadable beside its audit record",
    reason: /log entry 2 is unreadable/,
    change: async (kv, h) => {
      const entry = await logEntry(kv, h.logStart + 2);
      return putCommitEntry(kv, { key: entry.key, value: { ...entry.value, at: "yesterday" } });
    },
  },
  {
    name: "a log entry whose chunk is missing",
    reason: /log entry 0 is unreadable/,
    change: async (kv, h) =>
      kv.set((await logEntry(kv, h.logStart)).key, { n: 2, data: new Uint8Array([123]) }),
    lostAudit: 0,
  },
  {
    name: "a log entry the pipeline refuses on replay",
    reason: /Schema violation: \$\.discount \(maximum\)/,
    change: async (kv, h) => {
      // A write an earlier version took: its audit record agrees with it (and chains), as one written then would.
      const entry = await logEntry(kv, h.logStart + 2);
      const request = { "$.discount": 5000 };
      const at = Date.parse("2030-01-01T00:00:05Z");
      const { prevHash, hash: _hash, ...body } = entry.value.audit as AuditRecord;
      const audit = await sealRecord(
        { ...body, timestamp: new Date(at).toISOString(), source: "client", mutations: request },
        prevHash,
        webPlatform().hasher,
      );
      return putCommitEntry(kv, {
        key: entry.key,
        value: {
          ...entry.value,
          at,
          source: "client",
          request,
          auditHead: { sequence: audit.sequence, hash: audit.hash },
          audit,
        },
      });
    },
  },
];

for (const { name, reason, change, lostAudit } of CASES) {
  Deno.test(`${name} loads the model spec-only with its state reset and a warning`, () =>
    withTempDir(async (dir) => {
      const { initial, other } = await seed(dir);
      await tamper(dir, change);

      const reopened = await openService({ "svc.persistence-dir": dir });
      const warning = reopened.warnings.find((w) => w.includes("'orders'"));
      assert.ok(warning, `a warning names the model: ${reopened.warnings.join(" | ")}`);
      assert.match(warning, /state could not be reconstructed/);
      assert.match(warning, /loaded spec-only with state reset/);
      assert.match(warning, reason);
      assert.equal(reopened.warnings.length, 1);
      assert.deepEqual(await reopened.service.getSpec("orders"), orderSpec());
      assert.deepEqual(await reopened.service.getState("orders"), initial);
      assert.deepEqual(await reopened.service.getHistory("orders"), []);
      assert.deepEqual(await reopened.service.getState("other"), other);
      // Nothing was deleted: what was stored is kept for recovery and can be exported.
      assert.match(
        warning,
        /RECOVERY NEEDED: the stored state and log are kept; export them with GET \/admin\/recovery\/orders/,
      );
      const [kept, ...more] = await reopened.service.getRecovery("orders");
      assert.equal(more.length, 0);
      assert.match(kept.reason, reason);
      assert.deepEqual(kept.spec, orderSpec());
      assert.ok(kept.base !== null || kept.log.length > 0, "what could be read is kept");
      // The trail of the lost commits stays, and goes on; a record lost with its log entry is named.
      assert.equal((await reopened.service.getAudit("orders")).length, lostAudit === undefined ? 3 : 2);
      await reopened.service.mutate("orders", { "$.customer": "Eve" });
      assert.equal(
        (await reopened.service.verifyAudit("orders")).firstBrokenSequence,
        lostAudit ?? null,
      );
      await reopened.service.close();

      // The reset was stored: the next start is clean.
      const again = await openService({ "svc.persistence-dir": dir });
      assert.deepEqual(again.warnings, []);
      assert.equal((await again.service.listRecovery()).length, 1, "kept across restarts");
      assert.equal((await again.service.getState("orders") as { customer: string }).customer, "Eve");
      // Once exported, the operator removes them; the model itself is untouched.
      assert.deepEqual(await again.service.deleteRecovery("orders"), { modelId: "orders", deleted: 1 });
      await assert.rejects(again.service.deleteRecovery("orders"), /No recovery record for model 'orders'/);
      await again.service.close();
      const cleaned = await openService({ "svc.persistence-dir": dir });
      assert.deepEqual(await cleaned.service.listRecovery(), []);
      assert.equal((await cleaned.service.getState("orders") as { customer: string }).customer, "Eve");
      await cleaned.service.close();
    }));
}

Deno.test("an unreadable spec or header skips the model with a warning naming it", () =>
  withTempDir(async (dir) => {
    await seed(dir);
    const kv = await openRawKv(dir);
    const header = (await kv.get<{ spec: { gen: string } }>(["models", "other"])).value!;
    await kv.set(["m", "other", "v", header.spec.gen, 0], new TextEncoder().encode("{not json"));
    await kv.set(["models", "orders"], "garbage");
    kv.close();

    const reopened = await openService({ "svc.persistence-dir": dir });
    assert.deepEqual(await reopened.service.listModels(), []);
    assert.deepEqual(reopened.warnings.sort(), [
      "model 'orders' not loaded: its stored header is unreadable",
      "model 'other' not loaded: its stored spec is unreadable (content does not match its SHA-256)",
    ]);
    await reopened.service.close();
  }));

Deno.test("a state kept in memory restarts from the initial state without a warning", () =>
  withTempDir(async (dir) => {
    const { initial } = await seed(dir);
    const reopened = await openService({ "svc.persistence-dir": dir, "svc.storage.state-type": "memory" });
    assert.deepEqual(reopened.warnings, []);
    assert.deepEqual(await reopened.service.getState("orders"), initial);
    assert.equal((await reopened.service.getAudit("orders")).length, 3, "the kv audit trail stays");
    await reopened.service.mutate("orders", { "$.customer": "Eve" });
    await reopened.service.close();

    // Nothing of the earlier durable state is left to resurface.
    const kv = await openRawKv(dir);
    const header = (await kv.get<Header>(["models", "orders"])).value!;
    assert.equal(header.base, null);
    assert.deepEqual(await keysUnder(kv, ["m", "orders", "log"]), []);
    assert.deepEqual(await commitEntries(kv, "orders"), []);
    kv.close();
    const durable = await openService({ "svc.persistence-dir": dir });
    assert.match(
      durable.warnings.join(),
      /model 'orders': state could not be reconstructed \(no state is stored\)/,
    );
    await durable.service.close();
  }));

Deno.test("ModelService.open surfaces a store that fails to load", async () => {
  const failing = {
    description: "failing",
    load: () => Promise.reject(new Error("disk on fire")),
  };
  await assert.rejects(ModelService.open({ store: failing as never }), /disk on fire/);
});
