/**
 * Links between models of one server, through REST: a write-link mutates its
 * target and folds the target's state back; a watched read-link keeps the
 * reader current; failures land in the status document with their code; the
 * topology check refuses dangling targets and unguarded cycles.
 */
import assert from "node:assert/strict";
import { ModelService } from "../../engine/service/service.ts";
import { until } from "../effects/helpers.ts";
import { call, startTestServer, type TestServer } from "../server/helpers.ts";
import { sourceSpec, targetSpec } from "./helpers.ts";

const state = async (server: TestServer, id: string) =>
  (await call(server.url, "GET", `/models/${id}/state`)).json;

Deno.test("links: a write-link writes and folds back; a watched read-link follows its target", async () => {
  const server = await startTestServer();
  try {
    assert.equal((await call(server.url, "POST", "/models", targetSpec())).status, 201);
    const created = await call(server.url, "POST", "/models", sourceSpec());
    assert.equal(created.status, 201, created.text);

    await call(server.url, "POST", "/models/inv/mutations", { "$.amt": 21 });
    const pushed = await until(
      () => state(server, "inv"),
      (s) => s.io?.push?.phase === "applied",
      "push applied",
    );
    assert.equal(pushed.echo, 42, "the target's merged state is $response");
    assert.deepEqual(await state(server, "fx"), { v: 21, twice: 42 });

    await call(server.url, "POST", "/models/inv/mutations", { "$.need": true });
    const pulled = await until(
      () => state(server, "inv"),
      (s) => s.io?.pull?.phase === "applied",
      "pull applied",
    );
    assert.equal(pulled.rate, 42);
    const audit = (await call(server.url, "GET", "/models/fx/audit")).json;
    assert.equal(audit.length, 1, "a read-link does not write its target");

    // The watch: a change of the target's $.twice (derived from v) reaches the reader.
    await call(server.url, "POST", "/models/fx/mutations", { "$.v": 5 });
    await until(() => state(server, "inv"), (s) => s.rate === 10, "the watch refreshed rate");
    // Evolving the target keeps the watch on it.
    const evolved = await call(server.url, "POST", "/models/fx/spec/evolve", {
      upsertDerivations: [{ path: "$.thrice", expr: "v * 3" }],
    });
    assert.equal(evolved.status, 200, evolved.text);
    await call(server.url, "POST", "/models/fx/mutations", { "$.v": 6 });
    await until(
      () => state(server, "inv"),
      (s) => s.rate === 12,
      "the watch outlived the target's evolution",
    );
    // An evolution that changes what the watched value is, with no write, reaches the reader too.
    await call(server.url, "POST", "/models/fx/spec/evolve", {
      upsertDerivations: [{ path: "$.twice", expr: "v * 4" }],
    });
    await until(() => state(server, "inv"), (s) => s.rate === 24, "the evolution's recomputed value");
    // So does a restore of the target.
    const snapshot = (await call(server.url, "POST", "/models/fx/snapshot")).json;
    await call(server.url, "POST", "/models/fx/mutations", { "$.v": 7 });
    await until(() => state(server, "inv"), (s) => s.rate === 28, "the watch refreshed rate");
    assert.equal((await call(server.url, "POST", "/models/fx/restore", snapshot)).status, 204);
    await until(() => state(server, "inv"), (s) => s.rate === 24, "the restored value");
    // A change elsewhere in the target does not.
    const before = (await call(server.url, "GET", "/models/inv/audit")).json.length;
    await call(server.url, "POST", "/models/fx/mutations", { "$.lines": { a: 1 } });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await call(server.url, "GET", "/models/inv/audit")).json.length, before);

    const graph = (await call(server.url, "GET", "/composition/graph")).json;
    assert.deepEqual(graph.nodes.map((n: { ref: string }) => n.ref), ["fx", "inv"]);
    assert.deepEqual(
      graph.linkEdges.map((
        e: Record<string, unknown>,
      ) => [e.from, e.to, e.effectId, e.kind, (e.last as { phase: string }).phase]),
      [["inv", "fx", "pull", "read", "applied"], ["inv", "fx", "push", "write", "applied"]],
    );
    assert.deepEqual(graph.lineageEdges, []);

    // Deleting the target ends the watch; a new model of that id is not followed until the link fires again.
    assert.equal((await call(server.url, "DELETE", "/models/fx")).status, 204);
    await call(server.url, "POST", "/models", targetSpec());
    await call(server.url, "POST", "/models/fx/mutations", { "$.v": 7 });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await state(server, "inv")).rate, 24);
  } finally {
    await server.close();
  }
});

