/**
 * Browser pairing on a real server (README "Browser pairing"): the device
 * flow's happy path, denial, expiry (on an injected clock), wrong codes and
 * their rate limit, replays, hostile bodies and headers, key mode, and what a
 * session token reaches: its own namespace's models, never another's.
 */
import assert from "node:assert/strict";
import { PairingHost } from "../../server/pairing/host.ts";
import { call, orderSpec, type Reply, startTestServer, type TestServer, uploadBlob } from "./helpers.ts";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Starts a pairing and returns its answer. */
async function start(server: TestServer, headers: Record<string, string> = {}): Promise<Reply> {
  const reply = await call(server.url, "POST", "/pair", undefined, headers);
  assert.equal(reply.status, 200, reply.text);
  return reply;
}

/** A pairing approved and collected: the agent's and the browser's session tokens. */
async function paired(server: TestServer, headers: Record<string, string> = {}) {
  const { pairCode, deviceSecret, userCode } = (await start(server)).json;
  const approved = await call(server.url, "POST", "/pair/approve", { userCode }, headers);
  assert.equal(approved.status, 200, approved.text);
  const token = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
  assert.equal(token.status, 200, token.text);
  return {
    agent: token.json.sessionToken as string,
    browser: approved.json.sessionToken as string,
    namespaceId: token.json.namespaceId as string,
  };
}

Deno.test("the device flow: start, pending, approve (code as typed), one token, then 410", async () => {
  const server = await startTestServer();
  try {
    const started = await start(server);
    assert.equal(started.headers.get("cache-control"), "no-store");
    const { pairCode, deviceSecret, userCode, verificationUri, verificationUriComplete } = started.json;
    assert.match(userCode, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    for (const secret of [pairCode, deviceSecret]) assert.match(secret, /^[A-Za-z0-9_-]{22}$/, "128 bits");
    assert.equal(verificationUri, `${server.url}/pair`);
    assert.equal(verificationUriComplete, `${server.url}/pair#code=${userCode}`);
    assert.equal(started.json.expiresInSec, 600);
    assert.equal(started.json.intervalSec, 3);

    const pending = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.equal(pending.status, 409);
    assert.equal(pending.json.error, "authorization_pending");

    // A person types the code in lower case without the dash.
    const approved = await call(server.url, "POST", "/pair/approve", {
      userCode: userCode.toLowerCase().replace("-", " "),
    });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.headers.get("cache-control"), "no-store");
    assert.match(approved.json.namespaceId, /^pair-[a-z0-9]{16}$/);

    const token = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.equal(token.status, 200);
    assert.equal(token.json.namespaceId, approved.json.namespaceId);
    assert.notEqual(token.json.sessionToken, approved.json.sessionToken, "each party has its own token");
    const session = await call(
      server.url,
      "GET",
      "/pair/session",
      undefined,
      bearer(token.json.sessionToken),
    );
    assert.deepEqual(session.json, { namespaceId: approved.json.namespaceId, party: "agent" });

    const replay = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.equal(replay.status, 410, "a used pairing never hands its session out again");
    assert.equal(replay.json.error, "already_used");
    const again = await call(server.url, "POST", "/pair/approve", { userCode });
    assert.equal(again.status, 410, "nor can it be approved again");
  } finally {
    await server.close();
  }
});

Deno.test("deny: the agent's poll answers 410 access_denied, and the code cannot be approved afterwards", async () => {
  const server = await startTestServer();
  try {
    const { pairCode, deviceSecret, userCode } = (await start(server)).json;
    const denied = await call(server.url, "POST", "/pair/deny", { userCode });
    assert.deepEqual([denied.status, denied.json], [200, { denied: true }]);
    const poll = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.deepEqual([poll.status, poll.json.error], [410, "access_denied"]);
    const late = await call(server.url, "POST", "/pair/approve", { userCode });
    assert.equal(late.status, 410);
    assert.match(late.json.detail, /denied/);
  } finally {
    await server.close();
  }
});

Deno.test("expiry on the pairing's clock: 410 expired_token, then forgotten (404)", async () => {
  let now = 1_000_000;
  const server = await startTestServer({}, {
    pairing: new PairingHost({ now: () => now, expiresInSec: 600 }),
  });
  try {
    const { pairCode, deviceSecret, userCode } = (await start(server)).json;
    now += 599_000;
    assert.equal((await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).status, 409);
    now += 1_000;
    const expired = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.deepEqual([expired.status, expired.json.error], [410, "expired_token"]);
    const late = await call(server.url, "POST", "/pair/approve", { userCode });
    assert.equal(late.status, 410, "an expired code cannot be approved");
    assert.match(late.json.detail, /expired/);
    now += 600_000;
    assert.equal((await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).status, 404);
  } finally {
    await server.close();
  }
});

