/**
 * Tampering with the KV audit trail directly: an altered, reordered or deleted
 * record makes audit verify report `valid: false` with the first broken
 * sequence and a detail naming the failed check.
 */
import assert from "node:assert/strict";
import type { AuditRecord, AuditVerification } from "../../engine/audit/chain.ts";
import { decodeJson, encodeJson, recordMutations } from "../../server/stores/kv_values.ts";
import { openRawKv, openService, orderSpec, withTempDir } from "./helpers.ts";

const RECORDS = 5;

async function seed(dir: string): Promise<void> {
  const { service } = await openService({ "svc.persistence-dir": dir });
  await service.createModel(orderSpec());
  await service.mutate("orders", { "$.customer": "Ada", "$.items": [{ name: "pen", price: 2, qty: 1 }] });
  for (let qty = 2; qty <= RECORDS; qty++) await service.mutate("orders", { "$.items[0].qty": qty });
  assert.equal((await service.verifyAudit("orders")).valid, true);
  await service.close();
}

const key = (sequence: number): Deno.KvKey => ["m", "orders", "audit", sequence];

async function read(kv: Deno.Kv, sequence: number): Promise<AuditRecord> {
  // Records this small are stored as their bytes (one chunk).
  return decodeJson((await kv.get<Uint8Array>(key(sequence))).value!) as AuditRecord;
}

async function write(kv: Deno.Kv, sequence: number, record: AuditRecord): Promise<void> {
  const { head } = recordMutations(key(sequence), encodeJson(record));
  await kv.set(head.key, head.value);
}

async function verifyAfter(
  dir: string,
  tamper: (kv: Deno.Kv) => Promise<unknown>,
): Promise<AuditVerification> {
  await seed(dir);
  const kv = await openRawKv(dir);
  try {
    await tamper(kv);
  } finally {
    kv.close();
  }
  const { service } = await openService({ "svc.persistence-dir": dir });
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
    tamper: (kv) => kv.delete(key(3)),
    firstBroken: 4,
    detail: /record at position 3 is not chained: sequence 4, expected 3/,
  },
  {
    name: "a deleted first record",
    tamper: (kv) => kv.delete(key(0)),
    firstBroken: 1,
    detail: /record at position 0 is not chained/,
  },
  {
    name: "a deleted newest record",
    tamper: (kv) => kv.delete(key(RECORDS - 1)),
    firstBroken: RECORDS - 1,
    detail: /sequence 4: prevHash mismatch \(a record was reordered or deleted\)/,
  },
  {
    name: "an unreadable record",
    tamper: (kv) => kv.set(key(1), new TextEncoder().encode("{garbage")),
    firstBroken: 1,
    detail: /sequence 1: content hash mismatch/,
  },
];

for (const { name, tamper, firstBroken, detail } of CASES) {
  Deno.test(`audit verify detects ${name}`, () =>
    withTempDir(async (dir) => {
      const result = await verifyAfter(dir, tamper);
      assert.equal(result.valid, false);
      assert.equal(result.firstBrokenSequence, firstBroken);
      assert.match(result.detail, detail);
      assert.ok(result.recordsChecked >= 1 && result.recordsChecked <= RECORDS);
    }));
}

Deno.test("records appended after a deleted newest record keep the gap visible", () =>
  withTempDir(async (dir) => {
    await seed(dir);
    const kv = await openRawKv(dir);
    await kv.delete(key(RECORDS - 1));
    kv.close();
    const { service } = await openService({ "svc.persistence-dir": dir });
    await service.mutate("orders", { "$.customer": "Eve" });
    const sequences = (await service.getAudit("orders")).map((r) => r.sequence);
    assert.deepEqual(sequences, [RECORDS, RECORDS - 2, RECORDS - 3, RECORDS - 4, RECORDS - 5]);
    const result = await service.verifyAudit("orders");
    assert.equal(result.valid, false);
    assert.equal(result.firstBrokenSequence, RECORDS);
    await service.close();
  }));
