import assert from "node:assert/strict";
import type { HttpRequestSpec } from "../runtime/results.ts";
import type { EffectJob } from "./job.ts";
import {
  httpExecutor,
  type HttpTransport,
  type InboundResponse,
  type OutboundRequest,
  RequestFailed,
  RequestRefused,
  ResponseTooLarge,
} from "./http_executor.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const limits = { signal: new AbortController().signal, timeoutMs: 1000 };

function job(requests: HttpRequestSpec[]): EffectJob {
  return {
    id: "e@1#0",
    modelId: "m",
    effectId: "e",
    executor: "server",
    key: null,
    work: { type: "http", requests },
    statusPath: null,
    firedAt: 1,
    dueAt: 1,
    attempt: 1,
  };
}

/** A transport answering each URL from a table, recording what it was sent. */
function transport(
  answers: Record<string, InboundResponse | Error>,
): HttpTransport & { sent: OutboundRequest[] } {
  const sent: OutboundRequest[] = [];
  return {
    sent,
    send(request) {
      sent.push(request);
      const answer = answers[request.url];
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
}

const get = (url: string, body?: HttpRequestSpec["body"]): HttpRequestSpec => ({
  method: "POST",
  url,
  headers: {},
  ...body === undefined ? {} : { body },
});

Deno.test("answers: JSON parsed, empty as null, other text kept; the body's type is set unless given", async () => {
  const wire = transport({
    "https://a/json": { status: 200, body: encode('{"ok":1}') },
    "https://a/empty": { status: 204, body: encode("") },
    "https://a/text": { status: 201, body: encode("fine") },
  });
  const executor = httpExecutor(wire);
  assert.deepEqual(await executor.execute(job([get("https://a/json", { n: 1 })]), limits), {
    ok: true,
    response: { ok: 1 },
    status: 200,
  });
  assert.deepEqual(wire.sent[0], {
    method: "POST",
    url: "https://a/json",
    headers: { "content-type": "application/json" },
    body: '{"n":1}',
    idempotencyKey: "e%401%230",
  });
  assert.deepEqual(await executor.execute(job([get("https://a/empty")]), limits), {
    ok: true,
    response: null,
    status: 204,
  });
  const text = { ...get("https://a/text", "hi"), headers: { "Content-Type": "text/csv" } };
  assert.deepEqual(await executor.execute(job([text]), limits), { ok: true, response: "fine", status: 201 });
  assert.deepEqual(wire.sent[2].headers, { "Content-Type": "text/csv" }, "a given type is kept");
});

Deno.test("failures: 4xx, 3xx and oversized answers for good, 5xx and failures on the way retried, refusals for good", async () => {
  const executor = httpExecutor(transport({
    "https://a/404": { status: 404, body: encode("") },
    "https://a/302": { status: 302, body: encode("") },
    "https://a/503": { status: 503, body: encode("") },
    "https://a/blocked": new RequestRefused("egress blocked: private address"),
    "https://a/slow": new RequestFailed("timed out after 1000 ms"),
    "https://a/cors": new TypeError("Failed to fetch"),
    "https://a/big": new ResponseTooLarge(1000),
  }));
  const outcome = async (url: string) => await executor.execute(job([get(url)]), limits);
  assert.deepEqual(await outcome("https://a/404"), { ok: false, error: "http 404", retryable: false });
  assert.deepEqual(await outcome("https://a/302"), {
    ok: false,
    error: "http 302: redirects are not followed",
    retryable: false,
  });
  assert.deepEqual(await outcome("https://a/503"), { ok: false, error: "http 503", retryable: true });
  assert.deepEqual(await outcome("https://a/blocked"), {
    ok: false,
    error: "egress blocked: private address",
    retryable: false,
  });
  assert.deepEqual(await outcome("https://a/slow"), {
    ok: false,
    error: "timed out after 1000 ms",
    retryable: true,
  });
  assert.deepEqual(await outcome("https://a/cors"), {
    ok: false,
    error: "request failed: Failed to fetch",
    retryable: true,
  });
  // The same request most likely gets the same answer again.
  assert.deepEqual(await outcome("https://a/big"), {
    ok: false,
    error: "response exceeds svc.effects.max-response-bytes (1000)",
    retryable: false,
  });
});

Deno.test("a failure says the service's reason in one bounded line, never a binary body; a redirect names where", async () => {
  const long = "declined ".repeat(100);
  const executor = httpExecutor(transport({
    "https://a/json": {
      status: 402,
      body: encode('{"message": "card declined", "code": "card_declined"}'),
      contentType: "application/json",
    },
    "https://a/stripe": {
      status: 402,
      body: encode('{"error": {"type": "card_error", "message": "Your card was declined."}}'),
      contentType: "application/json; charset=utf-8",
    },
    "https://a/problem": {
      status: 422,
      body: encode('{"title": "Invalid", "detail": "amount must be positive"}'),
      contentType: "application/problem+json",
    },
    "https://a/other-json": { status: 400, body: encode('{"ok":\n false}'), contentType: "application/json" },
    "https://a/text": { status: 503, body: encode("  upstream\r\n\tdown  \n"), contentType: "text/plain" },
    "https://a/long": { status: 500, body: encode(long), contentType: "text/plain" },
    "https://a/html": {
      status: 404,
      body: encode("<!DOCTYPE html><html><head><title>Page not found</title></head><body>…</body></html>"),
      contentType: "text/html",
    },
    "https://a/png": { status: 500, body: encode("\x89PNG\r\n"), contentType: "image/png" },
    "https://a/bytes": { status: 500, body: new Uint8Array([0xff, 0xfe, 0x00, 0x41]) },
    "https://a/nul": { status: 500, body: encode("a\0b") },
    "https://a/moved": {
      status: 301,
      body: encode("Moved"),
      location: `https://b.example/new\r\nSet-Cookie: x=1/${"p".repeat(400)}`,
    },
  }));
  const error = async (url: string) => {
    const outcome = await executor.execute(job([get(url)]), limits);
    return outcome.ok ? "" : outcome.error;
  };
  assert.equal(await error("https://a/json"), "http 402: card declined");
  assert.equal(await error("https://a/stripe"), "http 402: Your card was declined.");
  assert.equal(await error("https://a/problem"), "http 422: amount must be positive");
  assert.equal(await error("https://a/other-json"), 'http 400: {"ok": false}');
  assert.equal(await error("https://a/text"), "http 503: upstream down");
  assert.equal(await error("https://a/long"), `http 500: ${long.slice(0, 200)}… (899 characters)`);
  assert.equal(await error("https://a/html"), "http 404: Page not found");
  assert.equal(await error("https://a/png"), "http 500");
  assert.equal(await error("https://a/bytes"), "http 500");
  assert.equal(await error("https://a/nul"), "http 500");
  const moved = await error("https://a/moved");
  assert.match(
    moved,
    /^http 301: redirects are not followed \(Location: https:\/\/b\.example\/new Set-Cookie: x=1\/p+… \(\d+ characters\)\)$/,
  );
  assert.ok(!moved.includes("\n") && moved.length < 300, moved);
});

Deno.test("a fan-out reports each request on its own", async () => {
  const executor = httpExecutor(transport({
    "https://a/1": { status: 200, body: encode("1") },
    "https://a/2": { status: 500, body: encode("") },
  }));
  const fanned = [{ ...get("https://a/1"), set: { "$.one": "$response" } }, get("https://a/2")];
  assert.deepEqual(await executor.execute(job(fanned), limits), {
    ok: true,
    response: [1, null],
    status: null,
    parts: [{ ok: true, response: 1, status: 200 }, { ok: false, error: "http 500" }],
  });
});

Deno.test("a request no transport can build (or would send without its URL's credentials) fails for good, before anything is sent", async () => {
  const wire = transport({ "https://a/x": { status: 200, body: encode("") } });
  const executor = httpExecutor(wire);
  const outcome = async (spec: HttpRequestSpec) => await executor.execute(job([spec]), limits);
  const base = get("https://a/x");
  assert.deepEqual(await outcome({ ...base, headers: { "x-h": "a\r\nX-Injected: 1" } }), {
    ok: false,
    error:
      "invalid request: the value of header 'x-h' holds a line break or another character a header cannot carry",
    retryable: false,
  });
  assert.deepEqual(await outcome({ ...base, headers: { "x-h": "\u2603" } }), {
    ok: false,
    error:
      "invalid request: the value of header 'x-h' holds a line break or another character a header cannot carry",
    retryable: false,
  });
  assert.deepEqual(await outcome({ ...base, headers: { "bad name": "v" } }), {
    ok: false,
    error: 'invalid request: header name "bad name" is not an HTTP token',
    retryable: false,
  });
  assert.deepEqual(await outcome({ ...base, method: "GET / HTTP/1.1\r\nX: y" }), {
    ok: false,
    error: 'invalid request: method "GET / HTTP/1.1\\r\\nX: y" is not an HTTP token',
    retryable: false,
  });
  const fanned = await executor.execute(
    job([{ ...base, headers: { "x-h": "\n" } }, get("https://a/x")]),
    limits,
  );
  assert.deepEqual(fanned.ok && fanned.parts?.[0], {
    ok: false,
    error:
      "invalid request: the value of header 'x-h' holds a line break or another character a header cannot carry",
  });
  assert.equal(wire.sent.length, 1, "only the fan-out's well-formed request reached the transport");
  const credentials = await outcome(get("https://user:s3cr3t@a/x"));
  assert.ok(!credentials.ok && !credentials.retryable);
  assert.match(credentials.error, /^invalid request: the URL carries credentials \(user:password@\)/);
  assert.doesNotMatch(credentials.error, /s3cr3t/, "the secret itself is not repeated");
  const withUser = await executor.execute(job([get("https://user@a/x"), get("https://a/x")]), limits);
  const part = withUser.ok ? withUser.parts?.[0] : undefined;
  assert.match(part && !part.ok ? part.error : "", /carries credentials/);
  assert.equal(wire.sent.length, 2, "nor were the requests whose URL carries credentials sent");
  const unusual = { "x-ok": "tab\tand Latin-1 \u00e9", "X-Custom_1.v~": "" };
  assert.deepEqual(await outcome({ ...base, headers: unusual }), { ok: true, response: null, status: 200 });
  assert.deepEqual(wire.sent[2].headers, unusual, "a tab, Latin-1 and an unusual token name are sent");
});

Deno.test("a fan-out of one request is still a fan-out; a job stored without the flag keeps the old reading", async () => {
  const executor = httpExecutor(transport({ "https://a/2": { status: 500, body: encode("") } }));
  const fanOut = {
    ...job([get("https://a/2")]),
    work: { type: "http" as const, requests: [get("https://a/2")], fanOut: true },
  };
  assert.deepEqual(await executor.execute(fanOut, limits), {
    ok: true,
    response: [null],
    status: null,
    parts: [{ ok: false, error: "http 500" }],
  });
  assert.deepEqual(await executor.execute(job([get("https://a/2")]), limits), {
    ok: false,
    error: "http 500",
    retryable: true,
  });
});

Deno.test("a 429 is worth a retry like a 5xx; their Retry-After (seconds or a date) is told to the dispatcher", async () => {
  const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
  const executor = httpExecutor(transport({
    "https://a/busy": { status: 429, body: encode("slow down"), retryAfter: "3" },
    "https://a/later": { status: 503, body: encode(""), retryAfter: inTenSeconds },
    "https://a/past": { status: 503, body: encode(""), retryAfter: "Thu, 01 Jan 1970 00:00:00 GMT" },
    "https://a/junk": { status: 429, body: encode(""), retryAfter: "soon" },
    "https://a/gone": { status: 410, body: encode(""), retryAfter: "3" },
  }));
  const outcome = async (url: string) => await executor.execute(job([get(url)]), limits);
  assert.deepEqual(await outcome("https://a/busy"), {
    ok: false,
    error: "http 429: slow down",
    retryable: true,
    retryAfterMs: 3000,
  });
  const later = await outcome("https://a/later");
  assert.ok(!later.ok && later.retryable && later.retryAfterMs! > 8000 && later.retryAfterMs! <= 10_000);
  assert.deepEqual(await outcome("https://a/past"), { ok: false, error: "http 503", retryable: true });
  assert.deepEqual(await outcome("https://a/junk"), { ok: false, error: "http 429", retryable: true });
  assert.deepEqual(await outcome("https://a/gone"), { ok: false, error: "http 410", retryable: false });
});

Deno.test("each request carries the job's idempotency key, the same at every attempt; a fan-out's one per request", async () => {
  const wire = transport({
    "https://a/1": { status: 500, body: encode("") },
    "https://a/2": { status: 200, body: encode("") },
  });
  const executor = httpExecutor(wire);
  const payment = { ...job([get("https://a/1")]), id: "pay €@1764460800000#x1" };
  await executor.execute(payment, limits);
  await executor.execute({ ...payment, attempt: 2 }, limits);
  const fanned = {
    ...payment,
    work: { type: "http" as const, requests: [get("https://a/1"), get("https://a/2")] },
  };
  await executor.execute(fanned, limits);
  assert.deepEqual(wire.sent.map((r) => r.idempotencyKey), [
    "pay%20%E2%82%AC%401764460800000%23x1",
    "pay%20%E2%82%AC%401764460800000%23x1",
    "pay%20%E2%82%AC%401764460800000%23x1/0",
    "pay%20%E2%82%AC%401764460800000%23x1/1",
  ], "ASCII whatever the effect's id, so any header carries it");
});
