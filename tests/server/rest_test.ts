/**
 * Every REST route of the server against a real server on a loopback port:
 * happy paths, the status codes of SPEC.md's error table and their bodies.
 */
import assert from "node:assert/strict";
import { call, orderSpec, seg, startTestServer, uploadBlob } from "./helpers.ts";

Deno.test("models: list, create (201 + Location), info, spec, duplicate 409, invalid 422, delete 204", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    assert.deepEqual((await call(base, "GET", "/models")).json, []);

    const created = await call(base, "POST", "/models", orderSpec());
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("location"), "/models/order");
    assert.deepEqual(created.json, { id: "order", status: "created" });

    const namespaced = await call(base, "POST", "/models", orderSpec("acme/order"));
    assert.equal(namespaced.status, 201);
    assert.equal(namespaced.headers.get("location"), "/models/acme%2Forder");
    assert.equal((await call(base, "GET", "/models/acme%2Forder")).json.id, "acme/order");

    assert.deepEqual((await call(base, "GET", "/models")).json, ["acme/order", "order"]);
    assert.deepEqual((await call(base, "GET", "/models/order")).json, {
      id: "order",
      version: "1.0.0",
      derivationCount: 1,
      metaDerivationCount: 0,
      constraintCount: 2,
      effectCount: 1,
    });
    const spec = await call(base, "GET", "/models/order/spec");
    assert.equal(spec.status, 200);
    assert.equal(spec.json.id, "order");
    assert.equal(spec.json.derivations[0].expr, "qty * price");

    const duplicate = await call(base, "POST", "/models", orderSpec());
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.headers.get("content-type"), "application/problem+json");
    assert.equal(duplicate.json.status, 409);
    assert.equal(duplicate.json.title, "Conflict");
    assert.equal(duplicate.json.detail, "Model 'order' already exists: delete it first, or evolve its spec");

    const invalid = await call(base, "POST", "/models", {
      id: "bad",
      schema: { type: "object" },
      derivations: [{ path: "total", expr: "(" }],
    });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.json.error, "Spec validation failed");
    assert.ok(invalid.json.errors.length >= 2, "every finding is reported");
    for (const finding of invalid.json.errors) {
      assert.equal(typeof finding.location, "string");
      assert.equal(typeof finding.message, "string");
    }

    const malformed = await call(base, "POST", "/models", "{not json");
    assert.equal(malformed.status, 400);
    assert.match(malformed.json.detail, /^Malformed JSON: /);
    assert.equal((await call(base, "POST", "/models", "")).status, 400);

    const deleted = await call(base, "DELETE", "/models/order");
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, "");
    assert.equal((await call(base, "DELETE", "/models/order")).status, 404);
    for (const path of ["/models/order", "/models/order/spec"]) {
      const missing = await call(base, "GET", path);
      assert.equal(missing.status, 404);
      assert.match(missing.json.detail, /Model 'order' not found/);
    }
  } finally {
    await server.close();
  }
});