Deno.test("wrong codes: 404, and a client guessing codes is stopped (429) before it can find one", async () => {
  let now = 0;
  const server = await startTestServer({ "svc.rate-limit.trust-forwarded-for": "true" }, {
    pairing: new PairingHost({ now: () => now, expiresInSec: 3600 }),
  });
  const from = (address: string) => ({ "x-forwarded-for": address });
  try {
    const { pairCode, deviceSecret, userCode } = (await start(server)).json;
    const wrong = userCode === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    const miss = await call(server.url, "POST", "/pair/approve", { userCode: wrong }, from("10.0.0.9"));
    assert.equal(miss.status, 404);
    assert.match(miss.json.detail, /No pairing has this code/);
    for (const guess of ["not a code", "BCDF-GHJ", "AAAA-AAAA", "BCDF-GHJKL"]) {
      assert.equal(
        (await call(server.url, "POST", "/pair/deny", { userCode: guess }, from("10.0.0.9"))).status,
        404,
      );
    }
    for (let i = 0; i < 5; i++) {
      assert.equal(
        (await call(server.url, "POST", "/pair/approve", { userCode: wrong }, from("10.0.0.9"))).status,
        404,
      );
    }
    // Ten wrong codes: even the right one is refused from that address now.
    const stopped = await call(server.url, "POST", "/pair/approve", { userCode }, from("10.0.0.9"));
    assert.equal(stopped.status, 429);
    assert.ok(Number(stopped.headers.get("retry-after")) > 0);
    assert.equal((await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).status, 409);
    // Another address is not affected; and the window slides.
    assert.equal(
      (await call(server.url, "POST", "/pair/deny", { userCode: wrong }, from("10.0.0.10"))).status,
      404,
    );
    now += 600_001;
    assert.equal(
      (await call(server.url, "POST", "/pair/approve", { userCode }, from("10.0.0.9"))).status,
      200,
    );
  } finally {
    await server.close();
  }
});

/**
 * Sends a POST whose headers go out now and whose body goes out when the
 * returned function is called; that answers the status, 0 when the server
 * closed the connection first (it may, once it answered without the body).
 */
async function heldPost(url: string, path: string, body: unknown): Promise<() => Promise<number>> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const text = JSON.stringify(body);
  const head = `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${text.length}\r\nConnection: close\r\n\r\n`;
  await conn.write(new TextEncoder().encode(head));
  return async () => {
    try {
      await conn.write(new TextEncoder().encode(text));
    } catch {
      // answered already, without reading the body
    }
    try {
      return Number((await new Response(conn.readable).text()).split(" ")[1]);
    } catch {
      try {
        conn.close();
      } catch {
        // closed with its stream
      }
      return 0;
    }
  };
}

