/**
 * Repositories: a second real server as the first one's `http` repository
 * (templates, write- and read-links, a watch over its WebSocket feed,
 * promote), an `svc mcp` child as an `mcp` repository, and a restart that
 * keeps approvals and arms watches again.
 */
import assert from "node:assert/strict";
import { LOOPBACK_EFFECTS, startTarget, stateOf, until } from "../effects/helpers.ts";
import { call, CLI_MAIN, startTestServer, type TestServer } from "../server/helpers.ts";
import { baseSpec, branchSpec, sourceSpec, targetSpec } from "./helpers.ts";

const KEY = "hub-secret-key-0123456789";
const AUTH = { authorization: `Bearer ${KEY}` };

/** A hub (API key required) and a server whose repositories point at it. */
async function hubAndLocal(extra: Record<string, string> = {}): Promise<[TestServer, TestServer]> {
  const hub = await startTestServer({ "svc.api.key": KEY });
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      { id: "hub", transport: "http", locator: hub.url, credential: KEY },
      { id: "scratch", transport: "http", "repo-class": "local", locator: hub.url, credential: KEY },
    ]),
    ...extra,
  });
  return [hub, local];
}

Deno.test("http repository: templates, links and a watch across two servers; promote", async () => {
  const [hub, local] = await hubAndLocal();
  try {
    assert.equal((await call(hub.url, "POST", "/models", baseSpec(), AUTH)).status, 201);
    assert.equal((await call(hub.url, "POST", "/models", targetSpec(), AUTH)).status, 201);

    const branch = await call(local.url, "POST", "/models", branchSpec());
    assert.equal(branch.status, 201, branch.text);
    const [pin] = (await call(local.url, "GET", "/models/beta%2Feu/lineage")).json;
    assert.deepEqual([pin.ref, pin.repo, pin.owner, pin.version], ["acme/base", "hub", "acme", "1.2.0"]);

    assert.equal(
      (await call(local.url, "POST", "/models", sourceSpec())).status,
      201,
      "fx resolves in the hub",
    );
    await call(local.url, "POST", "/models/inv/mutations", { "$.amt": 4 });
    const pushed = await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io?.push?.phase === "applied",
      "push",
    );
    assert.equal(pushed.echo, 8);
    assert.equal((await stateOf(hub.url, "fx", KEY)).v, 4, "the write landed in the hub");

    await call(local.url, "POST", "/models/inv/mutations", { "$.need": true });
    await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io?.pull?.phase === "applied" && s.rate === 8,
      "pull",
    );
    await call(hub.url, "POST", "/models/fx/mutations", { "$.v": 50 }, AUTH);
    await until(() => stateOf(local.url, "inv"), (s) => s.rate === 100, "the watch over the hub's feed");
    // An evolution recomputes the watched value with no write: its spec-evolved frame is heard too.
    const evolved = await call(hub.url, "POST", "/models/fx/spec/evolve", {
      upsertDerivations: [{ path: "$.twice", expr: "v * 3" }],
    }, AUTH);
    assert.equal(evolved.status, 200, evolved.text);
    await until(() => stateOf(local.url, "inv"), (s) => s.rate === 150, "the hub's evolution");

    const rejected = await call(local.url, "POST", "/models/inv/mutations", { "$.amt": -3 });
    assert.equal(rejected.status, 200);
    const failed = await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io.push.phase === "failed",
      "refused",
    );
    assert.match(
      failed.io.push.error,
      /^target_rejected: Repository 'hub' failed to write 'fx' \(it answered 409\): Constraint violated: v must not be negative/,
    );

    // Promote: a plain model, then one whose link resolves in the hub; the model stays here.
    await call(local.url, "POST", "/models", {
      id: "beta/calc",
      schema: {},
      derivations: [{ path: "$.x", expr: "1" }],
    });
    const promoted = await call(local.url, "POST", "/models/beta%2Fcalc/promote", { toRepo: "hub" });
    assert.equal(promoted.status, 200, promoted.text);
    assert.deepEqual(promoted.json, { id: "beta/calc", promotedTo: "hub" });
    assert.equal(
      (await call(hub.url, "GET", "/models/beta%2Fcalc/spec", undefined, AUTH)).json.id,
      "beta/calc",
    );
    assert.equal((await call(local.url, "GET", "/models/beta%2Fcalc")).status, 200);
    const twice = await call(local.url, "POST", "/models/beta%2Fcalc/promote", { toRepo: "hub" });
    assert.equal(twice.status, 409);
    assert.match(
      twice.json.detail ?? twice.json.error,
      /Repository 'hub' refused the model: .*already exists/i,
    );
    assert.equal((await call(local.url, "POST", "/models/beta%2Feu/promote", { toRepo: "hub" })).status, 200);

    await call(local.url, "POST", "/models", targetSpec("mine"));
    await call(local.url, "POST", "/models", sourceSpec("mine", "tied"));
    const open = await call(local.url, "POST", "/models/tied/promote", { toRepo: "hub" });
    assert.equal(open.status, 409);
    assert.match(
      open.json.detail,
      /Promotion of 'tied' is not closed in the web repositories: 'mine' is not found in any repository \(hub\)$/,
    );
    const statuses = await Promise.all([
      call(local.url, "POST", "/models/inv/promote", { toRepo: "scratch" }),
      call(local.url, "POST", "/models/inv/promote", { toRepo: "nowhere" }),
      call(local.url, "POST", "/models/inv/promote", { toRepo: " " }),
      call(local.url, "POST", "/models/inv/promote", {}),
      call(local.url, "POST", "/models/ghost/promote", { toRepo: "hub" }),
      // The chain's implicit first repository, this service's own models.
      call(local.url, "POST", "/models/inv/promote", { toRepo: "local" }),
    ]);
    assert.deepEqual(statuses.map((r) => r.status), [405, 409, 400, 400, 404, 405]);
    assert.match(statuses[0].json.detail, /DemoteUnsupported/);
    assert.match(statuses[1].json.detail, /Unknown repository 'nowhere'/);
    assert.match(statuses[3].json.detail, /Missing request body field 'toRepo'/);
    assert.match(statuses[5].json.detail, /DemoteUnsupported: 'local' is a local repository/);
  } finally {
    await local.close();
    await hub.close();
  }
});

