/**
 * Tampering with the KV audit trail directly: an altered, reordered or deleted
 * record makes audit verify report `valid: false` with the first broken
 * sequence and a detail naming the failed check.
 */
import assert from "node:assert/strict";
import {
  type AuditRecord,
  type AuditVerification,
  GENESIS_HASH,
  sealRecord,
} from "../../engine/audit/chain.ts";
import { ed25519Signer } from "../../engine/audit/signing.ts";
import { webPlatform } from "../../engine/ports.ts";
import { decodeJson, encodeJson, recordMutations } from "../../server/stores/kv_values.ts";
import {
  commitEntries,
  type CommitEntry,
  openRawKv,
  openService,
  orderSpec,
  putCommitEntry,
  withTempDir,
} from "./helpers.ts";

const RECORDS = 5;

/**
 * Where the trail is tampered with: in the commit-log entries that carry the
 * records (the default), or on the records' own keys (every entry folded).
 */
const PLACEMENTS: { name: string; keys: Record<string, string> }[] = [
  { name: "in log entries", keys: {} },
  {
    name: "on their own keys",
    keys: { "svc.history.max-entries": "0", "svc.storage.compaction-threshold": "1" },
  },
];

async function seed(keys: Record<string, string>): Promise<void> {
  const { service } = await openService(keys);
  await service.createModel(orderSpec());
  await service.mutate("orders", { "$.customer": "Ada", "$.items": [{ name: "pen", price: 2, qty: 1 }] });
  for (let qty = 2; qty <= RECORDS; qty++) await service.mutate("orders", { "$.items[0].qty": qty });
  assert.equal((await service.verifyAudit("orders")).valid, true);
  await service.close();
}

const key = (sequence: number): Deno.KvKey => ["m", "orders", "audit", sequence];

/** The commit-log entry carrying the record of `sequence`, if one does. */
async function carrier(kv: Deno.Kv, sequence: number): Promise<CommitEntry | undefined> {
  return (await commitEntries(kv, "orders")).find((entry) =>
    (entry.value.auditHead as { sequence: number } | undefined)?.sequence === sequence
  );
}

async function read(kv: Deno.Kv, sequence: number): Promise<AuditRecord> {
  const entry = await carrier(kv, sequence);
  // Records this small are stored as their bytes (one chunk).
  return entry
    ? entry.value.audit as AuditRecord
    : decodeJson((await kv.get<Uint8Array>(key(sequence))).value!) as AuditRecord;
}

/** Replaces the record of `sequence` where it is stored: with a record, with garbage, or by nothing (deleted). */
async function write(kv: Deno.Kv, sequence: number, record: AuditRecord | "garbage" | null): Promise<void> {
  const entry = await carrier(kv, sequence);
  if (entry) {
    const { audit: _audit, ...rest } = entry.value;
    const audit = record === "garbage" ? "{garbage" : record;
    return putCommitEntry(kv, { key: entry.key, value: audit === null ? rest : { ...rest, audit } });
  }
  if (record === null) return kv.delete(key(sequence));
  const bytes = record === "garbage" ? new TextEncoder().encode("{garbage") : encodeJson(record);
  const { head } = recordMutations(key(sequence), bytes);
  await kv.set(head.key, head.value);
}

async function verifyAfter(
  keys: Record<string, string>,
  tamper: (kv: Deno.Kv) => Promise<unknown>,
): Promise<AuditVerification> {
  await seed(keys);
  const kv = await openRawKv(keys["svc.persistence-dir"]);
  try {
    await tamper(kv);
  } finally {
    kv.close();
  }
  const { service } = await openService(keys);
  try {
    return await service.verifyAudit("orders");
  } finally {
    await service.close();
  }
}