Deno.test("wrong codes sent at once count before their bodies arrive: the right one among them is refused", async () => {
  const server = await startTestServer();
  try {
    const { pairCode, deviceSecret, userCode } = (await start(server)).json;
    const wrong = userCode === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    // Every request's headers first, then every body: the handlers wait for their bodies together.
    const held = [];
    for (let i = 0; i < 19; i++) held.push(await heldPost(server.url, "/pair/approve", { userCode: wrong }));
    held.push(await heldPost(server.url, "/pair/approve", { userCode }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const statuses = [];
    for (const send of held) statuses.push(await send());
    assert.equal(statuses.filter((status) => status === 404).length, 10, String(statuses));
    assert.ok(statuses.every((status) => [404, 429, 0].includes(status)), String(statuses));
    assert.equal((await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).status, 409);
  } finally {
    await server.close();
  }
});

Deno.test("a decision or a malformed body does not count as a wrong code", async () => {
  const server = await startTestServer({ "svc.rate-limit.trust-forwarded-for": "true" });
  const from = (address: string) => ({ "x-forwarded-for": address });
  try {
    for (let i = 0; i < 12; i++) {
      // Started from addresses of their own: new pairings are limited per address too.
      const { userCode } = (await start(server, from(`10.0.1.${i}`))).json;
      const malformed = await call(server.url, "POST", "/pair/deny", { code: userCode }, from("10.0.0.1"));
      assert.equal(malformed.status, 400);
      const decided = await call(server.url, "POST", "/pair/deny", { userCode }, from("10.0.0.1"));
      assert.equal(decided.status, 200, decided.text);
    }
    for (let i = 0; i < 10; i++) {
      const miss = await call(server.url, "POST", "/pair/deny", { userCode: "BCDF-GHJK" }, from("10.0.0.1"));
      assert.equal(miss.status, 404);
    }
    const stopped = await call(server.url, "POST", "/pair/deny", { userCode: "BCDF-GHJK" }, from("10.0.0.1"));
    assert.equal(stopped.status, 429);
  } finally {
    await server.close();
  }
});

Deno.test("rate limits: new pairings and polls per client address, with Retry-After; capacity", async () => {
  let now = 0;
  const server = await startTestServer({}, { pairing: new PairingHost({ now: () => now, maxPending: 12 }) });
  try {
    for (let i = 0; i < 10; i++) await start(server);
    const refused = await call(server.url, "POST", "/pair");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "60");
    // X-Forwarded-For is not trusted by default: a spoofed address is still this client.
    assert.equal(
      (await call(server.url, "POST", "/pair", undefined, { "x-forwarded-for": "1.2.3.4" })).status,
      429,
    );
    now += 60_001;
    const { pairCode, deviceSecret } = (await start(server)).json;
    await start(server);
    const full = await call(server.url, "POST", "/pair");
    assert.equal(full.status, 429, "at most maxPending pairings wait at once");
    assert.match(full.json.detail, /already waiting/);

    for (let i = 0; i < 60; i++) {
      assert.equal((await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).status, 409);
    }
    const polled = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.equal(polled.status, 429);
  } finally {
    await server.close();
  }
});

Deno.test("a wrong device secret is an unknown pairing and does not spoil the real one", async () => {
  const server = await startTestServer();
  try {
    const { pairCode, deviceSecret, userCode } = (await start(server)).json;
    const flipped = deviceSecret.slice(0, -1) + (deviceSecret.endsWith("A") ? "B" : "A");
    for (const body of [{ pairCode, deviceSecret: flipped }, { pairCode: flipped, deviceSecret }]) {
      assert.equal((await call(server.url, "POST", "/pair/token", body)).status, 404);
    }
    await call(server.url, "POST", "/pair/approve", { userCode });
    assert.equal(
      (await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret: flipped })).status,
      404,
    );
    assert.equal((await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("hostile bodies and headers on the pairing routes", async () => {
  const server = await startTestServer({ "svc.http.max-body-size": "4KB" });
  try {
    const { pairCode, deviceSecret } = (await start(server)).json;
    const cases: [string, unknown, Record<string, string>, number][] = [
      ["/pair/token", "{not json", {}, 400],
      ["/pair/token", { pairCode, deviceSecret }, { "content-type": "text/plain" }, 415],
      ["/pair/token", JSON.stringify({ pairCode, deviceSecret }), {
        "content-type": "application/x-www-form-urlencoded",
      }, 415],
      ["/pair/token", [pairCode, deviceSecret], {}, 400],
      ["/pair/token", { pairCode }, {}, 400],
      ["/pair/token", { pairCode: 1, deviceSecret: 2 }, {}, 400],
      ["/pair/token", { pairCode: "x".repeat(201), deviceSecret }, {}, 400],
      ["/pair/token", { pairCode: "x".repeat(5000), deviceSecret }, {}, 413],
      ["/pair/token", { __proto__: { pairCode }, constructor: { deviceSecret } }, {}, 400],
      ["/pair/approve", null, {}, 400],
      ["/pair/approve", { userCode: { $ne: "" } }, {}, 400],
      ["/pair/approve", "", {}, 400],
    ];
    for (const [path, body, headers, status] of cases) {
      const reply = await call(server.url, "POST", path, body, headers);
      assert.equal(reply.status, status, `${path} ${JSON.stringify(body)?.slice(0, 60)}: ${reply.text}`);
      assert.match(reply.headers.get("content-type") ?? "", /problem\+json/);
    }
    // Session-looking tokens that no session has are 401, in open mode too (never unscoped access).
    for (const token of ["svcs_", `svcs_${"A".repeat(22)}.${"B".repeat(22)}`, "svcs_../../etc"]) {
      const reply = await call(server.url, "GET", "/models", undefined, bearer(token));
      assert.equal(reply.status, 401);
      assert.match(reply.json.error, /pairing session/);
      assert.equal(
        (await call(server.url, "GET", `/models/x/subscribe?token=${encodeURIComponent(token)}`)).status,
        401,
      );
    }
    assert.equal((await call(server.url, "GET", "/pair/session")).status, 401);
    // A cross-site page cannot decide for the person: no JSON without a preflight, no foreign origin.
    const { userCode } = (await start(server)).json;
    const form = await call(server.url, "POST", "/pair/approve", `userCode=${userCode}`, {
      "content-type": "application/x-www-form-urlencoded",
    });
    assert.equal(form.status, 415);
    const foreign = await call(server.url, "POST", "/pair/approve", { userCode }, {
      origin: "http://evil.example",
    });
    assert.equal(foreign.status, 403);
    assert.equal((await call(server.url, "POST", "/pair/deny", { userCode })).status, 200, "still undecided");
    assert.equal((await call(server.url, "DELETE", "/pair")).status, 405);
  } finally {
    await server.close();
  }
});

Deno.test("a session token reaches its own namespace's models only", async () => {
  const server = await startTestServer();
  try {
    const one = await paired(server);
    const two = await paired(server);
    assert.notEqual(one.namespaceId, two.namespaceId);
    const as = (token: string) => bearer(token);
    // The same plain id in two sessions never collides; the service stores them apart.
    assert.equal((await call(server.url, "POST", "/models", orderSpec("cart"), as(one.agent))).status, 201);
    assert.equal((await call(server.url, "POST", "/models", orderSpec("cart"), as(two.agent))).status, 201);
    assert.equal((await call(server.url, "POST", "/models", orderSpec("global"))).status, 201);
    await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 2, "$.price": 5 }, as(one.agent));
    assert.deepEqual((await call(server.url, "GET", "/models", undefined, as(one.agent))).json, ["cart"]);
    assert.deepEqual((await call(server.url, "GET", "/models", undefined, as(one.browser))).json, ["cart"]);
    assert.deepEqual(
      ((await call(server.url, "GET", "/models")).json as string[]).sort(),
      ["global", `${one.namespaceId}/cart`, `${two.namespaceId}/cart`].sort(),
    );
    assert.equal(
      (await call(server.url, "GET", "/models/cart/state", undefined, as(one.browser))).json.total,
      10,
    );
    assert.equal(
      (await call(server.url, "GET", "/models/cart/state", undefined, as(two.agent))).json.total,
      undefined,
    );
    const info = await call(server.url, "GET", "/models/cart", undefined, as(one.agent));
    assert.equal(info.json.id, "cart", "ids are shown plain");
    const spec = await call(server.url, "GET", "/models/cart/spec", undefined, as(one.agent));
    assert.equal(spec.json.id, "cart");

    const escapes: [string, string, unknown, number][] = [
      ["GET", `/models/${encodeURIComponent(`${two.namespaceId}/cart`)}/state`, undefined, 403],
      ["GET", `/models/${encodeURIComponent(`${one.namespaceId}/cart`)}/state`, undefined, 403],
      ["GET", "/models/global/state", undefined, 404],
      ["GET", "/models/..%2Fglobal/state", undefined, 403],
      ["POST", "/models/global/mutations", { "$.qty": 1 }, 404],
      ["DELETE", "/models/global", undefined, 404],
      ["POST", "/models", orderSpec(`${two.namespaceId}/mine`), 403],
      ["POST", "/models", { ...orderSpec("branch"), template: { ref: `${two.namespaceId}/cart` } }, 403],
      ["POST", "/models", { ...orderSpec("branch"), template: { ref: "global" } }, 422],
      ["POST", "/models", {
        ...orderSpec("spy"),
        effects: [{ id: "l", trigger: "true", target: { ref: `${two.namespaceId}/cart`, read: "$.total" } }],
      }, 403],
      ["POST", "/models/cart/spec/evolve", {
        upsertEffects: [{
          id: "w",
          trigger: "true",
          target: { ref: `${two.namespaceId}/cart`, path: "$.qty" },
          body: "1",
        }],
      }, 403],
      ["POST", "/models/cart/restore", { modelId: `${two.namespaceId}/cart`, baseDoc: {} }, 403],
      ["GET", "/admin/recovery", undefined, 403],
      ["DELETE", "/admin/recovery/cart", undefined, 403],
      ["POST", "/admin/blobs/gc", undefined, 403],
      ["GET", "/composition/graph", undefined, 200],
      ["GET", "/actuator/metrics", undefined, 403],
      ["POST", "/pair/approve", { userCode: "BCDF-GHJK" }, 403],
      ["POST", "/models/generate/preview", { modelId: "x", domainDescription: "d" }, 403],
    ];
    for (const [method, path, body, status] of escapes) {
      const reply = await call(server.url, method, path, body, as(one.agent));
      assert.equal(reply.status, status, `${method} ${path}: ${reply.text}`);
      const named = `${path} ${JSON.stringify(body)}`.includes(two.namespaceId);
      assert.ok(!reply.text.includes(two.namespaceId) || named, `no other namespace leaks: ${reply.text}`);
    }
    // Generation is outside a session: its status read says so rather than failing.
    assert.deepEqual((await call(server.url, "GET", "/llm/status", undefined, as(one.browser))).json, {
      available: false,
      message: "A pairing session cannot use LLM generation: it reaches only its own models",
    });
    const graph = await call(server.url, "GET", "/composition/graph", undefined, as(one.agent));
    assert.deepEqual(graph.json.nodes.map((n: { ref: string }) => n.ref), ["cart"]);
    // A template inside the session is found by its plain name.
    const branch = await call(server.url, "POST", "/models", {
      ...orderSpec("branch"),
      schema: {},
      template: { ref: "cart" },
    }, as(one.agent));
    assert.equal(branch.status, 201, branch.text);
    const lineage = await call(server.url, "GET", "/models/branch/lineage", undefined, as(one.agent));
    assert.equal(lineage.json[0].ref, "cart");
    const missing = await call(server.url, "GET", "/models/nope/state", undefined, as(one.agent));
    assert.equal(missing.json.detail.includes(one.namespaceId), false, "messages show plain ids");
  } finally {
    await server.close();
  }
});

Deno.test("a library extends only the session's own models", async () => {
  const server = await startTestServer();
  try {
    const one = await paired(server);
    const two = await paired(server);
    const define = '( $double := function($x) { $x * 2 }; ["double"] )';
    const base = { ...orderSpec("base"), library: { define } };
    for (const { agent } of [one, two]) {
      assert.equal((await call(server.url, "POST", "/models", base, bearer(agent))).status, 201);
    }
    const user = {
      ...orderSpec("user"),
      library: { define: '( $quad := function($x) { $double($double($x)) }; ["quad"] )', extends: "base" },
    };
    const created = await call(server.url, "POST", "/models", user, bearer(one.agent));
    assert.equal(created.status, 201, created.text);
    const library = await call(server.url, "GET", "/models/user/library", undefined, bearer(one.agent));
    assert.equal(library.json.layers[0].ref, "base");
    assert.match(library.json.layers[0].origin, /^base@/);
    assert.ok(!library.text.includes(one.namespaceId), "shown plainly");
    const spec = await call(server.url, "GET", "/models/user/spec", undefined, bearer(one.agent));
    assert.ok(!spec.text.includes(one.namespaceId), spec.text);

    const escape = { ...user, id: "thief", library: { ...user.library, extends: `${two.namespaceId}/base` } };
    assert.equal((await call(server.url, "POST", "/models", escape, bearer(one.agent))).status, 403);
    const evolve = await call(server.url, "POST", "/models/base/spec/evolve", {
      newLibrary: { define, extends: `${two.namespaceId}/base` },
    }, bearer(one.agent));
    assert.equal(evolve.status, 403);
  } finally {
    await server.close();
  }
});

Deno.test("blobs through a session: upload, read through the model, never by id alone", async () => {
  const server = await startTestServer();
  try {
    const { agent } = await paired(server);
    await call(server.url, "POST", "/models", orderSpec("doc"), bearer(agent));
    const form = new FormData();
    form.append("file", new Blob(["hello"]), "a.txt");
    form.append("mediaType", "text/plain");
    const uploaded = await call(server.url, "POST", "/blobs", form, bearer(agent));
    assert.equal(uploaded.status, 201, uploaded.text);
    const ref = uploaded.json;
    await call(server.url, "POST", "/models/doc/mutations", { "$.file": ref }, bearer(agent));
    const read = await call(server.url, "GET", `/models/doc/blobs/${ref.$blobId}`, undefined, bearer(agent));
    assert.deepEqual([read.status, read.text], [200, "hello"]);
    assert.equal(
      (await call(server.url, "GET", `/blobs/${ref.$blobId}`, undefined, bearer(agent))).status,
      403,
    );
  } finally {
    await server.close();
  }
});

Deno.test("a session reads through its models only the blobs it uploaded, never another's by a forged BlobRef", async () => {
  const key = "blob-owner-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    const secret = await uploadBlob(server.url, "operator private payroll data", {
      mediaType: "text/x-secret",
      headers: bearer(key),
    });
    assert.equal(secret.status, 201, secret.text);
    const blobId = secret.json.$blobId as string;
    const { agent, browser } = await paired(server, bearer(key));
    assert.equal((await call(server.url, "GET", `/blobs/${blobId}`, undefined, bearer(agent))).status, 403);

    // A BlobRef naming the operator's blob, written into the session's own model.
    await call(server.url, "POST", "/models", { id: "holder", schema: { type: "object" } }, bearer(agent));
    const forged = { $blobId: blobId, $mediaType: "text/plain", $bytes: 1 };
    const written = await call(
      server.url,
      "POST",
      "/models/holder/mutations",
      { "$.f": forged },
      bearer(agent),
    );
    assert.equal(written.status, 200, written.text);
    const stolen = await call(server.url, "GET", `/models/holder/blobs/${blobId}`, undefined, bearer(agent));
    assert.equal(stolen.status, 404, stolen.text);
    assert.equal(stolen.text.includes("payroll"), false);
    // A blob nobody stored is answered alike: the answer tells nothing about existence.
    const absentId = "0".repeat(64);
    await call(
      server.url,
      "POST",
      "/models/holder/mutations",
      { "$.g": { ...forged, $blobId: absentId } },
      bearer(agent),
    );
    const absent = await call(
      server.url,
      "GET",
      `/models/holder/blobs/${absentId}`,
      undefined,
      bearer(agent),
    );
    assert.equal(absent.status, 404);
    assert.equal(absent.json.detail.replace(absentId, blobId), stolen.json.detail);

    // Uploading the same bytes answers the session's own media type, not the operator's.
    const again = await uploadBlob(server.url, "operator private payroll data", {
      mediaType: "text/plain",
      headers: bearer(agent),
    });
    assert.deepEqual([again.status, again.json.$blobId, again.json.$mediaType], [201, blobId, "text/plain"]);
    const untyped = await uploadBlob(server.url, "operator private payroll data", {
      headers: bearer(browser),
    });
    assert.equal(untyped.json.$mediaType, "text/plain", "the namespace's first upload of these bytes");
    // Now the session uploaded them, it reads them through its model, as it typed them.
    const own = await call(server.url, "GET", `/models/holder/blobs/${blobId}`, undefined, bearer(browser));
    assert.deepEqual([own.status, own.text, own.headers.get("content-type")], [
      200,
      "operator private payroll data",
      "text/plain",
    ]);
    // The store keeps the first media type: the operator's read is unchanged.
    const operators = await call(server.url, "GET", `/blobs/${blobId}`, undefined, bearer(key));
    assert.equal(operators.headers.get("content-type"), "text/x-secret");

    // Another session cannot borrow this one's upload either.
    const other = await paired(server, bearer(key));
    await call(
      server.url,
      "POST",
      "/models",
      { id: "holder", schema: { type: "object" } },
      bearer(other.agent),
    );
    await call(server.url, "POST", "/models/holder/mutations", { "$.f": forged }, bearer(other.agent));
    const borrowed = await call(
      server.url,
      "GET",
      `/models/holder/blobs/${blobId}`,
      undefined,
      bearer(other.agent),
    );
    assert.equal(borrowed.status, 404);
    const fresh = await uploadBlob(server.url, "operator private payroll data", {
      headers: bearer(other.agent),
    });
    assert.equal(
      fresh.json.$mediaType,
      "application/octet-stream",
      "the default: nothing of the others' types",
    );
  } finally {
    await server.close();
  }
});