Deno.test("mcp repository: promote to an svc mcp child, then branch and link through it", async () => {
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      { id: "kid", transport: "mcp", locator: [Deno.execPath(), "run", "-A", CLI_MAIN, "mcp"] },
    ]),
  });
  try {
    await call(local.url, "POST", "/models", targetSpec("acme/fx"));
    const promoted = await call(local.url, "POST", `/models/${encodeURIComponent("acme/fx")}/promote`, {
      toRepo: "kid",
    });
    assert.equal(promoted.status, 200, promoted.text);
    assert.equal((await call(local.url, "DELETE", "/models/acme%2Ffx")).status, 204);

    const branch = await call(local.url, "POST", "/models", branchSpec("beta/fx", "acme/fx"));
    assert.equal(branch.status, 201, branch.text);
    assert.equal((await call(local.url, "GET", "/models/beta%2Ffx/lineage")).json[0].repo, "kid");

    assert.equal((await call(local.url, "POST", "/models", sourceSpec("acme/fx"))).status, 201);
    await call(local.url, "POST", "/models/inv/mutations", { "$.amt": 6 });
    const pushed = await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io?.push?.phase === "applied",
      "push",
    );
    assert.equal(pushed.echo, 12, "the child's state came back");
    await call(local.url, "POST", "/models/inv/mutations", { "$.need": true });
    await until(() => stateOf(local.url, "inv"), (s) => s.rate === 12, "pull through the child");
    // The next write changes the child's model; the watch (a resource subscription) brings the new value.
    await call(local.url, "POST", "/models/inv/mutations", { "$.amt": 7 });
    await until(() => stateOf(local.url, "inv"), (s) => s.rate === 14, "the watch through the child");
  } finally {
    await local.close();
  }
});

Deno.test("restart: approvals are kept and watches armed again", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-composition-" });
  const target = startTarget(() => Response.json({ ok: true }));
  const hub = await startTestServer({ "svc.api.key": KEY });
  const keys = {
    ...LOOPBACK_EFFECTS,
    "svc.storage.type": "kv",
    "svc.persistence-dir": dir,
    "svc.composition.repositories": JSON.stringify([{
      id: "hub",
      transport: "http",
      locator: hub.url,
      credential: KEY,
    }]),
  };
  try {
    await call(hub.url, "POST", "/models", targetSpec(), AUTH);
    let local = await startTestServer(keys);
    await call(local.url, "POST", "/models", baseSpec(target.url));
    await call(local.url, "POST", "/models", branchSpec());
    assert.equal((await call(local.url, "POST", "/models/beta%2Feu/effects/notify/approve")).status, 200);
    await call(local.url, "POST", "/models", sourceSpec());
    await call(local.url, "POST", "/models/inv/mutations", { "$.need": true });
    await until(() => stateOf(local.url, "inv"), (s) => s.io?.pull?.phase === "applied", "pull");
    await local.close();

    local = await startTestServer(keys);
    try {
      assert.deepEqual((await call(local.url, "GET", "/models/beta%2Feu/effects/pending")).json, []);
      await call(local.url, "POST", "/models/beta%2Feu/mutations", { "$.net": 500 });
      await until(
        () => stateOf(local.url, "beta/eu"),
        (s) => s.io?.notify?.phase === "applied",
        "approved still",
      );
      assert.equal(target.hits.length, 1);
      await call(hub.url, "POST", "/models/fx/mutations", { "$.v": 9 }, AUTH);
      await until(() => stateOf(local.url, "inv"), (s) => s.rate === 18, "the watch armed at start");
    } finally {
      await local.close();
    }
  } finally {
    await hub.close();
    await target.close();
    await Deno.remove(dir, { recursive: true });
  }
});