Deno.test("mutations: flat map, JSON Patch, rollback 409, schema 422, array limit 422, malformed 400", async () => {
  const server = await startTestServer({ "svc.limits.max-array-index": "10" });
  try {
    const base = server.url;
    await call(base, "POST", "/models", orderSpec());

    const ok = await call(base, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 3.5 });
    assert.equal(ok.status, 200);
    assert.equal(ok.json.success, true);
    assert.deepEqual(ok.json.mutatedPaths, ["$.qty", "$.price"]);
    assert.deepEqual(ok.json.derivedUpdated, ["$.total"]);
    assert.deepEqual(ok.json.flaggedConstraints, []);
    assert.equal("viewDelta" in ok.json, false, "viewDelta only with X-View");

    const flagged = await call(base, "POST", "/models/order/mutations", { "$.qty": 60, "$.price": 10 });
    assert.equal(flagged.status, 200);
    assert.deepEqual(flagged.json.flaggedConstraints, [
      { constraintId: "big-order", message: "large order", policy: "flag" },
    ]);
    assert.equal(flagged.json.dispatchedEffects[0].effectId, "notify");

    const rollback = await call(base, "POST", "/models/order/mutations", { "$.qty": 101 });
    assert.equal(rollback.status, 409);
    assert.equal(rollback.headers.get("content-type"), "application/problem+json");
    assert.deepEqual(rollback.json, {
      error: "Constraint violation",
      violations: [{ constraintId: "max-qty", message: "qty must not exceed 100", policy: "rollback" }],
    });

    const schema = await call(base, "POST", "/models/order/mutations", { "$.qty": -1 });
    assert.equal(schema.status, 422);
    assert.deepEqual(schema.json, {
      error: "Schema violation",
      violations: [{ path: "$.qty", keyword: "minimum", message: schema.json.violations[0].message }],
    });

    const beyond = await call(base, "POST", "/models/order/mutations", { "$.items[11].sku": "x" });
    assert.equal(beyond.status, 422);
    assert.equal(beyond.json.status, 422);

    const state = await call(base, "GET", "/models/order/state");
    assert.deepEqual(state.json, { qty: 60, price: 10, total: 600 }, "rejected writes left state untouched");

    const patch = await call(
      base,
      "POST",
      "/models/order/mutations/patch",
      JSON.stringify([{ op: "add", path: "/items", value: [] }, {
        op: "add",
        path: "/items/-",
        value: { sku: "a" },
      }]),
      { "content-type": "application/json-patch+json" },
    );
    assert.equal(patch.status, 200);
    assert.deepEqual((await call(base, "GET", `/models/order/state/${seg("$.items[0].sku")}`)).json, "a");

    const patchRollback = await call(base, "POST", "/models/order/mutations/patch", [
      { op: "replace", path: "/qty", value: 500 },
    ]);
    assert.equal(patchRollback.status, 409);
    assert.equal(patchRollback.json.error, "Constraint violation");

    assert.equal((await call(base, "POST", "/models/order/mutations", "{")).status, 400);
    assert.equal((await call(base, "POST", "/models/order/mutations", [1])).status, 400);
    assert.equal((await call(base, "POST", "/models/order/mutations/patch", { op: "add" })).status, 400);
    assert.equal((await call(base, "POST", "/models/nope/mutations", { "$.qty": 1 })).status, 404);
    assert.equal((await call(base, "POST", "/models/nope/mutations/patch", [])).status, 404);
  } finally {
    await server.close();
  }
});

Deno.test("reads: state, at, fields by encoded address, history, schema, explain, graph, verification", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    await call(base, "POST", "/models", orderSpec());
    const before = new Date().toISOString();
    assert.equal((await call(base, "GET", `/models/order/state?at=${before}`)).status, 404, "no history yet");
    await call(base, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 3 });
    await call(base, "POST", "/models/order/mutations", { "$.qty": 4 });

    assert.deepEqual((await call(base, "GET", "/models/order/state")).json, { qty: 4, price: 3, total: 12 });
    const history = (await call(base, "GET", "/models/order/history")).json;
    assert.equal(history.length, 2);
    const first = await call(base, "GET", `/models/order/state?at=${encodeURIComponent(history[0])}`);
    assert.deepEqual(first.json, { qty: 2, price: 3, total: 6 });
    const badAt = await call(base, "GET", "/models/order/state?at=yesterday");
    assert.equal(badAt.status, 400);
    assert.match(badAt.json.detail, /ISO-8601/);

    assert.equal((await call(base, "GET", `/models/order/state/${seg("$.total")}`)).json, 12);
    assert.equal(
      (await call(base, "GET", "/models/order/state/total")).json,
      12,
      "unrooted is canonicalised",
    );
    const absent = await call(base, "GET", `/models/order/state/${seg("$.note")}`);
    assert.equal(absent.status, 404);
    assert.match(absent.json.detail, /\$\.note/);
    assert.equal((await call(base, "GET", `/models/order/state/${seg("$.[")}`)).status, 400);

    const schema = await call(base, "GET", `/models/order/schema/${seg("$.qty")}`);
    assert.deepEqual(schema.json, { type: "integer", minimum: 0 });
    assert.equal((await call(base, "GET", `/models/order/schema/${seg("$.total")}`)).json.readOnly, true);

    const explained = await call(base, "GET", `/models/order/explain/${seg("$.total")}`);
    assert.equal(explained.json.length, 2, "two mutations (creation computed nothing)");
    assert.equal(explained.json.at(-1).result, 12);
    assert.equal((await call(base, "GET", `/models/order/explain/${seg("$.total")}?limit=1`)).json.length, 1);
    assert.equal((await call(base, "GET", `/models/order/explain/${seg("$.total")}?limit=x`)).status, 400);
    const constraint = await call(base, "GET", "/models/order/explain/%24constraint%3Amax-qty");
    assert.equal(constraint.json.at(-1).targetPath, "$constraint:max-qty");
    assert.equal(constraint.json.at(-1).constraintPassed, true);

    const graph = (await call(base, "GET", "/models/order/graph")).json;
    assert.equal(graph.modelId, "order");
    assert.ok(
      graph.nodes.some((n: { key: string; kind: string }) => n.key === "$.total" && n.kind === "DERIVED"),
    );
    const verification = (await call(base, "GET", "/models/order/verification")).json;
    assert.equal(verification.state, "green");
    assert.equal(verification.checkedCount, 1);

    for (
      const path of ["state", "history", "graph", "verification", `schema/${seg("$.qty")}`, "explain/total"]
    ) {
      assert.equal((await call(base, "GET", `/models/nope/${path}`)).status, 404, path);
    }
  } finally {
    await server.close();
  }
});