Deno.test("the change feed with a session token: plain ids in, plain ids in the frames", async () => {
  const server = await startTestServer();
  try {
    const { agent, browser, namespaceId } = await paired(server);
    await call(server.url, "POST", "/models", orderSpec("cart"), bearer(agent));
    const socket = new WebSocket(
      `${server.wsUrl}/models/cart/subscribe?token=${encodeURIComponent(browser)}`,
    );
    const frame = new Promise<Record<string, unknown>>((
      resolve,
    ) => (socket.onmessage = (e) => resolve(JSON.parse(e.data))));
    await new Promise((resolve, reject) => ((socket.onopen = resolve), (socket.onerror = reject)));
    await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 1 }, bearer(agent));
    assert.equal((await frame).modelId, "cart");
    socket.close();
    await new Promise((resolve) => (socket.onclose = resolve));
    const other = await call(
      server.url,
      "GET",
      `/models/${encodeURIComponent(`${namespaceId}/cart`)}/subscribe?token=${encodeURIComponent(browser)}`,
      undefined,
      { upgrade: "websocket" },
    );
    assert.equal(other.status, 403);
    // Without the token the global id is reachable in open mode, as before: the session scopes its holder only.
    const open = await call(server.url, "GET", `/models/${encodeURIComponent(`${namespaceId}/cart`)}/state`);
    assert.equal(open.status, 200);
  } finally {
    await server.close();
  }
});

