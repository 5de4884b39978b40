import assert from "node:assert/strict";
import { webPlatform } from "../ports.ts";
import { type AuditRecord, GENESIS_HASH, sealRecord, verifyChain } from "./chain.ts";
import { ed25519Signer } from "./signing.ts";

const hasher = webPlatform().hasher;
const seed = (byte: number) => btoa(String.fromCharCode(...new Uint8Array(32).fill(byte)));

async function signedChain(key: string, n: number): Promise<AuditRecord[]> {
  const signer = await ed25519Signer(key);
  const records: AuditRecord[] = [];
  let prev = GENESIS_HASH;
  for (let i = 0; i < n; i++) {
    const record = await sealRecord(
      {
        modelId: "m",
        sequence: i,
        timestamp: new Date(i).toISOString(),
        modelVersion: "1.0.0",
        source: "client",
        mutations: { "$.n": i },
        derivedUpdated: [],
        flaggedConstraints: [],
        dispatchedEffects: [],
        traces: [],
      },
      prev,
      hasher,
      signer,
    );
    records.push(record);
    prev = record.hash;
  }
  return records;
}

Deno.test("signed records verify with the key; the signature is outside the hash", async () => {
  const signer = await ed25519Signer(seed(7));
  const records = await signedChain(seed(7), 3);
  assert.ok(records.every((r) => typeof r.signature === "string"));
  assert.deepEqual(await verifyChain(records, hasher, signer), {
    valid: true,
    recordsChecked: 3,
    firstBrokenSequence: null,
    detail: "ok",
  });
  assert.equal((await verifyChain(records, hasher)).valid, true, "the hash chain alone still verifies");
});

Deno.test("a chain rewritten whole by someone without the key fails verification", async () => {
  const signer = await ed25519Signer(seed(7));
  // The attacker rebuilds a consistent chain with another key, or with none.
  const forged = await signedChain(seed(9), 3);
  const result = await verifyChain(forged, hasher, signer);
  assert.equal(result.valid, false);
  assert.equal(result.firstBrokenSequence, 0);
  assert.match(result.detail, /signature does not verify/);
  const unsigned = forged.map(({ signature: _s, ...rest }) => rest);
  const head = await verifyChain(unsigned, hasher, signer);
  assert.equal(head.firstBrokenSequence, 2);
  assert.match(head.detail, /chain head is not signed/);
});

Deno.test("an unsigned head says whether any record is signed, and never verifies", async () => {
  const signer = await ed25519Signer(seed(7));
  const signed = await signedChain(seed(7), 3);
  // Written before the key was set: no record is signed. The verdict stays invalid (a stripped signature
  // looks the same) but names both causes and what signs it.
  const before = await verifyChain(signed.map(({ signature: _s, ...rest }) => rest), hasher, signer);
  assert.equal(before.valid, false);
  assert.equal(before.firstBrokenSequence, 2);
  assert.match(
    before.detail,
    /nor is any record: the chain was last written before svc.audit.signing-key was set/,
  );
  assert.match(before.detail, /or rewritten whole without the key; the model's next write signs a new head/);
  // Signed up to 0, unsigned after: a suffix written without the key.
  const suffix = signed.map((record, i) => i === 0 ? record : { ...record, signature: undefined });
  const after = await verifyChain(
    suffix.map(({ signature, ...rest }) => signature ? { ...rest, signature } : rest),
    hasher,
    signer,
  );
  assert.equal(after.valid, false);
  assert.equal(after.firstBrokenSequence, 2);
  assert.match(
    after.detail,
    /though sequence 0 is: the records after it were written without the signing key/,
  );
});

Deno.test("a malformed key is refused without echoing it", async () => {
  await assert.rejects(() => ed25519Signer("not-a-key-XYZ"), (err: Error) => !err.message.includes("XYZ"));
});