Deno.test("audit: newest first, path/from/to/limit filters, 400 on bad input, verify", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    await call(base, "POST", "/models", orderSpec());
    await call(base, "POST", "/models/order/mutations", { "$.qty": 1 });
    await call(base, "POST", "/models/order/mutations", { "$.price": 2 });
    await call(base, "POST", "/models/order/mutations/patch", [{ op: "add", path: "/note", value: "n" }]);

    const all = (await call(base, "GET", "/models/order/audit")).json;
    assert.deepEqual(all.map((r: { sequence: number }) => r.sequence), [2, 1, 0]);
    assert.equal(all[0].source, "patch");
    assert.equal(all[2].prevHash, "0".repeat(64));
    const byPath = (await call(base, "GET", `/models/order/audit?path=${seg("$.price")}`)).json;
    assert.deepEqual(byPath.map((r: { sequence: number }) => r.sequence), [1]);
    assert.equal((await call(base, "GET", "/models/order/audit?limit=1")).json.length, 1);
    const future = new Date(Date.now() + 60_000).toISOString();
    assert.deepEqual((await call(base, "GET", `/models/order/audit?from=${future}`)).json, []);
    assert.equal((await call(base, "GET", `/models/order/audit?to=${future}`)).json.length, 3);
    assert.equal((await call(base, "GET", "/models/order/audit?from=notatime")).status, 400);
    assert.equal((await call(base, "GET", "/models/order/audit?to=2020-13-45")).status, 400);
    // Dates and times off the calendar are refused, not rolled over.
    assert.equal((await call(base, "GET", "/models/order/audit?from=2099-02-30T00:00:00Z")).status, 400);
    for (const at of ["2099-04-31T00:00:00Z", "2099-01-01T24:00:00Z"]) {
      const state = await call(base, "GET", `/models/order/state?at=${at}`);
      assert.equal(state.status, 400, at);
      assert.match(state.json.detail, /'at' is not an ISO-8601 timestamp/);
    }
    assert.equal((await call(base, "GET", "/models/order/audit?limit=0")).status, 400);
    assert.equal(
      (await call(base, "GET", "/models/order/audit?limit=99999999999999999999")).json.detail,
      "Invalid query parameter 'limit': must be at most 10000",
    );
    // The path prefix reads as state/{path}: unrooted is canonicalised, malformed is a 400.
    const unrooted = (await call(base, "GET", "/models/order/audit?path=price")).json;
    assert.deepEqual(unrooted.map((r: { sequence: number }) => r.sequence), [1]);
    const malformed = await call(base, "GET", `/models/order/audit?path=${seg("$[")}`);
    assert.equal(malformed.status, 400);
    assert.match(malformed.json.detail, /'\$\[' is not a valid address/);
    assert.equal((await call(base, "GET", "/models/order/audit?limit=-3")).status, 400);
    // An argument's error names it where the caller wrote it.
    assert.match(
      (await call(base, "GET", "/models/order/audit?limit=-3")).json.detail,
      /query parameter 'limit'/,
    );
    // A value that is not a number is worded as the other argument errors (README "Surfaces").
    assert.equal(
      (await call(base, "GET", "/models/order/audit?limit=abc")).json.detail,
      "Invalid query parameter 'limit': expected integer",
    );
    assert.equal(
      (await call(base, "POST", "/admin/blobs/gc?apply=maybe")).json.detail,
      "Invalid query parameter 'apply': expected true or false",
    );
    assert.match((await call(base, "POST", "/models/order/mutations", '"x"')).json.detail, /request body/);

    assert.deepEqual((await call(base, "GET", "/models/order/audit/verify")).json, {
      valid: true,
      recordsChecked: 3,
      firstBrokenSequence: null,
      detail: "ok",
    });
    assert.equal((await call(base, "GET", "/models/nope/audit")).status, 404);
    assert.equal((await call(base, "GET", "/models/nope/audit/verify")).status, 404);
  } finally {
    await server.close();
  }
});