/** A socket on a model's feed, open, with the frames it got and how it closed. */
async function feed(server: TestServer, id: string, token: string) {
  const socket = new WebSocket(`${server.wsUrl}/models/${encodeURIComponent(id)}/subscribe?token=${token}`);
  const frames: string[] = [];
  socket.onmessage = (e) => frames.push(String(e.data));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.onclose = (e) => resolve({ code: e.code, reason: e.reason })
  );
  await new Promise((resolve, reject) => ((socket.onopen = resolve), (socket.onerror = reject)));
  return { socket, frames, closed };
}

Deno.test("ending a session closes the feeds its tokens opened (4401), by either party or the operator", async () => {
  const key = "feed-end-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    for (const end of ["session", "operator"] as const) {
      const { agent, browser, namespaceId } = await paired(server, bearer(key));
      await call(server.url, "POST", "/models", orderSpec("cart"), bearer(agent));
      const stored = `${namespaceId}/cart`;
      const mine = await feed(server, "cart", browser);
      const operators = await feed(server, stored, key);
      await call(server.url, "POST", "/models/cart/mutations", { "$.qty": 1 }, bearer(agent));
      const ended = end === "session"
        ? await call(server.url, "DELETE", "/pair/session", undefined, bearer(browser))
        : await call(server.url, "DELETE", `/admin/pairings/${namespaceId}`, undefined, bearer(key));
      assert.equal(ended.status, 204);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const closed = await Promise.race([
        mine.closed,
        new Promise((resolve) => (timer = setTimeout(() => resolve("still open after 2 s"), 2000))),
      ]);
      clearTimeout(timer);
      assert.deepEqual(closed, { code: 4401, reason: "the pairing session ended" }, end);
      const seen = mine.frames.length;
      const write = await call(
        server.url,
        "POST",
        `/models/${encodeURIComponent(stored)}/mutations`,
        { "$.qty": 2 },
        bearer(key),
      );
      assert.equal(write.status, 200, write.text);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(mine.frames.length, seen, "no frame after the end");
      assert.equal(operators.socket.readyState, WebSocket.OPEN, "the key's feed of the model stays");
      assert.equal(operators.frames.length, 2);
      operators.socket.close();
      await operators.closed;
    }
  } finally {
    await server.close();
  }
});

