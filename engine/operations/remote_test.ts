import assert from "node:assert/strict";
import { ServiceError } from "../errors.ts";
import { localAuthoring } from "../service/authoring.ts";
import { getAudit } from "./audit.ts";
import { getBlob, uploadBlob, uploadBlobData } from "./blobs.ts";
import { createModel, deleteModel, listModels } from "./models.ts";
import { explain, getField, getState, readField } from "./reads.ts";
import { normaliseBaseUrl, remoteInvoker, type RemoteOptions } from "./remote.ts";
import { getView } from "./views.ts";
import { patch } from "./writes.ts";

/** An invoker whose fetch records each request and answers with `answer`. */
function stubbed(answer: (request: Request) => Response, apiKey?: string) {
  const seen: { request: Request; body: string | null }[] = [];
  const options: RemoteOptions = {
    baseUrl: "http://127.0.0.1:9/base/",
    apiKey,
    fetch: async (request) => {
      const body = request.body ? await request.clone().text() : null;
      seen.push({ request, body });
      return answer(request);
    },
    authoring: () => Promise.resolve(localAuthoring()),
  };
  return { invoker: remoteInvoker(options), seen };
}

const ok = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

Deno.test("addresses and ids are one encoded segment each; the key goes in the Authorization header", async () => {
  const { invoker, seen } = stubbed(() => ok(1), "k-123");
  await invoker.invoke(getField, { id: "shop/order", path: "$.items[0].qty" });
  await invoker.invoke(explain, { id: "o", path: "$constraint:cap", limit: 2 });
  await invoker.invoke(getState, { id: "o", at: "2024-01-01T00:00:00Z" });
  await invoker.invoke(getAudit, { id: "o", pathPrefix: "$.qty", limit: 5 });
  assert.deepEqual(seen.map((s) => s.request.url), [
    "http://127.0.0.1:9/base/models/shop%2Forder/state/%24.items%5B0%5D.qty",
    "http://127.0.0.1:9/base/models/o/explain/%24constraint%3Acap?limit=2",
    "http://127.0.0.1:9/base/models/o/state?at=2024-01-01T00%3A00%3A00Z",
    "http://127.0.0.1:9/base/models/o/audit?path=%24.qty&limit=5",
  ]);
  for (const s of seen) assert.equal(s.request.headers.get("authorization"), "Bearer k-123");
});

Deno.test("a key no header can carry is refused before sending, and never quoted", async () => {
  for (const key of ["sec\nret-1", "sec\u0001ret-1", "sécret-1\u0416"]) {
    const { invoker, seen } = stubbed(() => ok([]), key);
    await assert.rejects(invoker.invoke(listModels, {}), (err: ServiceError) => {
      assert.equal(err.kind, "unauthorized");
      assert.ok(!err.message.includes("ret-1"), err.message);
      return true;
    });
    assert.equal(seen.length, 0);
  }
});

Deno.test("create reads model info after the 201; patch sends json-patch; delete reads no body", async () => {
  const info = { id: "o", version: "1", derivationCount: 0, metaDerivationCount: 0, constraintCount: 0 };
  const { invoker, seen } = stubbed((r) =>
    r.method === "DELETE"
      ? new Response(null, { status: 204 })
      : r.method === "POST" && r.url.endsWith("/models")
      ? ok({ id: "o", status: "created" }, 201)
      : ok(info)
  );
  assert.deepEqual(await invoker.invoke(createModel, { spec: { id: "o" } }), info);
  await invoker.invoke(patch, { id: "o", patch: [{ op: "add", path: "/qty", value: 1 }] });
  assert.equal(await invoker.invoke(deleteModel, { id: "o" }), undefined);
  assert.deepEqual(seen.map((s) => `${s.request.method} ${new URL(s.request.url).pathname}`), [
    "POST /base/models",
    "GET /base/models/o",
    "POST /base/models/o/mutations/patch",
    "DELETE /base/models/o",
  ]);
  assert.equal(seen[0].request.headers.get("authorization"), null, "no key configured, no header");
  assert.equal(seen[2].request.headers.get("content-type"), "application/json-patch+json");
  assert.deepEqual(JSON.parse(seen[2].body!), [{ op: "add", path: "/qty", value: 1 }]);
});