Deno.test("snapshot and restore (204); restore rejects foreign or invalid snapshots", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    await call(base, "POST", "/models", orderSpec());
    await call(base, "POST", "/models/order/mutations", { "$.qty": 2, "$.price": 5 });
    const snapshot = await call(base, "POST", "/models/order/snapshot");
    assert.equal(snapshot.status, 200);
    assert.deepEqual(snapshot.json.derivedCache, { "$.total": 10 });
    await call(base, "POST", "/models/order/mutations", { "$.qty": 7 });

    const restored = await call(base, "POST", "/models/order/restore", snapshot.json);
    assert.equal(restored.status, 204);
    assert.equal(restored.text, "");
    assert.deepEqual((await call(base, "GET", "/models/order/state")).json, { qty: 2, price: 5, total: 10 });

    const foreign = await call(base, "POST", "/models/order/restore", { ...snapshot.json, modelId: "other" });
    assert.equal(foreign.status, 422);
    const invalid = await call(base, "POST", "/models/order/restore", {
      ...snapshot.json,
      baseDoc: { qty: -5 },
    });
    assert.equal(invalid.status, 422);
    // A field the live schema forbids is named at its own path, as an evolution's stranding guard names it.
    const closed = orderSpec("closed");
    await call(base, "POST", "/models", {
      ...closed,
      schema: { ...closed.schema as object, additionalProperties: false },
    });
    const forbidden = await call(base, "POST", "/models/closed/restore", {
      baseDoc: { qty: 1, removed: "x" },
    });
    assert.deepEqual(forbidden.json, {
      type: "about:blank",
      title: "Unprocessable Content",
      status: 422,
      detail:
        "Snapshot base document violates the schema: $.removed (additionalProperties): must NOT have additional properties: 'removed'",
    });
    assert.equal((await call(base, "POST", "/models/order/restore", "[")).status, 400);
    assert.equal((await call(base, "POST", "/models/order/restore", [1])).status, 400);
    assert.deepEqual((await call(base, "GET", "/models/order/state")).json, { qty: 2, price: 5, total: 10 });
    assert.equal((await call(base, "POST", "/models/nope/snapshot")).status, 404);
    assert.equal((await call(base, "POST", "/models/nope/restore", snapshot.json)).status, 404);
  } finally {
    await server.close();
  }
});

/**
 * The order model written with `written`, its snapshot taken, then evolved to 1.1.0 by `derivation` and
 * written again (qty 7); the snapshot is restored (204). Returns the snapshot.
 */
async function restoredAfterEvolution(
  base: string,
  written: Record<string, unknown>,
  derivation: { path: string; expr: string },
): Promise<Record<string, unknown>> {
  await call(base, "POST", "/models", orderSpec());
  await call(base, "POST", "/models/order/mutations", written);
  const snapshot = await call(base, "POST", "/models/order/snapshot");
  const evolved = await call(base, "POST", "/models/order/spec/evolve", {
    newVersion: "1.1.0",
    upsertDerivations: [derivation],
  });
  assert.equal(evolved.status, 200);
  await call(base, "POST", "/models/order/mutations", { "$.qty": 7 });
  assert.equal((await call(base, "POST", "/models/order/restore", snapshot.json)).status, 204);
  return snapshot.json;
}