/** How a socket on a model's feed ended, without waiting for it to open (a refused handshake never does). */
function ending(server: TestServer, id: string, token: string) {
  const socket = new WebSocket(`${server.wsUrl}/models/${encodeURIComponent(id)}/subscribe?token=${token}`);
  let frames = 0;
  socket.onmessage = () => frames++;
  return new Promise<{ code: number; reason: string; frames: number }>((resolve) =>
    socket.onclose = (e) => resolve({ code: e.code, reason: e.reason, frames })
  );
}

Deno.test("a feed opened after its session ended is closed at once with 4401, not refused at the handshake", async () => {
  const key = "late-feed-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    const { agent, browser } = await paired(server, bearer(key));
    await call(server.url, "POST", "/models", orderSpec("cart"), bearer(agent));
    assert.equal((await call(server.url, "DELETE", "/pair/session", undefined, bearer(browser))).status, 204);
    const unknown = `svcs_${"A".repeat(22)}.${"A".repeat(22)}`;
    // Browsers report a refused handshake as 1006 only, which the feed's clients retry for ever.
    for (const token of [browser, agent, unknown]) {
      for (const id of ["cart", "never-created"]) {
        assert.deepEqual(
          await ending(server, id, encodeURIComponent(token)),
          { code: 4401, reason: "the pairing session ended", frames: 0 },
          `${id} with ${token === unknown ? "an unknown" : "an ended"} token`,
        );
      }
    }
    // A plain request with the token, or an upgrade that is no valid handshake, is still refused as before.
    for (const headers of [{}, { upgrade: "websocket" }] as Record<string, string>[]) {
      const plain = await call(
        server.url,
        "GET",
        `/models/cart/subscribe?token=${encodeURIComponent(browser)}`,
        undefined,
        headers,
      );
      assert.equal(plain.status, 401, JSON.stringify(headers));
      assert.match(plain.json.error, /Unknown or ended pairing session/);
    }
    // A wrong API key is still refused at the handshake: only a session's token is answered this way.
    const wrongKey = await call(server.url, "GET", "/models/cart/subscribe?token=nope", undefined, {
      upgrade: "websocket",
    });
    assert.equal(wrongKey.status, 401);
    assert.equal(server.subscriptions.size, 0, "no socket is kept");
  } finally {
    await server.close();
  }
});

Deno.test("with an API key: approving needs the key, polling does not, and a session token is a credential", async () => {
  const key = "pairing-test-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    const { pairCode, deviceSecret, userCode } = (await start(server)).json;
    assert.equal((await call(server.url, "POST", "/pair/approve", { userCode })).status, 401);
    assert.equal((await call(server.url, "POST", "/pair/deny", { userCode })).status, 401);
    assert.equal((await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).status, 409);
    assert.equal((await call(server.url, "POST", "/pair/approve", { userCode }, bearer(key))).status, 200);
    const { sessionToken } = (await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret })).json;
    assert.equal(
      (await call(server.url, "POST", "/models", orderSpec("m"), bearer(sessionToken))).status,
      201,
    );
    assert.deepEqual((await call(server.url, "GET", "/models", undefined, bearer(sessionToken))).json, ["m"]);
    assert.equal(
      (await call(server.url, "GET", "/actuator/metrics", undefined, bearer(sessionToken))).status,
      403,
    );
    assert.equal(
      (await call(server.url, "GET", "/v3/api-docs", undefined, bearer(sessionToken))).status,
      403,
    );
    assert.equal((await call(server.url, "POST", "/mcp", {}, bearer(sessionToken))).status, 403);
    assert.equal(
      (await call(server.url, "GET", "/actuator/health", undefined, bearer(sessionToken))).status,
      200,
    );
    assert.equal(
      (await call(server.url, "GET", "/models")).status,
      401,
      "the key still guards everything else",
    );
  } finally {
    await server.close();
  }
});

