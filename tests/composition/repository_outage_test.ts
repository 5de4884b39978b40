/**
 * A repository that fails a spec lookup (a 5xx, a 429) is no miss: the
 * resolution ends with a 502 naming it and its status, rather than going on
 * to a later repository's spec of the same identity or saying "not found". A
 * repository that does not answer at all stays a miss, which a final "not
 * found" names with its reason, on a link's fire, the link check at create
 * and evolve, and promote's closure check too.
 */
import assert from "node:assert/strict";
import { stateOf, until } from "../effects/helpers.ts";
import { call, CLI_MAIN, startTestServer } from "../server/helpers.ts";
import { baseSpec, branchSpec, sourceSpec, targetSpec } from "./helpers.ts";

/** A server on loopback answering every request with `status` (and `Retry-After: retryAfter` when given). */
function failingUpstream(status: number, retryAfter?: string) {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      Response.json({ type: "about:blank", title: "Failing", status, detail: `down (${status})` }, {
        status,
        headers: retryAfter === undefined ? {} : { "Retry-After": retryAfter },
      }),
  );
}

/** A loopback URL nothing listens on: a server bound and shut down again. */
async function closedUrl(): Promise<string> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => new Response());
  await server.shutdown();
  return `http://127.0.0.1:${server.addr.port}`;
}

Deno.test("a repository's 5xx or 429 on a lookup is our 502 naming it, not a miss the next one answers", async () => {
  const holder = await startTestServer();
  await call(holder.url, "POST", "/models", baseSpec());
  try {
    for (const status of [500, 503, 429]) {
      const upstream = failingUpstream(status);
      const local = await startTestServer({
        "svc.composition.repositories": JSON.stringify([
          { id: "hub", transport: "http", locator: `http://127.0.0.1:${upstream.addr.port}` },
          { id: "mirror", transport: "http", locator: holder.url },
        ]),
      });
      try {
        const reply = await call(local.url, "POST", "/models", branchSpec());
        assert.equal(reply.status, 502, `${status}: ${reply.text}`);
        assert.match(
          reply.json.detail,
          new RegExp(`^Repository 'hub' failed to look up 'acme/base' \\(it answered ${status}\\): down`),
        );
      } finally {
        await local.close();
        await upstream.shutdown();
      }
    }
  } finally {
    await holder.close();
  }
});

Deno.test("a repository that does not answer is a miss, named when no repository holds the model", async () => {
  const holder = await startTestServer();
  await call(holder.url, "POST", "/models", baseSpec());
  const gone = await closedUrl();
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      { id: "gone", transport: "http", locator: gone },
      { id: "mirror", transport: "http", locator: holder.url },
    ]),
  });
  try {
    const branch = await call(local.url, "POST", "/models", branchSpec());
    assert.equal(branch.status, 201, `the next repository holds it: ${branch.text}`);
    const missing = await call(local.url, "POST", "/models", branchSpec("beta/x", "acme/nowhere"));
    assert.equal(missing.status, 422, missing.text);
    const [finding] = missing.json.errors;
    assert.equal(finding.location, "template.ref");
    assert.match(
      finding.message,
      /'acme\/nowhere' is not found in any repository \(local, gone, mirror\); Repository 'gone' did not answer: Cannot reach the server at http:\/\/127\.0\.0\.1:\d+/,
    );
  } finally {
    await local.close();
    await holder.close();
  }
});

Deno.test("a repository silent past its lookupTimeoutMs, or stalling its body past it, did not answer within it: a miss", async () => {
  // Takes connections and never writes a byte.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const connection of listener) connections.push(connection);
  })();
  // Answers the status line, then never ends the body.
  const stalled = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("{")) })),
  );
  const repository = (id: string, port: number) => ({
    id,
    transport: "http",
    locator: `http://127.0.0.1:${port}`,
    lookupTimeoutMs: 50,
  });
  const silent = await startTestServer({
    "svc.composition.repositories": JSON.stringify([repository("silent", listener.addr.port)]),
  });
  const slow = await startTestServer({
    "svc.composition.repositories": JSON.stringify([repository("stalled", stalled.addr.port)]),
  });
  try {
    const missing = await call(silent.url, "POST", "/models", branchSpec());
    assert.equal(missing.status, 422, missing.text);
    assert.match(
      missing.json.errors[0].message,
      /\(local, silent\); Repository 'silent' did not answer: The server at http:\/\/127\.0\.0\.1:\d+ did not answer within 50 ms$/,
    );
    // A stalled body is no answer either, as behind an svc mcp --url child (below): before, a 502 "it answered 200".
    const stalledMiss = await call(slow.url, "POST", "/models", branchSpec());
    assert.equal(stalledMiss.status, 422, stalledMiss.text);
    assert.match(
      stalledMiss.json.errors[0].message,
      /\(local, stalled\); Repository 'stalled' did not answer: The server at http:\/\/127\.0\.0\.1:\d+ did not answer within 50 ms$/,
    );
  } finally {
    await silent.close();
    await slow.close();
    await stalled.shutdown();
    listener.close();
    for (const connection of connections) connection.close();
    await accepting;
  }
});

