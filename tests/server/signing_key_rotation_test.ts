/**
 * Replacing `svc.audit.signing-key` (a routine rotation, or a key that leaked):
 * the records the old key signed verify when `svc.audit.retired-public-keys`
 * lists its public key, which the server logs at startup; without it every
 * trail the old key signed fails verification with a detail that says so.
 */
import assert from "node:assert/strict";
import { call, orderSpec, startTestServer } from "./helpers.ts";

/** A base64 32-byte Ed25519 seed. */
const seed = (byte: number) => btoa(String.fromCharCode(...new Uint8Array(32).fill(byte)));
const OLD_KEY = seed(7);
const NEW_KEY = seed(9);

/** Runs `body` against a server over `keys`, closed afterwards; returns its log. */
async function served(keys: Record<string, string>, body: (url: string) => Promise<void>): Promise<string[]> {
  const server = await startTestServer(keys);
  try {
    await body(server.url);
  } finally {
    await server.close();
  }
  return server.logs;
}

/** The public key a startup log line names. */
function loggedPublicKey(logs: string[]): string {
  const line = logs.find((line) => line.includes("Ed25519 public key"));
  assert.ok(line, `no line names the public key: ${logs.join("\n")}`);
  return /Ed25519 public key ([A-Za-z0-9+/=]+)/.exec(line)![1];
}

Deno.test("a replaced signing key: the old key's records verify once its logged public key is listed as retired", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-key-rotation-" });
  const store = { "svc.storage.type": "kv", "svc.persistence-dir": dir };
  try {
    const oldLogs = await served({ ...store, "svc.audit.signing-key": OLD_KEY }, async (url) => {
      assert.equal((await call(url, "POST", "/models", orderSpec())).status, 201);
      assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 2 })).status, 200);
    });
    const oldPublic = loggedPublicKey(oldLogs);
    assert.equal(atob(oldPublic).length, 32);
    assert.ok(!oldLogs.some((line) => line.includes(OLD_KEY)), "the private key is never logged");

    // The new key alone: the old records are signed by a key it does not know, which verify says.
    await served({ ...store, "svc.audit.signing-key": NEW_KEY }, async (url) => {
      const verify = (await call(url, "GET", "/models/order/audit/verify")).json;
      assert.equal(verify.valid, false);
      assert.equal(verify.firstBrokenSequence, 0);
      assert.match(
        verify.detail,
        /^sequence 0: signature does not verify: .*svc\.audit\.retired-public-keys/,
      );
    });

    // With the old public key listed, both keys' records verify, and writes go on under the new key.
    const newLogs = await served(
      { ...store, "svc.audit.signing-key": NEW_KEY, "svc.audit.retired-public-keys": ` ${oldPublic} ` },
      async (url) => {
        assert.deepEqual((await call(url, "GET", "/models/order/audit/verify")).json.valid, true);
        assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 3 })).status, 200);
        const verify = (await call(url, "GET", "/models/order/audit/verify")).json;
        assert.deepEqual([verify.valid, verify.recordsChecked], [true, 2]);
      },
    );
    assert.notEqual(loggedPublicKey(newLogs), oldPublic);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a retired public key that is not one aborts startup naming the key", async () => {
  for (const value of ["not base64!", btoa("too short")]) {
    await assert.rejects(
      startTestServer({ "svc.audit.signing-key": OLD_KEY, "svc.audit.retired-public-keys": value }),
      /svc\.audit\.retired-public-keys \(SVC_AUDIT_RETIRED_PUBLIC_KEYS\).*32-byte Ed25519 public key/,
    );
  }
});