Deno.test("a stale session token does not close the open paths; elsewhere it is still 401", async () => {
  const key = "stale-token-key";
  const server = await startTestServer({ "svc.api.key": key });
  try {
    const session = await paired(server, bearer(key));
    assert.equal(
      (await call(server.url, "DELETE", "/pair/session", undefined, bearer(session.agent))).status,
      204,
    );
    const unknown = `svcs_${"A".repeat(22)}.${"A".repeat(22)}`;
    for (const token of [session.browser, unknown]) {
      for (const path of ["/actuator/health", "/actuator/info", "/", "/pair"]) {
        const reply = await call(server.url, "GET", path, undefined, bearer(token));
        // The playground's pages answer 503 where the web build is missing: neither is a refusal.
        assert.ok(![401, 403].includes(reply.status), `GET ${path}: ${reply.status} ${reply.text}`);
      }
      const started = await call(server.url, "POST", "/pair", undefined, bearer(token));
      assert.equal(started.status, 200, started.text);
      const { pairCode, deviceSecret } = started.json;
      const poll = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret }, bearer(token));
      assert.equal(poll.status, 409, poll.text);
      const refused = await call(server.url, "GET", "/models", undefined, bearer(token));
      assert.equal(refused.status, 401);
      assert.deepEqual(Object.keys(refused.json), ["error"]);
      assert.match(refused.json.error, /Unknown or ended pairing session/);
      assert.equal(
        refused.headers.get("content-type"),
        "application/json",
        "the gate's body is no problem document",
      );
    }
  } finally {
    await server.close();
  }
});