const CASES: {
  name: string;
  tamper: (kv: Deno.Kv) => Promise<unknown>;
  firstBroken: number;
  detail: RegExp;
}[] = [
  {
    name: "an altered record",
    tamper: async (kv) => write(kv, 2, { ...await read(kv, 2), mutations: { "$.items[0].qty": 99 } }),
    firstBroken: 2,
    detail: /sequence 2: content hash mismatch \(the record was altered\)/,
  },
  {
    name: "an altered timestamp",
    tamper: async (kv) => write(kv, 4, { ...await read(kv, 4), timestamp: "2020-01-01T00:00:00.000Z" }),
    firstBroken: 4,
    detail: /content hash mismatch/,
  },
  {
    name: "two records swapped",
    tamper: async (kv) => {
      const [one, two] = [await read(kv, 1), await read(kv, 2)];
      await write(kv, 1, two);
      await write(kv, 2, one);
    },
    firstBroken: 2,
    detail:
      /record at position 1 is not chained: sequence 2, expected 1 \(a record was reordered or deleted\)/,
  },
  {
    name: "two records swapped with their sequences renumbered",
    tamper: async (kv) => {
      const [one, two] = [await read(kv, 1), await read(kv, 2)];
      await write(kv, 1, { ...two, sequence: 1 });
      await write(kv, 2, { ...one, sequence: 2 });
    },
    firstBroken: 1,
    detail: /sequence 1: prevHash mismatch \(a record was reordered or deleted\)/,
  },
  {
    name: "a deleted record",
    tamper: (kv) => write(kv, 3, null),
    firstBroken: 3,
    detail: /sequence 3 is missing: the record was deleted \(the next stored is 4\)/,
  },
  {
    name: "a deleted first record",
    tamper: (kv) => write(kv, 0, null),
    firstBroken: 0,
    detail: /sequence 0 is missing: the record was deleted/,
  },
  {
    name: "a deleted newest record",
    tamper: (kv) => write(kv, RECORDS - 1, null),
    firstBroken: RECORDS - 1,
    detail: /sequence 4: prevHash mismatch \(a record was reordered or deleted\)/,
  },
  {
    name: "an unreadable record",
    tamper: (kv) => write(kv, 1, "garbage"),
    firstBroken: 1,
    detail: /sequence 1: content hash mismatch/,
  },
];

for (const placement of PLACEMENTS) {
  for (const { name, tamper, firstBroken, detail } of CASES) {
    Deno.test(`audit verify detects ${name} (records ${placement.name})`, () =>
      withTempDir(async (dir) => {
        const keys = { "svc.persistence-dir": dir, ...placement.keys };
        const result = await verifyAfter(keys, async (kv) => {
          const carried = (await commitEntries(kv, "orders")).filter((entry) => "audit" in entry.value);
          assert.equal(carried.length, placement.name === "in log entries" ? RECORDS : 0);
          await tamper(kv);
        });
        assert.equal(result.valid, false);
        assert.equal(result.firstBrokenSequence, firstBroken);
        assert.match(result.detail, detail);
        assert.ok(result.recordsChecked >= 1 && result.recordsChecked <= RECORDS);
      }));
  }

  Deno.test(`records appended after a deleted newest record keep the gap visible (records ${placement.name})`, () =>
    withTempDir(async (dir) => {
      const keys = { "svc.persistence-dir": dir, ...placement.keys };
      await seed(keys);
      const kv = await openRawKv(dir);
      await write(kv, RECORDS - 1, null);
      kv.close();
      const { service } = await openService(keys);
      await service.mutate("orders", { "$.customer": "Eve" });
      const sequences = (await service.getAudit("orders")).map((r) => r.sequence);
      assert.deepEqual(sequences, [RECORDS, RECORDS - 2, RECORDS - 3, RECORDS - 4, RECORDS - 5]);
      const result = await service.verifyAudit("orders");
      assert.equal(result.valid, false);
      assert.equal(result.firstBrokenSequence, RECORDS - 1, "the deleted record is named");
      assert.match(result.detail, /sequence 4 is missing/);
      await service.close();
    }));
}