Deno.test("the route is chosen by the path members given; headers carry their members", async () => {
  const { invoker, seen } = stubbed(() => ok({ viewId: "v" }));
  await invoker.invoke(getView, { id: "m" });
  await invoker.invoke(getView, { id: "m", viewId: "summary" });
  assert.deepEqual(seen.map((s) => new URL(s.request.url).pathname), [
    "/base/models/m/view",
    "/base/models/m/view/summary",
  ]);
});

Deno.test("blobs: multipart upload with its media type; binary download", async () => {
  const bytes = new TextEncoder().encode("hello");
  const { invoker, seen } = stubbed((r) =>
    r.method === "POST"
      ? ok({ $blobId: "b", $mediaType: "text/plain", $bytes: 5 }, 201)
      : new Response(bytes, { headers: { "content-type": "text/plain" } })
  );
  await invoker.invoke(uploadBlob, { bytes, mediaType: "text/plain" });
  const form = await seen[0].request.formData();
  assert.equal(await (form.get("file") as File).text(), "hello");
  assert.equal(form.get("mediaType"), "text/plain");
  assert.deepEqual(await invoker.invoke(getBlob, { blobId: "b" }), { bytes, mediaType: "text/plain" });
  // A local operation runs here and reaches the server through its inner invocations.
  await invoker.invoke(uploadBlobData, { data: "aGVsbG8=" });
  assert.equal(await ((await seen[2].request.formData()).get("file") as File).text(), "hello");
});

Deno.test("readField: an absent field is null, an unknown model still fails", async () => {
  const problem = (detail: string) =>
    new Response(JSON.stringify({ type: "about:blank", title: "Not Found", status: 404, detail }), {
      status: 404,
      headers: { "content-type": "application/problem+json" },
    });
  const { invoker } = stubbed((r) =>
    r.url.includes("/state/")
      ? problem("Field '$.x' not found")
      : r.url.endsWith("/models/m")
      ? ok({ id: "m" })
      : problem("Model 'nope' not found")
  );
  assert.equal(await invoker.invoke(readField, { id: "m", path: "$.x" }), null);
  await assert.rejects(invoker.invoke(readField, { id: "nope", path: "$.x" }), { kind: "not_found" });
});

Deno.test("a non-2xx answer is thrown as the server's ServiceError; an unreachable server too", async () => {
  const { invoker } = stubbed(() =>
    new Response(
      JSON.stringify({
        type: "about:blank",
        title: "Conflict",
        status: 409,
        detail: "Model 'o' already exists",
      }),
      { status: 409, headers: { "content-type": "application/problem+json" } },
    )
  );
  await assert.rejects(invoker.invoke(createModel, { spec: { id: "o" } }), (err) => {
    assert.ok(err instanceof ServiceError);
    assert.equal(err.kind, "conflict");
    assert.equal(err.message, "Model 'o' already exists");
    return true;
  });
  const down = remoteInvoker({
    baseUrl: "http://127.0.0.1:9",
    apiKey: "secret-key",
    fetch: () => Promise.reject(new TypeError("connection refused")),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  await assert.rejects(down.invoke(listModels, {}), (err) => {
    assert.ok(err instanceof ServiceError);
    assert.equal(err.message, "Cannot reach the server at http://127.0.0.1:9: connection refused");
    return true;
  });
  assert.ok(!Deno.inspect(down, { depth: 10, showHidden: true }).includes("secret-key"));
  assert.ok(!JSON.stringify(down).includes("secret-key"));
});

Deno.test("a 2xx answer that is not JSON is a service error, not a parser crash", async () => {
  const { invoker } = stubbed(() => new Response("<html>hello</html>", { status: 200 }));
  await assert.rejects(invoker.invoke(listModels, {}), (err) => {
    assert.ok(err instanceof ServiceError);
    assert.equal(err.message, "Unexpected answer from the server (HTTP 200): not JSON");
    return true;
  });
});

Deno.test("base URLs: http(s) only, trailing slashes, query and fragment dropped", () => {
  assert.equal(normaliseBaseUrl("http://h:8080/"), "http://h:8080");
  assert.equal(normaliseBaseUrl(" https://h/api//?x=1#f "), "https://h/api");
  assert.throws(() => normaliseBaseUrl("ftp://h"), /only http and https/);
  // A host and port without a scheme parses as the scheme `localhost:`: the message says what is missing.
  for (const given of ["localhost:8080", "models.example.com:443", "127.0.0.1:8080"]) {
    assert.throws(() => normaliseBaseUrl(given), {
      message: `Invalid server URL '${given}': expected http://host:port`,
    });
  }
  assert.throws(() => normaliseBaseUrl("not a url"), /Invalid server URL/);
});

Deno.test("base URLs with a user name or password are refused, and the password is never repeated", () => {
  for (
    const given of [
      "http://user:s3cret@h:8080",
      "http://s3cret@h",
      "https://u:s3cret@h/api",
      "ht tp://u:s3cret@h",
    ]
  ) {
    assert.throws(
      () => normaliseBaseUrl(given),
      (err: unknown) =>
        err instanceof ServiceError && err.kind === "bad_request" &&
        /^Invalid server URL '.*\/\/…@/.test(err.message) &&
        !err.message.includes("s3cret"),
      given,
    );
  }
  assert.match(
    (() => {
      try {
        normaliseBaseUrl("http://u:p@h");
      } catch (err) {
        return (err as Error).message;
      }
      return "";
    })(),
    /a user name or password in the URL is not used; give the key with --api-key or SVC_API_KEY/,
  );
});

/** A fetch that answers after `ms`, or rejects when the request's signal aborts first. */
const slowFetch = (ms: number) => (request: Request) =>
  new Promise<Response>((resolve, reject) => {
    const timer = setTimeout(() => resolve(ok({ available: true })), ms);
    request.signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(request.signal.reason);
    }, { once: true });
  });

