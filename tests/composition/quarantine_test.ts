/**
 * Inherited effect quarantine through REST: a branch of another owner's
 * template holds the template's server effect `blocked` until approved;
 * approval is keyed to the effect's definitionHash (an edit quarantines it
 * again, and a template cannot pre-approve); `deny` and `allow`; same-owner
 * branches and the branch's own effects are never held.
 */
import assert from "node:assert/strict";
import { LOOPBACK_EFFECTS, startTarget, stateOf, until } from "../effects/helpers.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { baseSpec, branchSpec } from "./helpers.ts";

const EU = encodeURIComponent("beta/eu");
const answer = () => Response.json({ ok: true });

Deno.test("quarantine: blocked, listed, approved, re-quarantined after an edit of what it executes", async () => {
  const target = startTarget(answer);
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", baseSpec(target.url));
    assert.equal((await call(server.url, "POST", "/models", branchSpec())).status, 201);
    await call(server.url, "POST", `/models/${EU}/mutations`, { "$.net": 200 });
    const blocked = (await stateOf(server.url, "beta/eu")).io.notify;
    assert.equal(blocked.phase, "blocked");
    assert.equal(blocked.error, "effect_approval_required");
    assert.equal(blocked.key, null);

    const pending = (await call(server.url, "GET", `/models/${EU}/effects/pending`)).json;
    assert.deepEqual(pending.map((p: Record<string, unknown>) => [p.effectId, p.executor, p.origin]), [
      ["notify", "server", { fromRef: "acme/base", fromOwner: "acme" }],
    ]);
    const hash = pending[0].definitionHash;
    assert.match(hash, /^sha256:[0-9a-f]{64}$/);
    assert.equal(target.hits.length, 0, "nothing was sent");

    const approve = await call(server.url, "POST", `/models/${EU}/effects/notify/approve`);
    assert.equal(approve.status, 200, approve.text);
    assert.deepEqual(approve.json, { effectId: "notify", definitionHash: hash, approved: true });
    await until(
      () => stateOf(server.url, "beta/eu"),
      (s) => s.io.notify.phase === "applied",
      "sent once approved",
    );
    assert.equal(target.hits.length, 1);
    assert.deepEqual((await call(server.url, "GET", `/models/${EU}/effects/pending`)).json, []);
    assert.equal((await call(server.url, "POST", `/models/${EU}/effects/notify/approve`)).status, 409);
    assert.equal((await call(server.url, "POST", `/models/${EU}/effects/ghost/approve`)).status, 404);

    // An evolution that changes the URL keeps the origin (whatever it claims) and voids the approval.
    const edited = { ...(baseSpec(`${target.url}/elsewhere`).effects as Record<string, unknown>[])[0] };
    const evolved = await call(server.url, "POST", `/models/${EU}/spec/evolve`, {
      upsertEffects: [{ ...edited, origin: null, approval: { definitionHash: hash } }],
    });
    assert.equal(evolved.status, 200, evolved.text);
    const again = (await call(server.url, "GET", `/models/${EU}/effects/pending`)).json;
    assert.equal(again.length, 1);
    assert.notEqual(again[0].definitionHash, hash);
    await call(server.url, "POST", `/models/${EU}/mutations`, { "$.net": 300 });
    assert.equal((await stateOf(server.url, "beta/eu")).io.notify.phase, "blocked");
    assert.equal(target.hits.length, 1);
    // A description is not executable: editing it keeps the approval once given.
    await call(server.url, "POST", `/models/${EU}/effects/notify/approve`);
    await until(() => stateOf(server.url, "beta/eu"), (s) => s.io.notify.phase === "applied", "sent again");
    const described = await call(server.url, "POST", `/models/${EU}/spec/evolve`, {
      upsertEffects: [{ ...edited, description: "tells the hub" }],
    });
    assert.equal(described.status, 200, described.text);
    assert.deepEqual((await call(server.url, "GET", `/models/${EU}/effects/pending`)).json, []);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("quarantine: a template's own approval does not come along; same owner and own effects run", async () => {
  const target = startTarget(answer);
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    await call(server.url, "POST", "/models", baseSpec(target.url));
    const hash = (await call(server.url, "POST", "/models", branchSpec("probe/x"))).status === 201
      ? (await call(server.url, "GET", "/models/probe%2Fx/effects/pending")).json[0].definitionHash
      : null;
    const sneaky = baseSpec(target.url, "evil/base");
    (sneaky.effects as Record<string, unknown>[])[0].approval = { definitionHash: hash };
    await call(server.url, "POST", "/models", sneaky);
    await call(server.url, "POST", "/models", branchSpec("beta/eu", "evil/base"));
    await call(server.url, "POST", `/models/${EU}/mutations`, { "$.net": 200 });
    assert.equal((await stateOf(server.url, "beta/eu")).io.notify.phase, "blocked");

    await call(server.url, "POST", "/models", branchSpec("acme/eu"));
    await call(server.url, "POST", "/models/acme%2Feu/mutations", { "$.net": 200 });
    await until(
      () => stateOf(server.url, "acme/eu"),
      (s) => s.io.notify.phase === "applied",
      "same owner runs",
    );

    const own = {
      ...branchSpec("gamma/own"),
      effects: [{ ...(baseSpec(target.url).effects as object[])[0], id: "mine", statusPath: "$.io.mine" }],
    };
    await call(server.url, "POST", "/models", own);
    await call(server.url, "POST", "/models/gamma%2Fown/mutations", { "$.net": 200 });
    await until(
      () => stateOf(server.url, "gamma/own"),
      (s) => s.io.mine?.phase === "applied",
      "own effect runs",
    );
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("quarantine: a plain create cannot claim an origin, an approval or a lineage", async () => {
  const target = startTarget(answer);
  const server = await startTestServer(LOOPBACK_EFFECTS);
  try {
    // The template's author passes its effect off as inherited from the branch owner's own namespace.
    const forged = baseSpec(target.url, "evil/base");
    const effect = (forged.effects as Record<string, unknown>[])[0];
    effect.origin = { fromRef: "beta/hub", fromOwner: "beta" };
    effect.approval = { definitionHash: "sha256:" + "0".repeat(64) };
    forged.lineage = [{
      ref: "beta/hub",
      version: "9.9.9",
      digest: "sha256:" + "0".repeat(64),
      repo: "local",
    }];
    assert.equal((await call(server.url, "POST", "/models", forged)).status, 201);
    const stored = (await call(server.url, "GET", "/models/evil%2Fbase/spec")).json;
    assert.equal(stored.effects[0].origin, undefined);
    assert.equal(stored.effects[0].approval, undefined);
    assert.deepEqual((await call(server.url, "GET", "/models/evil%2Fbase/lineage")).json, []);

    await call(server.url, "POST", "/models", branchSpec("beta/eu", "evil/base"));
    const pending = (await call(server.url, "GET", `/models/${EU}/effects/pending`)).json;
    assert.deepEqual(pending.map((p: Record<string, unknown>) => p.origin), [
      { fromRef: "evil/base", fromOwner: "evil" },
    ]);
    assert.deepEqual(
      (await call(server.url, "GET", `/models/${EU}/lineage`)).json.map((e: { ref: string }) => e.ref),
      ["evil/base"],
    );
    await call(server.url, "POST", `/models/${EU}/mutations`, { "$.net": 200 });
    assert.equal((await stateOf(server.url, "beta/eu")).io.notify.phase, "blocked");
    assert.equal(target.hits.length, 0, "nothing was sent");

    // A branch's spec read back and created again is its author's own: no ancestors, no inherited effect.
    const copy = { ...(await call(server.url, "GET", `/models/${EU}/spec`)).json, id: "beta/copy" };
    assert.equal((await call(server.url, "POST", "/models", copy)).status, 201);
    assert.deepEqual((await call(server.url, "GET", "/models/beta%2Fcopy/lineage")).json, []);
    assert.deepEqual((await call(server.url, "GET", "/models/beta%2Fcopy/effects/pending")).json, []);
  } finally {
    await server.close();
    await target.close();
  }
});

Deno.test("quarantine: deny never dispatches, allow runs at once", async () => {
  const target = startTarget(answer);
  for (const policy of ["deny", "allow"]) {
    const server = await startTestServer({ ...LOOPBACK_EFFECTS, "svc.authz.inherited-effects": policy });
    try {
      await call(server.url, "POST", "/models", baseSpec(target.url));
      await call(server.url, "POST", "/models", branchSpec());
      await call(server.url, "POST", `/models/${EU}/mutations`, { "$.net": 200 });
      assert.deepEqual((await call(server.url, "GET", `/models/${EU}/effects/pending`)).json, [], policy);
      if (policy === "deny") {
        assert.equal((await stateOf(server.url, "beta/eu")).io, undefined, "no status: it never fires");
        assert.equal((await call(server.url, "POST", `/models/${EU}/effects/notify/approve`)).status, 409);
      } else {
        await until(
          () => stateOf(server.url, "beta/eu"),
          (s) => s.io?.notify?.phase === "applied",
          "allowed",
        );
      }
    } finally {
      await server.close();
    }
  }
  assert.equal(target.hits.length, 1, "only under allow");
  await target.close();
  await assert.rejects(
    startTestServer({ "svc.authz.inherited-effects": "maybe" }),
    /svc\.authz\.inherited-effects \(SVC_AUTHZ_INHERITED_EFFECTS\) must be one of approve, allow, deny, got 'maybe'/,
  );
});