Deno.test("a link whose target's repository fails or does not answer says so when it fires", async () => {
  const upstream = failingUpstream(503);
  const gone = await closedUrl();
  const local = await startTestServer({
    "svc.composition.lazy-binding": "true",
    "svc.composition.repositories": JSON.stringify([
      { id: "gone", transport: "http", locator: gone },
      { id: "hub", transport: "http", locator: `http://127.0.0.1:${upstream.addr.port}` },
    ]),
  });
  try {
    assert.equal((await call(local.url, "POST", "/models", sourceSpec())).status, 201);
    await call(local.url, "POST", "/models/inv/mutations", { "$.need": true });
    const failed = await until(
      () => stateOf(local.url, "inv"),
      (s) => s.io?.pull?.phase === "failed",
      "pull",
    );
    assert.match(
      failed.io.pull.error,
      /^transport_error: Repository 'hub' failed to look up 'fx' \(it answered 503\): down/,
    );
    // Both down now: the link's target is not found, and the reasons are named.
    await upstream.shutdown();
    assert.equal((await call(local.url, "POST", "/models", sourceSpec("fx", "inv2"))).status, 201);
    await call(local.url, "POST", "/models/inv2/mutations", { "$.need": true });
    const unresolved = await until(
      () => stateOf(local.url, "inv2"),
      (s) => s.io?.pull?.phase === "failed",
      "pull unresolved",
    );
    assert.match(
      unresolved.io.pull.error,
      /^target_unresolved: 'fx' is not found in any repository \(local, gone, hub\); Repository 'gone' did not answer: .*; Repository 'hub' did not answer: /,
    );
  } finally {
    await local.close();
    await upstream.shutdown().catch(() => {});
  }
});

Deno.test("the link check and promote name a repository that did not answer; one that fails is a 502", async () => {
  const upstream = failingUpstream(503);
  const gone = await closedUrl();
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      { id: "gone", transport: "http", locator: gone },
      { id: "hub", transport: "http", locator: `http://127.0.0.1:${upstream.addr.port}` },
    ]),
  });
  try {
    const failed = await call(local.url, "POST", "/models", sourceSpec("fx"));
    assert.equal(failed.status, 502, failed.text);
    assert.match(failed.json.detail, /^Repository 'hub' failed to look up 'fx' \(it answered 503\): down/);

    // Neither answers now: the target may exist, so the finding says why it was not found, not that it is not.
    await upstream.shutdown();
    const unanswered = await call(local.url, "POST", "/models", sourceSpec("fx"));
    assert.equal(unanswered.status, 422, unanswered.text);
    const [finding] = unanswered.json.errors;
    assert.equal(finding.location, "effects[0].target.ref");
    assert.match(
      finding.message,
      /^UnresolvedLinkTarget: 'fx' is not found in any repository \(local, gone, hub\); Repository 'gone' did not answer: Cannot reach the server at .*; Repository 'hub' did not answer: .* \(svc\.composition\.lazy-binding is off\)$/,
    );

    // A promotion whose link target is here only: the web repositories that did not answer are named.
    assert.equal((await call(local.url, "POST", "/models", targetSpec("mine"))).status, 201);
    assert.equal((await call(local.url, "POST", "/models", sourceSpec("mine", "tied"))).status, 201);
    const open = await call(local.url, "POST", "/models/tied/promote", { toRepo: "hub" });
    assert.equal(open.status, 409, open.text);
    assert.match(
      open.json.detail,
      /^Promotion of 'tied' is not closed in the web repositories: 'mine' is not found in any repository \(gone, hub\); Repository 'gone' did not answer: .*; Repository 'hub' did not answer: /,
    );
  } finally {
    await local.close();
    await upstream.shutdown().catch(() => {});
  }
});

Deno.test("a promotion to a repository that fails or does not answer is a 502 naming it, not its refusal", async () => {
  const upstream = failingUpstream(503);
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      { id: "hub", transport: "http", locator: `http://127.0.0.1:${upstream.addr.port}` },
      { id: "gone", transport: "http", locator: await closedUrl() },
    ]),
  });
  try {
    assert.equal((await call(local.url, "POST", "/models", baseSpec())).status, 201);
    const path = `/models/${encodeURIComponent("acme/base")}/promote`;
    const failed = await call(local.url, "POST", path, { toRepo: "hub" });
    assert.equal(failed.status, 502, failed.text);
    assert.match(failed.json.detail, /^Repository 'hub' failed to take the model \(it answered 503\): down/);
    const unanswered = await call(local.url, "POST", path, { toRepo: "gone" });
    assert.equal(unanswered.status, 502, unanswered.text);
    assert.match(unanswered.json.detail, /^Repository 'gone' did not answer: Cannot reach the server at /);
  } finally {
    await local.close();
    await upstream.shutdown();
  }
});