Deno.test("a server that does not answer within timeoutMs fails the request with a 503; generation waits", async () => {
  const { generateSpec } = await import("./generation.ts");
  const invoker = remoteInvoker({
    baseUrl: "http://127.0.0.1:9",
    fetch: slowFetch(300),
    authoring: () => Promise.resolve(localAuthoring()),
    timeoutMs: 50,
  });
  await assert.rejects(
    invoker.invoke(listModels, {}),
    (err: unknown) =>
      err instanceof ServiceError && err.kind === "unavailable" &&
      err.message === "The server at http://127.0.0.1:9 did not answer within 50 ms",
  );
  // Generation takes minutes and the server bounds it: no client timeout.
  assert.deepEqual(await invoker.invoke(generateSpec, { modelId: "m", domainDescription: "d" }), {
    available: true,
  });
  // The caller's own signal still cancels, and is reported neither as a timeout nor as a server out of reach.
  const abort = new AbortController();
  const pending = invoker.invoke(generateSpec, { modelId: "m", domainDescription: "d" }, {
    signal: abort.signal,
  });
  abort.abort();
  await assert.rejects(pending, (err: Error) => err.name === "AbortError");
});

/** A fetch whose answer sends its status line and `head`, then stalls (until the request's signal aborts) or, with `cut`, fails. */
const halfAnswer = (status: number, head: string, cut?: Error) => (request: Request) =>
  Promise.resolve(
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(head));
          if (cut) controller.error(cut);
          // As Deno's fetch does: the request's abort ends its answer's body too.
          request.signal.addEventListener("abort", () => controller.error(request.signal.reason), {
            once: true,
          });
        },
      }),
      { status, headers: { "content-type": "application/json" } },
    ),
  );