Deno.test("a snapshot restored after an evolution shows the values the evolved spec computes", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    await restoredAfterEvolution(base, { "$.qty": 2, "$.price": 5 }, {
      path: "$.total",
      expr: "qty * price * 2",
    });
    assert.deepEqual((await call(base, "GET", "/models/order/state")).json, { qty: 2, price: 5, total: 20 });
    assert.equal((await call(base, "GET", `/models/order/state/${seg("$.total")}`)).json, 20);
    const again = await call(base, "POST", "/models/order/snapshot");
    assert.deepEqual([again.json.modelVersion, again.json.derivedCache], ["1.1.0", { "$.total": 20 }]);
  } finally {
    await server.close();
  }
});

Deno.test("a snapshot taken before an evolution made a base field derived restores: the field is computed; a broken rollback constraint refuses none", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    const snapshot = await restoredAfterEvolution(
      base,
      { "$.qty": 2, "$.price": 5, "$.note": "typed" },
      { path: "$.note", expr: "'total ' & $string(total)" },
    );
    assert.equal((snapshot.baseDoc as { note: string }).note, "typed");
    assert.deepEqual((await call(base, "GET", "/models/order/state")).json, {
      qty: 2,
      price: 5,
      total: 10,
      note: "total 10",
    });

    // A state breaking a rollback constraint restores (as an evolution adding one keeps the state); the next
    // write of what the constraint reads is held to it.
    const broken = { ...snapshot, baseDoc: { qty: 101, price: 1 } };
    assert.equal((await call(base, "POST", "/models/order/restore", broken)).status, 204);
    assert.equal((await call(base, "GET", "/models/order/state")).json.qty, 101);
    const explained = await call(base, "GET", `/models/order/explain/${seg("$constraint:max-qty")}`);
    assert.deepEqual(explained.json.map((t: { constraintPassed: boolean }) => t.constraintPassed), [false]);
    const held = await call(base, "POST", "/models/order/mutations", { "$.qty": 102 });
    assert.equal(held.status, 409);
    assert.equal((await call(base, "POST", "/models/order/mutations", { "$.qty": 100 })).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("blobs: multipart upload 201, download with Content-Type, model-scoped download, 404s", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    const bytes = new Uint8Array([0, 1, 2, 250, 251]);
    const uploaded = await uploadBlob(base, bytes, { type: "application/x-test" });
    assert.equal(uploaded.status, 201);
    const blobRef = uploaded.json;
    assert.equal(blobRef.$bytes, 5);
    assert.equal(blobRef.$mediaType, "application/x-test");
    assert.match(blobRef.$blobId, /^[0-9a-f]{64}$/);
    assert.equal(uploaded.headers.get("location"), `/blobs/${blobRef.$blobId}`);

    const overridden = await uploadBlob(base, new Uint8Array([9]), {
      type: "application/x-test",
      mediaType: "image/png",
    });
    assert.equal(overridden.json.$mediaType, "image/png", "the mediaType part wins");
    const again = await uploadBlob(base, bytes, { mediaType: "image/png" });
    assert.equal(again.json.$mediaType, "application/x-test", "the same bytes again report the stored type");

    const download = await fetch(`${base}/blobs/${blobRef.$blobId}`);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get("content-type"), "application/x-test");
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), bytes);
    assert.equal((await call(base, "GET", `/blobs/${"0".repeat(64)}`)).status, 404);

    await call(base, "POST", "/models", orderSpec());
    const scoped = `/models/order/blobs/${blobRef.$blobId}`;
    assert.equal((await call(base, "GET", scoped)).status, 404, "not referenced yet");
    await call(base, "POST", "/models/order/mutations", { "$.file": blobRef });
    const viaModel = await fetch(base + scoped);
    assert.equal(viaModel.status, 200);
    assert.deepEqual(new Uint8Array(await viaModel.arrayBuffer()), bytes);
    assert.equal((await call(base, "GET", `/models/nope/blobs/${blobRef.$blobId}`)).status, 404);

    const noFile = new FormData();
    noFile.append("mediaType", "text/plain");
    assert.equal((await call(base, "POST", "/blobs", noFile)).status, 400);
    assert.equal((await call(base, "POST", "/blobs", { file: "x" })).status, 415, "not multipart");
  } finally {
    await server.close();
  }
});

