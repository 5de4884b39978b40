/**
 * A stored log entry is what a restart replays, but only the audit record
 * beside it is hashed and signed: an entry altered on its own must not change
 * the state while verify stays valid. Each store (KV, filesystem) is tampered
 * with directly; the model then loads spec-only with the stored log kept for
 * recovery, and verify names the record the entry disagreed with until an
 * operator deletes the recovery records. The filesystem store's base state
 * (model.json) is checked against its SHA-256 like KV's chunks.
 */
import assert from "node:assert/strict";
import { ed25519Signer } from "../../engine/audit/signing.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import { commitEntries, openRawKv, openService, putCommitEntry, withTempDir } from "./helpers.ts";

const ACCOUNT: ModelSpec = {
  id: "acct",
  version: "1.0.0",
  schema: { type: "object", properties: { balance: { type: "number" } } },
};

const signer = await ed25519Signer(btoa(String.fromCharCode(...new Uint8Array(32).fill(5))));

/** Writes the account's balance twice (two log entries, two signed records) and closes. */
async function seed(keys: Record<string, string>): Promise<void> {
  const { service } = await openService(keys, undefined, { auditSigner: signer });
  await service.createModel(ACCOUNT);
  await service.mutate("acct", { "$.balance": 100 });
  await service.mutate("acct", { "$.balance": 150 });
  assert.equal((await service.verifyAudit("acct")).valid, true);
  await service.close();
}

/** Restarts after `tamper` and checks the altered entry was not replayed and verify names record 0. */
async function checkDetected(keys: Record<string, string>, detail: RegExp): Promise<void> {
  const opened = await openService(keys, undefined, { auditSigner: signer });
  const { service, storage, warnings } = opened;
  try {
    assert.deepEqual(await service.getState("acct"), {}, "the altered entry is not replayed: state reset");
    assert.ok(warnings.some((w) => /RECOVERY NEEDED/.test(w) && detail.test(w)), warnings.join("\n"));
    const [kept] = await storage.store.getRecovery("acct");
    assert.deepEqual(kept.log.map((entry) => entry.request), [{ "$.balance": 1000000 }, {
      "$.balance": 150,
    }]);
    const verdict = await service.verifyAudit("acct");
    assert.equal(verdict.valid, false);
    assert.equal(verdict.firstBrokenSequence, 0);
    assert.match(verdict.detail, /^sequence 0: the stored log entry of this commit did not match it/);
    assert.match(verdict.detail, detail);
  } finally {
    await service.close();
  }
  // A restart does not forget it (the entries are gone, the recovery record is not) ...
  const again = await openService(keys, undefined, { auditSigner: signer });
  try {
    assert.equal((await again.service.verifyAudit("acct")).valid, false);
    // ... until the operator deletes the kept records: the signed trail itself is intact.
    assert.equal(await again.storage.store.deleteRecovery("acct"), 1);
    assert.deepEqual(await again.service.verifyAudit("acct"), {
      valid: true,
      recordsChecked: 2,
      firstBrokenSequence: null,
      detail: "ok",
    });
  } finally {
    await again.service.close();
  }
}

Deno.test("kv: a log entry whose request was altered is not replayed and verify reports it", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    await seed(keys);
    const kv = await openRawKv(dir);
    const [first] = await commitEntries(kv, "acct");
    await putCommitEntry(kv, {
      key: first.key,
      value: { ...first.value, request: { "$.balance": 1000000 } },
    });
    kv.close();
    await checkDetected(keys, /log entry 0: its request disagrees with audit record 0/);
  }));

Deno.test("kv: a log entry whose time was altered ($now() replays it) is not replayed either", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir };
    await seed(keys);
    const kv = await openRawKv(dir);
    const [first] = await commitEntries(kv, "acct");
    const value = { ...first.value, at: 0, request: { "$.balance": 1000000 } };
    await putCommitEntry(kv, { key: first.key, value });
    kv.close();
    await checkDetected(keys, /its time, request disagrees with audit record 0/);
  }));

Deno.test("filesystem: a journal entry whose request was altered is not replayed and verify reports it", () =>
  withTempDir(async (dir) => {
    const keys = { "svc.persistence-dir": dir, "svc.storage.type": "filesystem" };
    await seed(keys);
    const path = `${dir}/models/acct/journal.ndjson`;
    const lines = (await Deno.readTextFile(path)).split("\n");
    const line = JSON.parse(lines[0]);
    line.entry.request["$.balance"] = 1000000;
    lines[0] = JSON.stringify(line);
    await Deno.writeTextFile(path, lines.join("\n"));
    await checkDetected(keys, /log entry at journal line 0: its request disagrees with audit record 0/);
  }));

Deno.test("filesystem: a base state edited in model.json fails its SHA-256 and is kept for recovery", () =>
  withTempDir(async (dir) => {
    // A threshold of 1 folds each write into model.json's base.
    const keys = {
      "svc.persistence-dir": dir,
      "svc.storage.type": "filesystem",
      "svc.storage.compaction-threshold": "1",
      "svc.history.max-entries": "0",
    };
    await seed(keys);
    const path = `${dir}/models/acct/model.json`;
    const file = JSON.parse(await Deno.readTextFile(path));
    assert.deepEqual(file.base.doc, { balance: 150 });
    assert.equal(typeof file.baseSha256, "string");
    file.base.doc.balance = 1000000;
    await Deno.writeTextFile(path, JSON.stringify(file, null, 2));
    const { service, storage, warnings } = await openService(keys, undefined, { auditSigner: signer });
    try {
      assert.deepEqual(await service.getState("acct"), {});
      assert.ok(
        warnings.some((w) => /does not match its SHA-256.*RECOVERY NEEDED/.test(w)),
        warnings.join("\n"),
      );
      assert.deepEqual((await storage.store.getRecovery("acct"))[0].base?.doc, { balance: 1000000 });
    } finally {
      await service.close();
    }
    // Untouched, the checksum holds across restarts (JSON as parsed and written again).
    const clean = await openService(keys, undefined, { auditSigner: signer });
    try {
      await clean.service.mutate("acct", { "$.balance": 7 });
    } finally {
      await clean.service.close();
    }
    const reopened = await openService(keys, undefined, { auditSigner: signer });
    try {
      assert.deepEqual(await reopened.service.getState("acct"), { balance: 7 });
      assert.ok(!reopened.warnings.some((w) => /RECOVERY NEEDED/.test(w)), reopened.warnings.join("\n"));
    } finally {
      await reopened.service.close();
    }
  }));