Deno.test("a repository's Retry-After on a failed lookup or promotion is our 502's, capped, and said in its detail", async () => {
  // [the repository's status and Retry-After, our 502's Retry-After (null: none) and what the detail says]
  const cases: [number, string | undefined, string | null, string][] = [
    [429, "30", "30", "(it answered 429, retry after 30 s)"],
    [503, " 7 ", "7", "(it answered 503, retry after 7 s)"],
    [429, "86400", "3600", "(it answered 429, retry after 3600 s)"],
    [429, "Wed, 21 Oct 2065 07:28:00 GMT", null, "(it answered 429)"],
    [429, "-5", null, "(it answered 429)"],
    [500, undefined, null, "(it answered 500)"],
  ];
  for (const [status, upstreamWait, ourWait, said] of cases) {
    const upstream = failingUpstream(status, upstreamWait);
    const local = await startTestServer({
      "svc.composition.repositories": JSON.stringify([
        { id: "hub", transport: "http", locator: `http://127.0.0.1:${upstream.addr.port}` },
      ]),
    });
    const what = `${status} with Retry-After ${upstreamWait}`;
    try {
      const lookup = await call(local.url, "POST", "/models", branchSpec());
      assert.equal(lookup.status, 502, `${what}: ${lookup.text}`);
      assert.equal(lookup.headers.get("retry-after"), ourWait, what);
      assert.equal(
        lookup.json.detail,
        `Repository 'hub' failed to look up 'acme/base' ${said}: down (${status})`,
      );

      assert.equal((await call(local.url, "POST", "/models", baseSpec())).status, 201);
      const promote = await call(local.url, "POST", `/models/${encodeURIComponent("acme/base")}/promote`, {
        toRepo: "hub",
      });
      assert.equal(promote.status, 502, `${what}: ${promote.text}`);
      assert.equal(promote.headers.get("retry-after"), ourWait, what);
      assert.equal(
        promote.json.detail,
        `Repository 'hub' failed to take the model ${said}: down (${status})`,
      );
    } finally {
      await local.close();
      await upstream.shutdown();
    }
  }
});

Deno.test("an svc mcp --url child whose server does not answer is a miss: its failure says so by type", async () => {
  const holder = await startTestServer();
  await call(holder.url, "POST", "/models", baseSpec());
  const gone = await closedUrl();
  const local = await startTestServer({
    "svc.composition.repositories": JSON.stringify([
      {
        id: "kid",
        transport: "mcp",
        locator: [Deno.execPath(), "run", "-A", CLI_MAIN, "mcp", "--url", gone],
      },
      { id: "mirror", transport: "http", locator: holder.url },
    ]),
  });
  try {
    const branch = await call(local.url, "POST", "/models", branchSpec());
    assert.equal(branch.status, 201, `the next repository holds it: ${branch.text}`);
  } finally {
    await local.close();
    await holder.close();
  }
});

Deno.test("an svc mcp --url child: its server's 429 without Retry-After is our 502 naming the repository; a body stalled after the status line is bounded by the child's --timeout", async () => {
  const busy = failingUpstream(429);
  // Answer the status line (a 200, a 429), then never end the body.
  const stalled = (status: number) =>
    Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("{")) }), {
          status,
        }),
    );
  const stalledOk = stalled(200);
  const stalledBusy = stalled(429);
  const kid = (server: Deno.HttpServer<Deno.NetAddr>) => ({
    id: "kid",
    transport: "mcp",
    locator: [
      Deno.execPath(),
      "run",
      "-A",
      CLI_MAIN,
      "mcp",
      "--url",
      `http://127.0.0.1:${server.addr.port}`,
      "--timeout",
      "1000",
    ],
    // Far longer than the child's own wait: the child's answer, not our giving up on it, is what is seen.
    lookupTimeoutMs: 30_000,
  });
  try {
    const local = await startTestServer({ "svc.composition.repositories": JSON.stringify([kid(busy)]) });
    try {
      const reply = await call(local.url, "POST", "/models", branchSpec());
      assert.equal(reply.status, 502, reply.text);
      assert.equal(reply.headers.get("retry-after"), null, "no wait to pass on");
      assert.equal(
        reply.json.detail,
        "Repository 'kid' failed to look up 'acme/base' (it answered 429): down (429)",
      );
    } finally {
      await local.close();
    }
    for (const server of [stalledOk, stalledBusy]) {
      const local = await startTestServer({ "svc.composition.repositories": JSON.stringify([kid(server)]) });
      try {
        const missing = await call(local.url, "POST", "/models", branchSpec());
        assert.equal(missing.status, 422, missing.text);
        const expected =
          `\\(local, kid\\); Repository 'kid' did not answer: The server at http://127\\.0\\.0\\.1:${server.addr.port} did not answer within 1000 ms$`;
        assert.match(missing.json.errors[0].message, new RegExp(expected));
      } finally {
        await local.close();
      }
    }
  } finally {
    for (const server of [busy, stalledOk, stalledBusy]) await server.shutdown();
  }
});
