import assert from "node:assert/strict";
import { EgressBlocked, EgressFailure, EgressTooLarge, guardedFetch } from "./fetch.ts";
import { STRICT_POLICY } from "./guard.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../../engine/version.ts";

const LOOPBACK = { allowPrivateIps: true, allowInsecureHttp: true, allowedHosts: null };

/** A loopback target; `name.test` resolves to it through the resolver port. */
async function withTarget(
  handler: (request: Request) => Response | Promise<Response>,
  run: (base: string, resolve: (host: string) => Promise<string[]>) => Promise<void>,
) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  try {
    await run(
      `http://name.test:${server.addr.port}`,
      (host) => host === "name.test" ? Promise.resolve(["127.0.0.1"]) : Promise.reject(new Error(host)),
    );
  } finally {
    await server.shutdown();
  }
}

const text = (body: Uint8Array) => new TextDecoder().decode(body);

Deno.test("a request goes to the address the guard resolved, with its host name, method, headers and body", async () => {
  await withTarget(async (request) =>
    Response.json({
      host: request.headers.get("host"),
      method: request.method,
      auth: request.headers.get("x-key"),
      body: await request.text(),
      path: new URL(request.url).pathname + new URL(request.url).search,
    }), async (base, resolve) => {
    const response = await guardedFetch(
      { method: "post", url: `${base}/hook?a=1`, headers: { "x-key": "k" }, body: '{"n":1}' },
      { policy: LOOPBACK, resolve, timeoutMs: 5000, maxResponseBytes: 10_000 },
    );
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(text(response.body)), {
      host: `name.test:${new URL(base).port}`,
      method: "POST",
      auth: "k",
      body: '{"n":1}',
      path: "/hook?a=1",
    });
  });
});

Deno.test("a body goes with its Content-Length, not chunked (services that want a length refuse chunked bodies)", async () => {
  await withTarget((request) =>
    Response.json({
      length: request.headers.get("content-length"),
      chunked: request.headers.get("transfer-encoding"),
    }), async (base, resolve) => {
    const options = { policy: LOOPBACK, resolve, timeoutMs: 5000, maxResponseBytes: 10_000 };
    const sent = async (
      request: { method: string; body?: string | Uint8Array; headers?: Record<string, string> },
    ) => JSON.parse(text((await guardedFetch({ ...request, url: `${base}/pay` }, options)).body));
    assert.deepEqual(await sent({ method: "POST", body: '{"note":"café €"}' }), {
      length: "20",
      chunked: null,
    });
    assert.deepEqual(await sent({ method: "PUT", body: new Uint8Array(3) }), { length: "3", chunked: null });
    assert.deepEqual(await sent({ method: "POST", body: "" }), { length: "0", chunked: null });
    assert.deepEqual(
      await sent({ method: "POST", body: "abc", headers: { "Content-Length": "3" } }),
      { length: "3", chunked: null },
      "a length the spec gives is not sent twice",
    );
  });
});

Deno.test("a request names the service in User-Agent (APIs such as GitHub's refuse one without); a given one is kept", async () => {
  await withTarget((request) => new Response(request.headers.get("user-agent")), async (base, resolve) => {
    const options = { policy: LOOPBACK, resolve, timeoutMs: 5000, maxResponseBytes: 10_000 };
    const agent = async (headers: Record<string, string>) =>
      text((await guardedFetch({ method: "GET", url: `${base}/`, headers }, options)).body);
    assert.equal(await agent({}), `${SERVICE_NAME}/${SERVICE_VERSION}`);
    assert.equal(await agent({ "User-Agent": "acme-billing/2" }), "acme-billing/2");
  });
});

Deno.test("redirects are returned, not followed; oversized answers and slow targets fail", async () => {
  // The slow target answers only once the test has seen the fetch give up: no race between its answer and
  // the fetch's own deadline.
  const gaveUp = Promise.withResolvers<void>();
  await withTarget(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/redirect") {
      return new Response(null, { status: 302, headers: { location: "http://127.0.0.1/" } });
    }
    if (path === "/big") return new Response("x".repeat(5000));
    await gaveUp.promise;
    return new Response("late");
  }, async (base, resolve) => {
    // Answers that come at once: the deadline is a required option here, never reached.
    const options = { policy: LOOPBACK, resolve, timeoutMs: 60_000, maxResponseBytes: 1000 };
    const redirect = await guardedFetch({ method: "GET", url: `${base}/redirect` }, options);
    assert.equal(redirect.status, 302);
    await assert.rejects(
      guardedFetch({ method: "GET", url: `${base}/big` }, options),
      (err) =>
        err instanceof EgressTooLarge && err.max === 1000 && err.message === "response exceeds 1000 bytes",
    );
    try {
      await assert.rejects(
        guardedFetch({ method: "GET", url: `${base}/slow` }, { ...options, timeoutMs: 300 }),
        (err) => err instanceof EgressFailure && /no answer within 300 ms/.test(err.message),
      );
    } finally {
      gaveUp.resolve();
    }
  });
});

Deno.test("the default policy refuses a loopback target before any connection", async () => {
  let reached = false;
  await withTarget(() => {
    reached = true;
    return new Response("no");
  }, async (base, resolve) => {
    await assert.rejects(
      guardedFetch({ method: "GET", url: base.replace("http:", "https:") }, {
        policy: STRICT_POLICY,
        resolve,
        timeoutMs: 1000,
        maxResponseBytes: 100,
      }),
      (err) =>
        err instanceof EgressBlocked && /resolves to 127\.0\.0\.1, which is loopback/.test(err.message),
    );
  });
  assert.equal(reached, false);
});
