/**
 * The server on Deno KV storage: what the REST API acknowledged is served again
 * after a restart on the same persistence directory.
 */
import assert from "node:assert/strict";
import type { ServiceEvent } from "../../engine/service/service.ts";
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

Deno.test("kv storage: a stored model a stricter start refuses answers 409, and an evolution repairs it for good", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-server-kv-" });
  const keys = { "svc.storage.type": "kv", "svc.persistence-dir": dir };
  // Its caller effect is refused where only server effects are enabled.
  const strict = { ...keys, "svc.effects.kinds.enabled": "server" };
  const restarted = async (keys: Record<string, string>, run: (url: string) => Promise<void>) => {
    const server = await startTestServer(keys);
    try {
      await run(server.url);
    } finally {
      await server.close();
    }
  };
  try {
    await restarted(keys, async (url) => {
      await call(url, "POST", "/models", orderSpec());
      await call(url, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 4 });
    });
    await restarted(strict, async (url) => {
      assert.deepEqual((await call(url, "GET", "/models")).json, []);
      const info = await call(url, "GET", "/models/order");
      assert.equal(info.status, 409);
      assert.equal(info.headers.get("content-type"), "application/problem+json");
      assert.match(
        info.json.detail,
        /stored but not loaded.*POST \/models\/order\/spec\/evolve/,
      );
      const { errors } = info.json;
      assert.deepEqual(info.json, {
        error: "Model not loaded",
        detail: info.json.detail,
        modelId: "order",
        errors,
      });
      assert.deepEqual(errors.map((f: { location: string }) => f.location), ["effects[0].executor"]);
      assert.equal((await call(url, "GET", "/models/order/state")).status, 409);
      assert.deepEqual((await call(url, "GET", "/admin/unloaded-models")).json, [{ id: "order", errors }]);
      const refused = await call(url, "POST", "/models/order/spec/evolve", { newVersion: "1.1.0" });
      assert.equal(refused.status, 422);
      const evolved = await call(url, "POST", "/models/order/spec/evolve", { removeEffects: ["notify"] });
      assert.deepEqual([evolved.status, evolved.json], [200, { id: "order", version: "1.0.0" }]);
      assert.equal((await call(url, "POST", "/models/order/mutations", { "$.qty": 3 })).json.success, true);
    });
    await restarted(strict, async (url) => {
      assert.deepEqual((await call(url, "GET", "/models")).json, ["order"]);
      assert.deepEqual((await call(url, "GET", "/models/order/state")).json, { qty: 3, price: 4, total: 12 });
      const verify = (await call(url, "GET", "/models/order/audit/verify")).json;
      assert.deepEqual([verify.valid, verify.recordsChecked], [true, 2]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("kv storage: deleting a stored model that did not load is heard as a loaded model's deletion is", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-server-kv-" });
  const keys = { "svc.storage.type": "kv", "svc.persistence-dir": dir };
  try {
    const first = await startTestServer(keys);
    try {
      await call(first.url, "POST", "/models", orderSpec());
      await call(first.url, "POST", "/models", { ...orderSpec("plain"), effects: [] });
    } finally {
      await first.close();
    }
    // Its caller effect is refused where only server effects are enabled: `order` does not load, `plain` does.
    const server = await startTestServer({ ...keys, "svc.effects.kinds.enabled": "server" });
    try {
      const heard: ServiceEvent[] = [];
      server.service.subscribe((event) => heard.push(event));
      assert.equal(
        (await call(server.url, "GET", "/models/order/subscribe")).status,
        409,
        "not subscribable",
      );
      for (const id of ["order", "plain"]) {
        assert.equal((await call(server.url, "DELETE", `/models/${id}`)).status, 204);
      }
      assert.deepEqual(heard, [{ type: "deleted", modelId: "order" }, { type: "deleted", modelId: "plain" }]);
      assert.deepEqual((await call(server.url, "GET", "/admin/unloaded-models")).json, []);
      assert.equal(
        (await call(server.url, "GET", "/models/order/subscribe")).status,
        404,
        "gone, as unknown",
      );
    } finally {
      await server.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
