/**
 * A configured repository that refuses our credential (its 401 or 403) is a
 * 502 naming it and its status, on every path that reaches it: a branch's
 * template, a library's `extends` (at create and at evolve), the link topology
 * check, promote, a link's fire, and an `mcp` repository whose `svc mcp`
 * child is refused by its server. Passed on as it came, it would be a 401
 * with our bearer challenge, telling our caller *their* key is wrong.
 */
import assert from "node:assert/strict";
import { stateOf, until } from "../effects/helpers.ts";
import { call, CLI_MAIN, type Reply, startTestServer } from "../server/helpers.ts";
import { branchSpec, sourceSpec } from "./helpers.ts";

/** A second server on loopback refusing every request with `status`, as a server whose key we lack does. */
function refusingUpstream(status: 401 | 403) {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () =>
    Response.json(
      { error: status === 401 ? "Missing or invalid API key" : "Read-only key" },
      { status, headers: status === 401 ? { "www-authenticate": 'Bearer realm="svc"' } : {} },
    ));
}

/** Our answer is a bad gateway naming the repository and its status, with no challenge of ours. */
function assertBadGateway(reply: Reply, repo: string, status: number, what: string): void {
  assert.equal(reply.status, 502, `${what}: ${reply.text}`);
  assert.equal(reply.headers.get("www-authenticate"), null, what);
  assert.match(
    reply.json.detail,
    new RegExp(`^Repository '${repo}' refused our credential \\(it answered ${status}\\)`),
  );
}

const LIBRARY_EXTENDS = { extends: "acme/tax", define: '( $k := 1; ["k"] )' };

Deno.test("an http repository's 401 is our 502 on create, evolve, the link check and promote", async () => {
  const upstream = refusingUpstream(401);
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      {
        id: "hub",
        transport: "http",
        locator: `http://127.0.0.1:${upstream.addr.port}`,
        credential: "stale-key",
      },
    ]),
  });
  try {
    assertBadGateway(await call(local.url, "POST", "/models", branchSpec()), "hub", 401, "template");
    assertBadGateway(
      await call(local.url, "POST", "/models", { id: "lib", schema: {}, library: LIBRARY_EXTENDS }),
      "hub",
      401,
      "library extends",
    );
    assertBadGateway(await call(local.url, "POST", "/models", sourceSpec()), "hub", 401, "link check");

    assert.equal((await call(local.url, "POST", "/models", { id: "plain", schema: {} })).status, 201);
    assertBadGateway(
      await call(local.url, "POST", "/models/plain/spec/evolve", { newLibrary: LIBRARY_EXTENDS }),
      "hub",
      401,
      "evolve's extends",
    );
    assertBadGateway(
      await call(local.url, "POST", "/models/plain/promote", { toRepo: "hub" }),
      "hub",
      401,
      "promote",
    );
  } finally {
    await local.close();
    await upstream.shutdown();
  }
});

Deno.test("an http repository's 403 fails a link's fire as a transport error naming it", async () => {
  const upstream = refusingUpstream(403);
  const local = await startTestServer({
    "svc.composition.lazy-binding": "true",
    "svc.composition.repositories": JSON.stringify([
      { id: "hub", transport: "http", locator: `http://127.0.0.1:${upstream.addr.port}`, credential: "k" },
    ]),
  });
  try {
    assertBadGateway(await call(local.url, "POST", "/models", branchSpec()), "hub", 403, "template");
    assert.equal((await call(local.url, "POST", "/models", sourceSpec())).status, 201);
    await call(local.url, "POST", "/models/inv/mutations", { "$.amt": 4 });
    const failed = await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io?.push?.phase === "failed",
      "push",
    );
    assert.match(
      failed.io.push.error,
      /^transport_error: Repository 'hub' refused our credential \(it answered 403\)/,
    );
  } finally {
    await local.close();
    await upstream.shutdown();
  }
});

Deno.test("an mcp repository whose svc mcp child is refused by its server: our 502", async () => {
  const upstream = refusingUpstream(401);
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([{
      id: "kid",
      transport: "mcp",
      locator: [
        Deno.execPath(),
        "run",
        "-A",
        CLI_MAIN,
        "mcp",
        "--url",
        `http://127.0.0.1:${upstream.addr.port}`,
      ],
      credential: "stale-key",
    }]),
  });
  try {
    assertBadGateway(await call(local.url, "POST", "/models", branchSpec()), "kid", 401, "template");
    assert.equal((await call(local.url, "POST", "/models", { id: "plain", schema: {} })).status, 201);
    assertBadGateway(
      await call(local.url, "POST", "/models/plain/promote", { toRepo: "kid" }),
      "kid",
      401,
      "promote",
    );
  } finally {
    await local.close();
    await upstream.shutdown();
  }
});