Deno.test("DELETE /admin/recovery/{id}: 403 in open mode, 404 when nothing is kept, 401 without the key", async () => {
  const open = await startTestServer();
  try {
    const refused = await call(open.url, "DELETE", "/admin/recovery/orders");
    assert.equal(refused.status, 403);
    assert.match(refused.json.detail, /API key/);
  } finally {
    await open.close();
  }
  const key = "recovery-test-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    assert.equal((await call(server.url, "DELETE", "/admin/recovery/orders")).status, 401);
    const none = await call(server.url, "DELETE", "/admin/recovery/orders", undefined, {
      authorization: `Bearer ${key}`,
    });
    assert.equal(none.status, 404);
    assert.match(none.json.detail, /No recovery record for model 'orders'/);
  } finally {
    await server.close();
  }
});

Deno.test("blob GC: dry run lists orphans, apply deletes them, 403 in open mode", async () => {
  const open = await startTestServer();
  try {
    const refused = await call(open.url, "POST", "/admin/blobs/gc?apply=true");
    assert.equal(refused.status, 403);
    assert.match(refused.json.detail, /API key/);
    const dry = await call(open.url, "POST", "/admin/blobs/gc");
    assert.deepEqual(dry.json, {
      supported: true,
      applied: false,
      referenced: 0,
      orphans: [],
      orphanBytes: 0,
    });
  } finally {
    await open.close();
  }

  const key = "gc-test-key";
  const auth = { authorization: `Bearer ${key}` };
  const server = await startTestServer({ "svc.api.key": key, "svc.history.max-entries": "1" });
  try {
    const base = server.url;
    const upload = async (text: string) => (await uploadBlob(base, text, { headers: auth })).json;
    const kept = await upload("kept");
    const historic = await upload("historic");
    const orphan = await upload("orphan");
    await call(base, "POST", "/models", orderSpec(), auth);
    await call(base, "POST", "/models/order/mutations", { "$.file": historic }, auth);
    // History keeps one entry: the state that references `kept`, which replaced `historic` in state.
    await call(base, "POST", "/models/order/mutations", { "$.file": kept }, auth);

    const dry = await call(base, "POST", "/admin/blobs/gc", undefined, auth);
    assert.equal(dry.status, 200);
    assert.deepEqual(
      dry.json.orphans.map((o: { blobId: string }) => o.blobId).sort(),
      [
        historic.$blobId,
        orphan.$blobId,
      ].sort(),
    );
    assert.equal(dry.json.applied, false);
    assert.equal(dry.json.orphanBytes, "historic".length + "orphan".length);
    assert.equal(
      (await call(base, "GET", `/blobs/${orphan.$blobId}`, undefined, auth)).status,
      200,
      "dry run",
    );
    assert.equal((await call(base, "POST", "/admin/blobs/gc?apply=maybe", undefined, auth)).status, 400);

    const applied = await call(base, "POST", "/admin/blobs/gc?apply=true", undefined, auth);
    assert.equal(applied.json.applied, true);
    assert.equal((await call(base, "GET", `/blobs/${orphan.$blobId}`, undefined, auth)).status, 404);
    assert.equal((await call(base, "GET", `/blobs/${kept.$blobId}`, undefined, auth)).status, 200);
    assert.deepEqual((await call(base, "POST", "/admin/blobs/gc", undefined, auth)).json.orphans, []);
  } finally {
    await server.close();
  }
});

Deno.test("blob GC marks retained history, not only current state", async () => {
  const key = "k";
  const auth = { authorization: `Bearer ${key}` };
  const server = await startTestServer({ "svc.api.key": key });
  try {
    const base = server.url;
    const old = (await uploadBlob(base, "old", { headers: auth })).json;
    await call(base, "POST", "/models", orderSpec(), auth);
    await call(base, "POST", "/models/order/mutations", { "$.file": old }, auth);
    await call(base, "POST", "/models/order/mutations", { "$.file": { replaced: true } }, auth);
    const report = await call(base, "POST", "/admin/blobs/gc?apply=true", undefined, auth);
    assert.deepEqual(report.json.orphans, [], "a blob referenced by retained history is not an orphan");
    assert.equal(report.json.referenced, 1);
  } finally {
    await server.close();
  }
});