Deno.test("links: failures name their code in the status document", async () => {
  const server = await startTestServer({ "svc.composition.lazy-binding": "true" });
  try {
    await call(server.url, "POST", "/models", targetSpec());
    await call(server.url, "POST", "/models", sourceSpec());
    await call(server.url, "POST", "/models/inv/mutations", { "$.amt": -1 });
    const rejected = await until(
      () => state(server, "inv"),
      (s) => s.io?.push?.phase === "failed",
      "push failed",
    );
    assert.match(rejected.io.push.error, /^target_rejected: /);
    assert.equal((await state(server, "fx")).v, undefined, "the target rolled back");

    // Lazy binding: a link to a model nobody holds is accepted and fails when it fires.
    const lonely = { ...sourceSpec("ghost", "lonely") };
    assert.equal((await call(server.url, "POST", "/models", lonely)).status, 201);
    await call(server.url, "POST", "/models/lonely/mutations", { "$.need": true });
    const unresolved = await until(
      () => state(server, "lonely"),
      (s) => s.io?.pull?.phase === "failed",
      "pull failed",
    );
    assert.match(
      unresolved.io.pull.error,
      /^target_unresolved: 'ghost' is not found in any repository \(local\)$/,
    );
  } finally {
    await server.close();
  }
});

Deno.test("topology: two evolutions at once, each closing half of an unguarded cycle: one is refused", async () => {
  const service = await ModelService.open({});
  const plain = (id: string) => ({ id, schema: { type: "object", properties: { v: { type: "number" } } } });
  const push = (to: string) => [{
    id: "push",
    executor: "server",
    trigger: "$exists(v)",
    target: { ref: to, path: "$.v" },
    body: "v + 1",
  }];
  try {
    await service.createModel(plain("a"));
    await service.createModel(plain("b"));
    const outcomes = await Promise.allSettled([
      service.evolveSpec("a", { upsertEffects: push("b") }),
      service.evolveSpec("b", { upsertEffects: push("a") }),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected"]);
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /UnguardedCycle/);
  } finally {
    await service.close();
  }
});

Deno.test("topology: dangling targets and unguarded cycles are 422 on create and evolve", async () => {
  const server = await startTestServer();
  try {
    const dangling = await call(server.url, "POST", "/models", sourceSpec("ghost"));
    assert.equal(dangling.status, 422);
    assert.deepEqual(dangling.json.errors.map((e: { location: string }) => e.location), [
      "effects[0].target.ref",
      "effects[1].target.ref",
    ]);
    assert.match(
      dangling.json.errors[0].message,
      /^UnresolvedLinkTarget: 'ghost' is not found in any repository \(local\)/,
    );

    const writer = (id: string, to: string, guarded: boolean) => ({
      id,
      schema: { type: "object", properties: { v: { type: "number" } } },
      effects: [{
        id: "copy",
        executor: "server",
        trigger: "$exists(v)",
        target: { ref: to, path: "$.v" },
        body: "v",
        ...(guarded ? { dedupeKey: "v", statusPath: "$.io.copy" } : {}),
      }],
    });
    assert.equal((await call(server.url, "POST", "/models", { id: "b", schema: {} })).status, 201);
    assert.equal((await call(server.url, "POST", "/models", writer("a", "b", false))).status, 201);
    // b -> a closes a cycle with the unguarded a -> b.
    const evolve = await call(server.url, "POST", "/models/b/spec/evolve", {
      upsertEffects: writer("b", "a", true).effects,
    });
    assert.equal(evolve.status, 422, evolve.text);
    assert.match(evolve.json.errors[0].message, /^UnguardedCycle: the link 'copy' of 'a' to 'b'/);
    assert.equal((await call(server.url, "DELETE", "/models/a")).status, 204);
    assert.equal((await call(server.url, "POST", "/models", writer("a", "b", true))).status, 201);
    const guarded = await call(server.url, "POST", "/models/b/spec/evolve", {
      upsertEffects: writer("b", "a", true).effects,
    });
    assert.equal(guarded.status, 200, guarded.text);
    // The guarded cycle settles: each side writes once per value.
    await call(server.url, "POST", "/models/a/mutations", { "$.v": 3 });
    await until(() => state(server, "b"), (s) => s.io?.copy?.phase === "applied", "b copied back");
    assert.equal((await state(server, "a")).v, 3);
    assert.equal((await state(server, "b")).v, 3);
  } finally {
    await server.close();
  }
});
