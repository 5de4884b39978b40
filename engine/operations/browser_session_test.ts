import assert from "node:assert/strict";
import { NotPairedError } from "./pairing.ts";
import { BrowserSession } from "./browser_session.ts";

/** A scripted server: each request is answered by the next handler for its path. */
function stubServer(answers: Record<string, ((request: Request) => Response)[]>) {
  const seen: string[] = [];
  const fetch = (request: Request) => {
    const path = new URL(request.url).pathname;
    seen.push(`${request.method} ${path}`);
    const next = answers[path]?.shift();
    if (!next) throw new Error(`unexpected ${request.method} ${path}`);
    return Promise.resolve(next(request));
  };
  return { fetch, seen };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => () =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const started = (userCode: string, intervalSec = 0) =>
  json(200, {
    pairCode: `pc-${userCode}`,
    deviceSecret: "secret",
    userCode,
    verificationUri: "http://svc/pair",
    verificationUriComplete: `http://svc/pair#code=${userCode}`,
    expiresInSec: 600,
    intervalSec,
  });

Deno.test("before pairing the credential refuses; after it, it is the session's token", async () => {
  const { fetch } = stubServer({
    "/pair": [started("BCDF-GHJK")],
    "/pair/token": [
      json(409, { error: "authorization_pending" }),
      json(200, { sessionToken: "t", namespaceId: "n" }),
    ],
  });
  const session = new BrowserSession({ baseUrl: "http://svc", fetch });
  assert.throws(() => session.credential(), NotPairedError);
  assert.equal((await session.pair()).status, "pending");
  assert.deepEqual(await session.pair(), { status: "paired", namespaceId: "n" });
  assert.equal(session.credential(), "t");
});

Deno.test("a pairing the server forgot (a restart) is replaced by a new one, answered at once", async () => {
  const { fetch, seen } = stubServer({
    "/pair": [started("BCDF-GHJK"), started("ZZZZ-XXXX")],
    "/pair/token": [json(404, { detail: "No pairing" })],
  });
  const session = new BrowserSession({ baseUrl: "http://svc", fetch });
  await session.pair();
  const next = await session.pair();
  assert.equal(next.status, "pending");
  assert.equal((next as { userCode: string }).userCode, "ZZZZ-XXXX");
  assert.deepEqual(seen, ["POST /pair", "POST /pair/token", "POST /pair"]);
});

Deno.test("an ended session (401) is dropped and a new pairing starts", async () => {
  const { fetch, seen } = stubServer({
    "/pair": [started("BCDF-GHJK"), started("ZZZZ-XXXX")],
    "/pair/token": [json(200, { sessionToken: "t", namespaceId: "n" })],
    "/pair/session": [
      json(409, { error: "tab_present" }),
      json(401, { error: "Unknown or ended pairing session" }),
    ],
  });
  const session = new BrowserSession({ baseUrl: "http://svc", fetch });
  await session.pair();
  assert.equal((await session.pair()).status, "paired");
  assert.equal((await session.pair()).status, "already_paired");
  const fresh = await session.pair();
  assert.equal(fresh.status, "pending");
  assert.throws(() => session.credential(), NotPairedError);
  assert.equal(seen.filter((s) => s === "POST /pair").length, 2);
});

Deno.test("a 429 waits its Retry-After; the call's wait is bounded; a bad server answer is an error", async () => {
  const { fetch } = stubServer({
    "/pair": [started("BCDF-GHJK", 1)],
    "/pair/token": [
      json(429, { detail: "slow down" }, { "retry-after": "0" }),
      json(409, { error: "authorization_pending" }),
      json(500, { detail: "boom" }),
    ],
  });
  const session = new BrowserSession({ baseUrl: "http://svc", fetch, maxWaitMs: 50 });
  await session.pair();
  const progress: unknown[] = [];
  const waited = await session.pair({ progress: (event) => progress.push(event) });
  assert.equal(waited.status, "pending", "still pending when the call's wait is over");
  assert.ok(progress.length >= 1);
  await assert.rejects(session.pair(), /boom/);
});

Deno.test("two calls waiting at once: both end paired, though only one collected the session", async () => {
  const { fetch } = stubServer({
    "/pair": [started("BCDF-GHJK")],
    // One answer: the two calls share one poll (a second would find no answer here and fail).
    "/pair/token": [json(200, { sessionToken: "t", namespaceId: "n" })],
  });
  const session = new BrowserSession({ baseUrl: "http://svc", fetch });
  await session.pair();
  const both = await Promise.all([session.pair(), session.pair()]);
  assert.deepEqual(both.map((r) => r.status), ["paired", "paired"]);
  assert.equal(session.credential(), "t");
});

Deno.test("paired, with no tab holding the session: a rejoin link, then the same session again", async () => {
  const { fetch, seen } = stubServer({
    "/pair": [started("BCDF-GHJK")],
    "/pair/token": [
      json(200, { sessionToken: "t", namespaceId: "n" }),
      json(409, { error: "authorization_pending" }),
      json(200, { sessionToken: "t", namespaceId: "n" }),
    ],
    "/pair/session": [
      json(409, { error: "tab_present" }),
      (request) => {
        assert.equal(request.headers.get("authorization"), "Bearer t", "the agent's token asks for it");
        return started("ZZZZ-XXXX")();
      },
    ],
  });
  const session = new BrowserSession({ baseUrl: "http://svc", fetch });
  await session.pair();
  assert.equal((await session.pair()).status, "paired");
  assert.deepEqual(await session.pair(), { status: "already_paired", namespaceId: "n" }, "a tab holds it");
  const link = await session.pair();
  assert.equal(link.status, "pending");
  assert.equal((link as { rejoin?: true }).rejoin, true);
  assert.equal((link as { userCode: string }).userCode, "ZZZZ-XXXX");
  assert.equal(session.credential(), "t", "the agent keeps working while the link waits");
  assert.deepEqual(await session.pair(), { status: "paired", namespaceId: "n", rejoin: true });
  assert.deepEqual(seen.filter((s) => s.startsWith("POST /pair/session")).length, 2);
});