Deno.test("unknown routes 404 and wrong methods 405 with Allow, as problem documents", async () => {
  const server = await startTestServer();
  try {
    const missing = await call(server.url, "GET", "/nothing/here");
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("content-type"), "application/problem+json");
    const wrong = await call(server.url, "PUT", "/models/order");
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "GET, DELETE");
  } finally {
    await server.close();
  }
});

Deno.test("a method no route serves is 405 with the path's own methods in Allow", async () => {
  const server = await startTestServer();
  try {
    // PROPFIND stands for TRACE, CONNECT and the rest (fetch will not send TRACE).
    for (
      const [path, allow] of [
        ["/models/order/state", "GET"],
        ["/models", "GET, POST"],
        ["/models/order", "GET, DELETE"],
        ["/", "GET, HEAD"],
      ]
    ) {
      const refused = await call(server.url, "PROPFIND", path);
      assert.equal(refused.status, 405, path);
      assert.equal(refused.headers.get("allow"), allow, path);
    }
  } finally {
    await server.close();
  }
});

Deno.test("actuator: health and info, metric names, prometheus", async () => {
  const server = await startTestServer();
  try {
    assert.deepEqual((await call(server.url, "GET", "/actuator/health")).json, { status: "UP" });
    assert.equal((await call(server.url, "GET", "/actuator/info")).json.app.name, "reactive-model-service");
    const names = (await call(server.url, "GET", "/actuator/metrics")).json.names;
    assert.deepEqual(names, [
      "svc.audit.records",
      "svc.effect.duration",
      "svc.effects.dispatched",
      "svc.models.created",
      "svc.models.registered",
      "svc.mutation.duration",
      "svc.storage.full",
    ]);
    assert.equal((await call(server.url, "GET", "/actuator/metrics/nope")).status, 404);
    const text = await call(server.url, "GET", "/actuator/prometheus");
    assert.match(text.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
    assert.match(text.text, /^svc_models_registered 0$/m);
  } finally {
    await server.close();
  }
});

Deno.test("startup: a huge svc.host that cannot be listened on is quoted cut short", async () => {
  // Deno's own words ("invalid host '…'") quoted all of it: a 100 kB variable filled the terminal, twice.
  for (const host of ["h".repeat(100_000), "no such host ".repeat(1000)]) {
    await assert.rejects(startTestServer({ "svc.host": host }), (err: Error) => {
      assert.match(err.message, /^cannot listen on .*characters\).*SVC_HOST \(svc\.host\)$/s);
      assert.ok(err.message.length < 1000, `${err.message.length} characters`);
      return true;
    });
  }
});

Deno.test("startup: a port in use or an unknown storage backend fails with a clear message", async () => {
  const first = await startTestServer();
  try {
    await assert.rejects(
      startTestServer({ "svc.port": String(first.port) }),
      new RegExp(`cannot listen on 127\\.0\\.0\\.1:${first.port}`),
    );
  } finally {
    await first.close();
  }
  await assert.rejects(
    startTestServer({ "svc.storage.type": "floppy" }),
    /svc\.storage\.type \(SVC_STORAGE_TYPE\) = 'floppy': unknown storage backend/,
  );
});

Deno.test("a body of named members: a missing or mistyped member is a 400 naming it", async () => {
  const server = await startTestServer();
  try {
    const base = server.url;
    await call(base, "POST", "/models", orderSpec());
    const missing = await call(base, "POST", "/models/order/promote", {});
    assert.equal(missing.status, 400);
    assert.equal(missing.json.detail, "Missing request body field 'toRepo'");
    const mistyped = await call(base, "POST", "/models/order/promote", { toRepo: 5 });
    assert.equal(mistyped.status, 400);
    assert.equal(mistyped.json.detail, "Invalid request body field 'toRepo': expected string");
    const notAnObject = await call(base, "POST", "/models/order/promote", []);
    assert.equal(notAnObject.json.detail, "Request body must be a JSON object with toRepo");
    const ai = await call(base, "POST", "/models/order/spec/evolve/ai", { includeView: true });
    assert.equal(ai.status, 400);
    assert.equal(ai.json.detail, "Missing request body field 'description'");
  } finally {
    await server.close();
  }
});