Deno.test("an answer that stalls after its status line is bounded too; one broken off is no answer, not a crash", async () => {
  const { generateSpec } = await import("./generation.ts");
  const { NoAnswerError } = await import("../errors.ts");
  const client = (fetch: RemoteOptions["fetch"]) =>
    remoteInvoker({
      baseUrl: "http://127.0.0.1:9",
      fetch,
      authoring: () => Promise.resolve(localAuthoring()),
      timeoutMs: 50,
    });
  for (const status of [200, 404]) {
    await assert.rejects(
      client(halfAnswer(status, '{"detail":')).invoke(listModels, {}),
      (err: unknown) =>
        err instanceof NoAnswerError && err.kind === "unavailable" &&
        err.message === "The server at http://127.0.0.1:9 did not answer within 50 ms",
    );
  }
  const cut = new TypeError("error reading a body from connection");
  const broken = client(halfAnswer(200, '["a",', cut));
  // A bounded read, and a generation's unbounded one (its blocking route), alike.
  for (const call of [broken.invoke(listModels, {}), broken.invoke(generateSpec, { modelId: "m" })]) {
    await assert.rejects(
      call,
      (err: unknown) =>
        err instanceof NoAnswerError && err.kind === "internal" &&
        err.message ===
          "The server at http://127.0.0.1:9 broke off its answer: error reading a body from connection",
    );
  }
});

Deno.test("an unreachable server: the reason Deno's fetch gives in its cause, without the request's URL", async () => {
  const refused = new TypeError("fetch failed", {
    cause: new Error(
      "error sending request for url (http://127.0.0.1:9/models): client error (Connect): tcp connect error: " +
        "Connection refused (os error 111)",
    ),
  });
  const invoker = remoteInvoker({
    baseUrl: "http://127.0.0.1:9",
    fetch: () => Promise.reject(refused),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  await assert.rejects(invoker.invoke(listModels, {}), {
    message: "Cannot reach the server at http://127.0.0.1:9: client error (Connect): tcp connect error: " +
      "Connection refused (os error 111)",
  });
});

Deno.test("a request its caller cancels is that cancellation, not 'Cannot reach the server'", async () => {
  const invoker = remoteInvoker({
    baseUrl: "http://127.0.0.1:9",
    // As Deno's fetch: a request whose signal aborts rejects with the signal's reason.
    fetch: (request) =>
      new Promise((_, reject) =>
        request.signal.addEventListener("abort", () => reject(request.signal.reason))
      ),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  const caller = new AbortController();
  const answer = invoker.invoke(listModels, {}, { signal: caller.signal });
  caller.abort(new DOMException("the caller left", "AbortError"));
  await assert.rejects(answer, (err: Error) => {
    assert.equal(err.name, "AbortError");
    assert.doesNotMatch(err.message, /Cannot reach/);
    return true;
  });
});

Deno.test("a redirect is not followed (a 301 would turn a write into a read): it is an error naming where it points", async () => {
  const spec = { id: "o", schema: { type: "object" } };
  const { invoker, seen } = stubbed(
    () => new Response(null, { status: 301, headers: { location: "https://models.test/base/models" } }),
  );
  await assert.rejects(invoker.invoke(createModel, { spec }), {
    message: "The server at http://127.0.0.1:9/base redirects POST to https://models.test/base/models " +
      "(HTTP 301); not followed: use that address",
  });
  assert.equal(seen[0].request.redirect, "manual");
  // A browser shows only that there was one (an opaque redirect: status 0, no location).
  const opaque = { type: "opaqueredirect", status: 0, ok: false, statusText: "", headers: new Headers() };
  const browser = stubbed(() => opaque as unknown as Response);
  await assert.rejects(browser.invoker.invoke(listModels, {}), {
    message: "The server at http://127.0.0.1:9/base redirects GET to another address (HTTP 3xx); " +
      "not followed: use that address",
  });
});

Deno.test("a success answer without the body the route answers with is a clear error, not a crash", async () => {
  const spec = { id: "o", schema: { type: "object" } };
  for (
    const [answer, what] of [
      [() => new Response(null, { status: 204 }), "HTTP 204): no body, where the route answers with one"],
      [() => ok(null, 201), "HTTP 201): not the expected JSON object"],
      [() => ok("created", 201), "HTTP 201): not the expected JSON object"],
    ] as const
  ) {
    const { invoker } = stubbed(answer);
    await assert.rejects(
      invoker.invoke(createModel, { spec }),
      (err: unknown) =>
        err instanceof ServiceError && err.kind === "internal" &&
        err.message === `Unexpected answer from the server (${what}`,
    );
  }
  // A route that answers 204 still reads no body.
  const { invoker } = stubbed(() => new Response(null, { status: 204 }));
  assert.equal(await invoker.invoke(deleteModel, { id: "o" }), undefined);
});
