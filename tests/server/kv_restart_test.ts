/**
 * The server on Deno KV storage: what the REST API acknowledged is served again
 * after a restart on the same persistence directory.
 */
import assert from "node:assert/strict";
import { call, orderSpec, startTestServer, uploadBlob } from "./helpers.ts";

Deno.test("kv storage: models, state, history, audit and blobs survive a graceful restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-server-kv-" });
  const keys = { "svc.storage.type": "kv", "svc.persistence-dir": dir };
  try {
    const first = await startTestServer(keys);
    let blobId: string;
    try {
      assert.match(first.logs[0], /\(storage: kv \(.*svc\.kv\); auth: open\)$/);
      await call(first.url, "POST", "/models", orderSpec());
      await call(first.url, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 4 });
      await call(first.url, "POST", "/models/order/mutations/patch", [{
        op: "add",
        path: "/note",
        value: "kept",
      }]);
      blobId = (await uploadBlob(first.url, "durable bytes", { type: "text/plain" })).json.$blobId;
    } finally {
      await first.close();
    }

    const second = await startTestServer(keys);
    try {
      assert.deepEqual((await call(second.url, "GET", "/models")).json, ["order"]);
      assert.deepEqual((await call(second.url, "GET", "/models/order/state")).json, {
        qty: 2,
        price: 4,
        total: 8,
        note: "kept",
      });
      assert.equal((await call(second.url, "GET", "/models/order/history")).json.length, 2);
      const verify = (await call(second.url, "GET", "/models/order/audit/verify")).json;
      assert.deepEqual([verify.valid, verify.recordsChecked], [true, 2]);
      const blob = await fetch(`${second.url}/blobs/${blobId}`);
      assert.equal(blob.headers.get("content-type"), "text/plain");
      assert.equal(await blob.text(), "durable bytes");
      assert.equal(
        (await call(second.url, "POST", "/models/order/mutations", { "$.qty": 3 })).json.success,
        true,
      );
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
