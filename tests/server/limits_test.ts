/**
 * Limits on a real server: the per-IP rate limit, the per-model mutation queue
 * under concurrent requests, the model limit, the model id length, request body and
 * blob caps.
 */
import assert from "node:assert/strict";
import { MemoryBlobStore, MemoryModelStore } from "../../engine/service/memory.ts";
import { call, orderSpec, startTestServer, uploadBlob } from "./helpers.ts";

/** A model store whose commits wait until the test opens the gate. */
class GatedStore extends MemoryModelStore {
  #gate = Promise.withResolvers<void>();
  #entered = Promise.withResolvers<void>();
  override async commit(...args: Parameters<MemoryModelStore["commit"]>): Promise<void> {
    this.#entered.resolve();
    await this.#gate.promise;
    return super.commit(...args);
  }
  /** Resolves once a commit is waiting at the gate. */
  waiting(): Promise<void> {
    return this.#entered.promise;
  }
  open(): void {
    this.#gate.resolve();
  }
}

Deno.test("rate limit: 429 with Retry-After once a client used its window", async () => {
  const server = await startTestServer({
    "svc.rate-limit.enabled": "true",
    "svc.rate-limit.requests": "3",
    "svc.rate-limit.window-seconds": "60",
  });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await call(server.url, "GET", "/models")).status, 200);
    const refused = await call(server.url, "GET", "/models");
    assert.equal(refused.status, 429);
    assert.equal((await call(server.url, "GET", "/actuator/health")).status, 200, "health is never limited");
    assert.equal(refused.headers.get("content-type"), "application/problem+json");
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(refused.headers.get("x-frame-options"), "DENY", "security headers on refusals too");
  } finally {
    await server.close();
  }
});

Deno.test("mutation queue: concurrent writes beyond svc.mutation-queue-size get 429 with Retry-After, the rest commit", async () => {
  const store = new GatedStore();
  const server = await startTestServer({ "svc.mutation-queue-size": "3" }, {
    storage: { store, blobs: new MemoryBlobStore(), description: "gated memory" },
  });
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const first = call(server.url, "POST", "/models/order/mutations", { "$.qty": 1 });
    await store.waiting();
    const rest = Array.from(
      { length: 7 },
      (_, i) => call(server.url, "POST", "/models/order/mutations", { "$.qty": i + 2 }),
    );
    // Queue size 3: one executes (held at the gate), two wait; the other five are refused at once.
    const refused = Promise.withResolvers<void>();
    let settled = 0;
    for (const reply of rest) reply.then(() => ++settled === 5 && refused.resolve());
    await refused.promise;
    store.open();
    const replies = await Promise.all([first, ...rest]);
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, 200, 200, 429, 429, 429, 429, 429]);
    const refusal = replies.find((r) => r.status === 429)!;
    assert.match(refusal.json.detail, /svc\.mutation-queue-size = 3/);
    assert.equal(refusal.headers.get("retry-after"), "1", "a queue frees up within moments");
    assert.equal(
      (await call(server.url, "GET", "/models/order/audit")).json.length,
      3,
      "only accepted writes",
    );
  } finally {
    store.open();
    await server.close();
  }
});

Deno.test("model limit: create beyond svc.max-models gets 429", async () => {
  const server = await startTestServer({ "svc.max-models": "2" });
  try {
    assert.equal((await call(server.url, "POST", "/models", orderSpec("a"))).status, 201);
    assert.equal((await call(server.url, "POST", "/models", orderSpec("b"))).status, 201);
    const refused = await call(server.url, "POST", "/models", orderSpec("c"));
    assert.equal(refused.status, 429);
    assert.match(refused.json.detail, /svc\.max-models = 2/);
    assert.deepEqual((await call(server.url, "GET", "/models")).json, ["a", "b"]);
  } finally {
    await server.close();
  }
});

Deno.test("model id: over 1024 characters is a 422 finding at id; the longest is served by every route", async () => {
  const server = await startTestServer();
  try {
    const refused = await call(server.url, "POST", "/models", orderSpec("a".repeat(100_001)));
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.json.errors, [
      { location: "id", message: "an id is at most 1024 characters; this one has 100001" },
    ]);
    assert.deepEqual((await call(server.url, "GET", "/models")).json, []);

    const longest = `shop/${"a".repeat(1019)}`;
    assert.equal((await call(server.url, "POST", "/models", orderSpec(longest))).status, 201);
    const path = `/models/${encodeURIComponent(longest)}`;
    assert.equal((await call(server.url, "GET", path)).status, 200);
    assert.equal((await call(server.url, "DELETE", path)).status, 204);
  } finally {
    await server.close();
  }
});

Deno.test("body caps: JSON over svc.http.max-body-size and multipart over its caps answer 413", async () => {
  const server = await startTestServer({
    "svc.http.max-body-size": "2KB",
    "svc.multipart.max-request-size": "8KB",
    "svc.multipart.max-file-size": "4KB",
  });
  try {
    await call(server.url, "POST", "/models", orderSpec());
    const big = await call(server.url, "POST", "/models/order/mutations", { "$.note": "x".repeat(3000) });
    assert.equal(big.status, 413);
    assert.match(big.json.detail, /2048 bytes/);
    assert.equal((await call(server.url, "GET", "/models/order/state")).json.note, undefined);

    const upload = (size: number) => uploadBlob(server.url, new Uint8Array(size));
    assert.equal((await upload(3000)).status, 201, "JSON cap does not apply to multipart");
    const overFile = await upload(5000);
    assert.equal(overFile.status, 413);
    assert.match(overFile.json.detail, /svc\.multipart\.max-file-size/);
    assert.equal((await upload(9000)).status, 413, "over the whole-request cap");
  } finally {
    await server.close();
  }
});

Deno.test("blob caps: svc.blob.max-bytes and the total budget answer 413", async () => {
  const server = await startTestServer({ "svc.blob.max-bytes": "1000", "svc.blob.max-total-bytes": "1500" });
  try {
    const upload = (size: number, fill: number) => uploadBlob(server.url, new Uint8Array(size).fill(fill));
    const tooBig = await upload(1001, 1);
    assert.equal(tooBig.status, 413);
    assert.match(tooBig.json.detail, /svc\.blob\.max-bytes/);
    assert.equal((await upload(1000, 2)).status, 201);
    const overBudget = await upload(600, 3);
    assert.equal(overBudget.status, 413);
    assert.match(overBudget.json.detail, /svc\.blob\.max-total-bytes/);
    assert.equal((await upload(1000, 2)).status, 201, "the same content is already stored");
  } finally {
    await server.close();
  }
});