Deno.test("with svc.audit.signing-key, a chain rewritten whole by someone without the key fails verify", () =>
  withTempDir(async (dir) => {
    const signer = await ed25519Signer(btoa(String.fromCharCode(...new Uint8Array(32).fill(3))));
    const first = await openService({ "svc.persistence-dir": dir }, undefined, { auditSigner: signer });
    await first.service.createModel(orderSpec());
    for (let qty = 1; qty <= 3; qty++) await first.service.mutate("orders", { "$.customer": `c${qty}` });
    assert.equal((await first.service.verifyAudit("orders")).valid, true);
    await first.service.close();

    // Someone who can write the store rewrites history and re-chains every record consistently.
    const kv = await openRawKv(dir);
    let prev = GENESIS_HASH;
    for (let sequence = 0; sequence < 3; sequence++) {
      const { prevHash: _p, hash: _h, signature: _s, ...body } = await read(kv, sequence);
      const forged = sequence === 1 ? { ...body, mutations: { "$.customer": "Mallory" } } : body;
      const record = await sealRecord(forged, prev, webPlatform().hasher);
      await write(kv, sequence, record);
      // The log entry beside the record is made to agree, or the load would notice it.
      const entry = await carrier(kv, sequence);
      if (entry && sequence === 1) {
        await putCommitEntry(kv, { key: entry.key, value: { ...entry.value, request: forged.mutations } });
      }
      prev = record.hash;
    }
    await kv.set(["m", "orders", "audit-head"], { sequence: 2, hash: prev });
    kv.close();

    const unsigned = await openService({ "svc.persistence-dir": dir });
    assert.equal(
      (await unsigned.service.verifyAudit("orders")).valid,
      true,
      "a hash chain alone cannot tell",
    );
    await unsigned.service.close();
    const signed = await openService({ "svc.persistence-dir": dir }, undefined, { auditSigner: signer });
    const result = await signed.service.verifyAudit("orders");
    assert.equal(result.valid, false);
    assert.match(result.detail, /chain head is not signed/);
    await signed.service.close();
  }));

Deno.test("the audit head rides in each commit's log entry and is kept on its own once the entries are folded", () =>
  withTempDir(async (dir) => {
    // No history and a threshold of 2: after these commits every log entry is folded.
    const keys = {
      "svc.persistence-dir": dir,
      "svc.history.max-entries": "0",
      "svc.storage.compaction-threshold": "2",
    };
    const first = await openService(keys);
    await first.service.createModel(orderSpec());
    for (let qty = 1; qty <= 4; qty++) await first.service.mutate("orders", { "$.customer": `c${qty}` });
    await first.service.close();

    const kv = await openRawKv(dir);
    const head = (await kv.get<{ sequence: number }>(["m", "orders", "audit-head"])).value;
    assert.equal(head?.sequence, 3, "the head of the folded entries is stored on its own");
    await kv.delete(key(3));
    kv.close();

    const { service } = await openService(keys);
    const result = await service.verifyAudit("orders");
    assert.equal(result.valid, false);
    assert.equal(result.firstBrokenSequence, 3);
    await service.close();
  }));

Deno.test("a log entry's head newer than the stored one counts, and a stored head from before still does", () =>
  withTempDir(async (dir) => {
    await seed({ "svc.persistence-dir": dir });
    const kv = await openRawKv(dir);
    // A store written before heads rode in log entries: the head on its own, log entries without one.
    await kv.set(["m", "orders", "audit-head"], {
      sequence: RECORDS - 1,
      hash: (await read(kv, RECORDS - 1)).hash,
    });
    await write(kv, RECORDS - 1, null);
    for (const entry of await commitEntries(kv, "orders")) {
      const { auditHead: _head, ...logged } = entry.value;
      await putCommitEntry(kv, { key: entry.key, value: logged });
    }
    kv.close();
    const { service } = await openService({ "svc.persistence-dir": dir });
    const result = await service.verifyAudit("orders");
    assert.equal(result.firstBrokenSequence, RECORDS - 1, "the stored head names the deleted newest record");
    // New commits carry their head again; the gap stays visible.
    await service.mutate("orders", { "$.customer": "Eve" });
    assert.equal((await service.verifyAudit("orders")).firstBrokenSequence, RECORDS - 1);
    await service.close();
  }));