Deno.test("the operator lists the live sessions and ends one; a session's token cannot", async () => {
  const key = "operator-key";
  const server = await startTestServer({ "svc.api.key": key });
  const asOperator = bearer(key);
  try {
    const first = await paired(server, asOperator);
    const second = await paired(server, asOperator);
    assert.equal(
      (await call(server.url, "POST", "/models", orderSpec("m"), bearer(first.agent))).status,
      201,
    );
    // A pending pairing is no session yet.
    await start(server);

    const listed = await call(server.url, "GET", "/admin/pairings", undefined, asOperator);
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.json.map((s: Record<string, unknown>) => [s.namespaceId, s.parties, s.models]),
      [[first.namespaceId, ["agent", "browser"], 1], [second.namespaceId, ["agent", "browser"], 0]],
    );
    for (const session of listed.json) {
      assert.ok(Date.parse(session.createdAt) <= Date.parse(session.lastUsedAt), JSON.stringify(session));
      assert.equal(JSON.stringify(session).includes("svcs_"), false, "no token in the listing");
    }
    assert.equal(
      (await call(server.url, "GET", "/admin/pairings")).status,
      401,
      "the key guards the listing",
    );
    for (const token of [first.agent, first.browser]) {
      assert.equal((await call(server.url, "GET", "/admin/pairings", undefined, bearer(token))).status, 403);
      assert.equal(
        (await call(server.url, "DELETE", `/admin/pairings/${second.namespaceId}`, undefined, bearer(token)))
          .status,
        403,
        "a session cannot end another",
      );
    }

    const ended = await call(
      server.url,
      "DELETE",
      `/admin/pairings/${first.namespaceId}`,
      undefined,
      asOperator,
    );
    assert.equal(ended.status, 204, ended.text);
    for (const token of [first.agent, first.browser]) {
      assert.equal((await call(server.url, "GET", "/models", undefined, bearer(token))).status, 401);
    }
    assert.equal((await call(server.url, "GET", "/models", undefined, bearer(second.agent))).status, 200);
    assert.deepEqual(
      (await call(server.url, "GET", "/admin/pairings", undefined, asOperator)).json.map((
        s: Record<string, unknown>,
      ) => s.namespaceId),
      [second.namespaceId],
    );
    assert.deepEqual(
      (await call(server.url, "GET", "/models", undefined, asOperator)).json,
      [`${first.namespaceId}/m`],
      "the ended session's models stay",
    );
    const again = await call(
      server.url,
      "DELETE",
      `/admin/pairings/${first.namespaceId}`,
      undefined,
      asOperator,
    );
    assert.equal(again.status, 404);
    assert.match(again.json.detail, /No live pairing session has namespace 'pair-/);
    // What is not a namespace is not echoed back.
    for (const hostile of ["x".repeat(4000), "%3Cscript%3E", "pair-..%2F..", "%00"]) {
      const reply = await call(server.url, "DELETE", `/admin/pairings/${hostile}`, undefined, asOperator);
      assert.equal(reply.status, 404, hostile);
      assert.equal(reply.json.detail, "No live pairing session has this namespace (they are pair-…)");
    }
    assert.equal((await call(server.url, "GET", "/models", undefined, bearer(second.agent))).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("open mode: the sessions are listed, but ending one needs a configured API key (403)", async () => {
  const server = await startTestServer();
  try {
    const session = await paired(server);
    assert.deepEqual(
      (await call(server.url, "GET", "/admin/pairings")).json.map((s: Record<string, unknown>) =>
        s.namespaceId
      ),
      [session.namespaceId],
    );
    const refused = await call(server.url, "DELETE", `/admin/pairings/${session.namespaceId}`);
    assert.equal(refused.status, 403);
    assert.match(refused.json.detail, /needs a configured API key \(svc\.api\.key\)/);
    assert.equal((await call(server.url, "GET", "/models", undefined, bearer(session.agent))).status, 200);
  } finally {
    await server.close();
  }
});

Deno.test("svc.pairing.enabled=false: no pairing routes, no approve page", async () => {
  const server = await startTestServer({ "svc.pairing.enabled": "false" });
  try {
    const reply = await call(server.url, "POST", "/pair");
    assert.equal(reply.status, 404);
    assert.match(reply.json.detail, /svc\.pairing\.enabled/);
  } finally {
    await server.close();
  }
});

Deno.test("the OpenAPI document describes the pairing routes", async () => {
  const server = await startTestServer();
  try {
    const doc = (await call(server.url, "GET", "/v3/api-docs")).json;
    for (
      const path of [
        "/pair",
        "/pair/token",
        "/pair/approve",
        "/pair/deny",
        "/pair/session",
        "/admin/pairings",
      ]
    ) {
      assert.ok(doc.paths[path], path);
    }
    assert.ok(doc.components.schemas.PairingStarted.properties.userCode);
    assert.deepEqual(
      Object.keys(doc.paths["/pair/token"].post.responses).filter((s) => s !== "413" && s !== "415").sort(),
      [
        "200",
        "400",
        "404",
        "409",
        "410",
        "429",
      ],
    );
  } finally {
    await server.close();
  }
});

Deno.test("rejoin: the agent's link once no tab held the session 90 s; the old tab's token and feed end", async () => {
  let now = Date.now();
  const server = await startTestServer({}, { pairing: new PairingHost({ now: () => now }) });
  try {
    const { agent, browser, namespaceId } = await paired(server);
    await call(server.url, "POST", "/models", orderSpec("cart"), bearer(agent));
    const oldFeed = await feed(server, "cart", browser);
    const agentFeed = await feed(server, "cart", agent);
    const refused = await call(server.url, "POST", "/pair/session", undefined, bearer(browser));
    assert.equal(refused.status, 403, "only the agent hands out links");
    const held = await call(server.url, "POST", "/pair/session", undefined, bearer(agent));
    assert.equal(held.status, 409, held.text);
    assert.equal(held.json.error, "tab_present");

    now += 91_000;
    const link = await call(server.url, "POST", "/pair/session", undefined, bearer(agent));
    assert.equal(link.status, 200, link.text);
    assert.equal(link.headers.get("cache-control"), "no-store");
    const { pairCode, deviceSecret, userCode, verificationUriComplete } = link.json;
    assert.equal(verificationUriComplete, `${server.url}/pair#code=${userCode}`);
    const pending = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.equal(pending.status, 409);

    const approved = await call(server.url, "POST", "/pair/approve", { userCode });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.json.namespaceId, namespaceId);
    assert.notEqual(approved.json.sessionToken, browser);
    assert.equal((await call(server.url, "POST", "/pair/approve", { userCode })).status, 410, "single-use");
    const collected = await call(server.url, "POST", "/pair/token", { pairCode, deviceSecret });
    assert.deepEqual(collected.json, { sessionToken: agent, namespaceId }, "the agent's own token");

    let timer: ReturnType<typeof setTimeout> | undefined;
    const closed = await Promise.race([
      oldFeed.closed,
      new Promise((resolve) => (timer = setTimeout(() => resolve("still open after 2 s"), 2000))),
    ]);
    clearTimeout(timer);
    assert.deepEqual(
      closed,
      { code: 4401, reason: "the pairing session moved to another tab" },
      "the old tab's feed",
    );
    // A feed the old tab opens again learns the same (it read "ended").
    const reopened = await feed(server, "cart", browser);
    assert.deepEqual(await reopened.closed, {
      code: 4401,
      reason: "the pairing session moved to another tab",
    });
    // The old tab, woken, learns its session moved (not that it ended).
    const moved = await call(server.url, "GET", "/models", undefined, bearer(browser));
    assert.equal(moved.status, 401);
    assert.deepEqual(moved.json, {
      error: "This pairing session moved to another tab: a newer link from the agent was approved there",
      reason: "session_moved",
    });
    const listed = await call(server.url, "GET", "/models", undefined, bearer(approved.json.sessionToken));
    assert.equal(listed.status, 200);
    assert.match(listed.text, /"cart"/, "the models come back");
    assert.equal(agentFeed.socket.readyState, WebSocket.OPEN, "the agent's feed stays");
    agentFeed.socket.close();
    await agentFeed.closed;
    assert.equal((await call(server.url, "DELETE", "/pair/session", undefined, bearer(agent))).status, 204);
    const ended = await call(server.url, "GET", "/models", undefined, bearer(browser));
    assert.equal(ended.json.reason, undefined, "an ended session is no longer 'moved'");
  } finally {
    await server.close();
  }
});

Deno.test("rejoin wording names the server's tabIdleSec: the 409 while a tab holds, the used link's 410", async () => {
  let now = Date.now();
  const server = await startTestServer({}, { pairing: new PairingHost({ now: () => now, tabIdleSec: 30 }) });
  try {
    const { agent } = await paired(server);
    const held = await call(server.url, "POST", "/pair/session", undefined, bearer(agent));
    assert.equal(held.status, 409, held.text);
    assert.equal(held.json.detail, "A tab holds the session: its browser token was used in the last 30 s");

    now += 31_000;
    const link = await call(server.url, "POST", "/pair/session", undefined, bearer(agent));
    assert.equal(link.status, 200, link.text);
    const { userCode } = link.json;
    assert.equal((await call(server.url, "POST", "/pair/approve", { userCode })).status, 200);
    // A second tab opening the same link learns where the session is, and when a new link can bring it here.
    const used = await call(server.url, "POST", "/pair/approve", { userCode });
    assert.equal(used.status, 410);
    assert.equal(
      used.json.detail,
      "The pairing was already completed in the tab that approved it: use that tab. If that tab is closed, " +
        "a new link from the agent opens the session here once it has been closed 30 s",
    );
  } finally {
    await server.close();
  }
});
