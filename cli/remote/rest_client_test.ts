import assert from "node:assert/strict";
import { ServiceError } from "../../engine/errors.ts";
import { normaliseBaseUrl, RestClient } from "./rest_client.ts";

interface Seen {
  method: string;
  url: string;
  headers: Headers;
  body: string | null;
}

/** A client whose fetch records each request and answers with `answer`. */
function stubbed(answer: (seen: Seen) => Response, apiKey?: string) {
  const seen: Seen[] = [];
  const stub = ((input: URL | RequestInfo, init?: RequestInit) => {
    const request = {
      method: init?.method ?? "GET",
      url: String(input),
      headers: new Headers(init?.headers),
    };
    const body = typeof init?.body === "string" ? init.body : null;
    const record = { ...request, body };
    seen.push(record);
    return Promise.resolve(answer(record));
  }) as typeof fetch;
  return { client: new RestClient({ baseUrl: "http://127.0.0.1:9/base/", apiKey, fetch: stub }), seen };
}

const ok = (value: unknown, status = 200) =>
  new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

Deno.test("addresses and ids are one encoded segment each; the key goes in the Authorization header", async () => {
  const { client, seen } = stubbed(() => ok(1), "k-123");
  await client.getField("shop/order", "$.items[0].qty");
  await client.explain("o", "$constraint:cap", 2);
  await client.getState("o", "2024-01-01T00:00:00Z");
  await client.getAudit("o", { pathPrefix: "$.qty", limit: 5 });
  assert.deepEqual(seen.map((s) => s.url), [
    "http://127.0.0.1:9/base/models/shop%2Forder/state/%24.items%5B0%5D.qty",
    "http://127.0.0.1:9/base/models/o/explain/%24constraint%3Acap?limit=2",
    "http://127.0.0.1:9/base/models/o/state?at=2024-01-01T00%3A00%3A00Z",
    "http://127.0.0.1:9/base/models/o/audit?path=%24.qty&limit=5",
  ]);
  for (const s of seen) assert.equal(s.headers.get("authorization"), "Bearer k-123");
});

Deno.test("create reads model info after the 201; patch sends json-patch", async () => {
  const info = { id: "o", version: "1", derivationCount: 0, metaDerivationCount: 0, constraintCount: 0 };
  const { client, seen } = stubbed((s) =>
    s.method === "POST" && s.url.endsWith("/models") ? ok({ id: "o", status: "created" }, 201) : ok(info)
  );
  assert.deepEqual(await client.createModel({ id: "o" }), info);
  await client.patch("o", [{ op: "add", path: "/qty", value: 1 }]);
  assert.deepEqual(seen.map((s) => `${s.method} ${new URL(s.url).pathname}`), [
    "POST /base/models",
    "GET /base/models/o",
    "POST /base/models/o/mutations/patch",
  ]);
  assert.equal(seen[0].headers.get("authorization"), null, "no key configured, no header");
  assert.equal(seen[2].headers.get("content-type"), "application/json-patch+json");
});

Deno.test("a non-2xx answer is thrown as the server's ServiceError; an unreachable server too", async () => {
  const { client } = stubbed(() =>
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
  await assert.rejects(client.createModel({ id: "o" }), (err) => {
    assert.ok(err instanceof ServiceError);
    assert.equal(err.kind, "conflict");
    assert.equal(err.message, "Model 'o' already exists");
    return true;
  });
  const down = new RestClient({
    baseUrl: "http://127.0.0.1:9",
    apiKey: "secret-key",
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  await assert.rejects(down.listModels(), (err) => {
    assert.ok(err instanceof ServiceError);
    assert.equal(err.message, "Cannot reach the server at http://127.0.0.1:9: connection refused");
    return true;
  });
  assert.ok(!Deno.inspect(down, { depth: 10, showHidden: true }).includes("secret-key"));
  assert.ok(!JSON.stringify(down).includes("secret-key"));
});

Deno.test("a 2xx answer that is not JSON is a service error, not a parser crash", async () => {
  const { client } = stubbed(() => new Response("<html>hello</html>", { status: 200 }));
  await assert.rejects(client.listModels(), (err) => {
    assert.ok(err instanceof ServiceError);
    assert.equal(err.message, "Unexpected answer from the server (HTTP 200): not JSON");
    return true;
  });
});

Deno.test("base URLs: http(s) only, trailing slashes, query and fragment dropped", () => {
  assert.equal(normaliseBaseUrl("http://h:8080/"), "http://h:8080");
  assert.equal(normaliseBaseUrl(" https://h/api//?x=1#f "), "https://h/api");
  assert.throws(() => normaliseBaseUrl("ftp://h"), /only http and https/);
  assert.throws(() => normaliseBaseUrl("not a url"), /Invalid server URL/);
});
