/**
 * Unit tests of llm/: the `svc.llm.*` keys, reading JSON out of answers, the
 * loop's budget and temperature rules, the interaction log, the placeholder
 * egress guard, page fetching and search through stubbed ports, and the tool
 * budgets.
 */
import assert from "node:assert/strict";
import { localAuthoring } from "../engine/service/authoring.ts";
import type { ProgressEvent } from "../engine/service/generation.ts";
import { LLM_DEFAULTS, type LlmConfig, llmConfig, providerConfigured } from "./config.ts";
import { noEgress } from "./egress.ts";
import { INTERACTION_LOG_SIZE, InteractionLog } from "./interactions.ts";
import { parseAnswer } from "./json_text.ts";
import { mayRetry, temperatureOf } from "./loop.ts";
import { describeLlm } from "./mod.ts";
import { scrubSecrets } from "./providers.ts";
import { ToolSession } from "./tools.ts";
import { fetchPage, htmlToText, webSearchOf } from "./web.ts";

const configOf = (keys: Record<string, string> = {}): LlmConfig => llmConfig((key) => keys[key]);

Deno.test("svc.llm.* defaults, and what counts as a configured provider", () => {
  const config = configOf();
  assert.equal(config.provider, "anthropic");
  assert.equal(config.maxTokens, LLM_DEFAULTS.maxTokens);
  assert.equal(config.maxTokensHard, 16384);
  assert.equal(config.maxRetries, 6);
  assert.equal(config.maxRetriesHard, 10);
  assert.deepEqual(
    [
      config.generationTemperature,
      config.repairTemperature,
      config.repairTemperatureStep,
      config.repairTemperatureMax,
    ],
    [0, 0.2, 0.15, 0.8],
  );
  assert.equal(config.structuredOutput, true);
  assert.equal(config.promptCache, true);
  assert.equal(config.toolLoopMaxIterations, 40);
  assert.deepEqual(config.webFetch, { enabled: true, maxCalls: 5, maxChars: 8000 });
  assert.deepEqual(config.webSearch, {
    enabled: true,
    provider: "duckduckgo",
    apiKey: null,
    maxCalls: 3,
    maxResults: 5,
  });
  assert.equal(config.captureContent, false);
  assert.equal(providerConfigured(config), false, "anthropic without a key");
  assert.equal(providerConfigured(configOf({ "svc.llm.provider": "ollama" })), true, "ollama is keyless");
  assert.equal(providerConfigured(configOf({ "svc.llm.api-key": "k" })), true);
  assert.equal(providerConfigured(configOf({ "svc.llm.mock": "true" })), true);
});

Deno.test("malformed svc.llm.* values name the key and never echo the API key", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ "svc.llm.provider": "chatgpt" }, /svc\.llm\.provider \(SVC_LLM_PROVIDER\) must be one of anthropic/],
    [{ "svc.llm.max-tokens": "lots" }, /svc\.llm\.max-tokens \(SVC_LLM_MAX_TOKENS\) must be an integer/],
    [{ "svc.llm.max-tokens": "9000", "svc.llm.max-tokens-hard": "8000" }, /svc\.llm\.max-tokens-hard/],
    [
      { "svc.llm.max-retries-hard": "2" },
      /svc\.llm\.max-retries-hard .* at least svc\.llm\.max-retries \(6\)/,
    ],
    [{ "svc.llm.repair-temperature": "3" }, /svc\.llm\.repair-temperature .* from 0 to 2/],
    // Number() would read these as 1, 0.5 and 0: a decimal key takes decimal digits only.
    [{ "svc.llm.repair-temperature": "0x1" }, /svc\.llm\.repair-temperature .* from 0 to 2/],
    [{ "svc.llm.repair-temperature": "5e-1" }, /svc\.llm\.repair-temperature .* from 0 to 2/],
    [{ "svc.llm.repair-temperature": "." }, /svc\.llm\.repair-temperature .* from 0 to 2/],
    [{ "svc.llm.base-url": "ftp://x" }, /svc\.llm\.base-url .* http or https URL/],
    [{ "svc.llm.mock": "yes" }, /svc\.llm\.mock .* true or false/],
    [{ "svc.llm.structured-output.mode": "xml" }, /svc\.llm\.structured-output\.mode/],
    [{ "svc.llm.web-search.provider": "brave" }, /needs svc\.llm\.web-search\.api-key/],
    [{ "svc.llm.tool-loop.max-iterations": "0" }, /svc\.llm\.tool-loop\.max-iterations .* at least 1/],
  ];
  for (const [keys, message] of cases) assert.throws(() => configOf(keys), message, JSON.stringify(keys));
  assert.throws(
    () => configOf({ "svc.llm.api-key": "sk secret" }),
    (err: Error) => /must not contain whitespace/.test(err.message) && !err.message.includes("secret"),
  );
});

Deno.test("credentials in svc.llm.base-url abort startup without being echoed; the startup line masks them", () => {
  for (
    const url of [
      "https://bob:hunter22@gw.example/v1",
      "https://hunter22@gw.example/v1",
      "ftp://bob:hunter22@x",
    ]
  ) {
    assert.throws(
      () => configOf({ "svc.llm.base-url": url, "svc.llm.api-key": "k" }),
      (err: Error) =>
        /svc\.llm\.base-url \(SVC_LLM_BASE_URL\)/.test(err.message) && !err.message.includes("hunter22"),
      url,
    );
  }
  assert.throws(
    () => configOf({ "svc.llm.base-url": "https://bob:hunter22@gw.example/v1" }),
    /must not carry credentials \(user:password@\): put the key in svc\.llm\.api-key/,
  );
  // A configuration built another way still never prints them.
  const config = { ...configOf({ "svc.llm.api-key": "k" }), baseUrl: "https://bob:hunter22@gw.example/v1" };
  assert.equal(describeLlm(config), "llm: anthropic claude-sonnet-4-6 at https://bob:***@gw.example/v1");
});

Deno.test("provider errors are scrubbed of the key, Bearer and Basic tokens, api-key echoes and URL credentials", () => {
  const secrets = ["sk-SECRET-KEY-XYZ-123456", "hunter22"];
  const scrubbed = scrubSecrets(
    "Incorrect API key provided: Bearer sk-SECRET-KEY-XYZ-123456; got Authorization: Basic Ym9iOmh1bnRlcjIy, " +
      'x-api-key: "abcdefgh12345678", raw sk-SECRET-KEY-XYZ-123456 and hunter22 at https://bob:pw@gw.example/v1',
    secrets,
  );
  assert.doesNotMatch(scrubbed, /SECRET|hunter22|Ym9iOmh1bnRlcjIy|abcdefgh12345678|bob:pw/);
  assert.match(scrubbed, /Bearer \[redacted\]/);
  assert.match(scrubbed, /https:\/\/\[redacted\]@gw\.example/);
  // Ordinary words after the schemes' names stay.
  assert.equal(scrubSecrets("Bearer token missing", secrets), "Bearer token missing");
});

Deno.test("answers: fenced or wrapped JSON parses; cut-off answers are told apart from non-JSON", () => {
  assert.deepEqual(parseAnswer('Here it is:\n```json\n{"id":"a","x":"}"}\n```'), {
    ok: true,
    value: { id: "a", x: "}" },
  });
  assert.deepEqual(parseAnswer('{"id":"a","tests":[{"given":{'), {
    ok: false,
    truncated: true,
    message: "Response was not valid JSON: the answer was cut off before the JSON object ended",
  });
  assert.equal((parseAnswer('{"id":"a"}', "length") as { truncated: boolean }).truncated, true);
  assert.equal((parseAnswer("I cannot do that") as { truncated: boolean }).truncated, false);
  assert.equal((parseAnswer('{"id": a}') as { truncated: boolean }).truncated, false);
});

Deno.test("answers: valid JSON that is not an object is called so, not invalid JSON", () => {
  for (
    const [text, kind] of [["[1,2,3]", "an array"], ['"spec"', "a string"], ["```json\n42\n```", "a number"]]
  ) {
    assert.deepEqual(parseAnswer(text), {
      ok: false,
      truncated: false,
      message: `Response was valid JSON but ${kind}, not a JSON object`,
    });
  }
  assert.equal(
    (parseAnswer("I cannot do that") as { message: string }).message,
    "Response was not valid JSON: no JSON object found in the answer",
  );
});

Deno.test("answers: an array holding objects is refused as an array, not taken as its first object", () => {
  const array = {
    ok: false,
    truncated: false,
    message: "Response was valid JSON but an array, not a JSON object",
  };
  for (
    const text of [
      '[{"id":"a"}]',
      '```json\n[{"id":"a"},{"id":"b"}]\n```',
      'Here are two drafts:\n[{"id":"a"}, {"id":"b"}]\nPick one.',
      '[1, {"id":"a"}]',
    ]
  ) assert.deepEqual(parseAnswer(text), array, text);
  // An array cut off is cut off, whatever the provider says.
  assert.deepEqual(parseAnswer('[{"id":"a"},{"id":'), {
    ok: false,
    truncated: true,
    message: "Response was not valid JSON: the answer was cut off before the JSON array ended",
  });
  // Brackets of prose before the object are not an array around it.
  for (const text of ['See [1]: {"id":"a"}', 'Draft [v2] (notes [below): {"id":"a"}', '[note {"id":"a"}]']) {
    assert.deepEqual(parseAnswer(text), { ok: true, value: { id: "a" } }, text);
  }
});

Deno.test("the loop's temperatures and budget", () => {
  const config = configOf({ "svc.llm.max-retries": "2", "svc.llm.max-retries-hard": "4" });
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map((n) => temperatureOf(config, n)), [
    0,
    0.2,
    0.35,
    0.5,
    0.65,
    0.8,
    0.8,
  ]);
  assert.equal(mayRetry(config, 1, [5]), true);
  assert.equal(mayRetry(config, 2, [5, 9]), true, "within max-retries whatever the counts");
  assert.equal(mayRetry(config, 3, [5, 4, 3]), true, "dropping");
  assert.equal(mayRetry(config, 3, [5, 4, 4]), false, "not dropping");
  assert.equal(mayRetry(config, 3, [5, 4, Infinity]), false, "a parse failure never drops");
  assert.equal(mayRetry(config, 3, [5, Infinity, 3]), true);
  assert.equal(mayRetry(config, 5, [5, 4, 3, 2, 1]), false, "max-retries-hard");
});

Deno.test("the interaction log keeps the newest 50 and redacts unless content is captured", () => {
  const record = (i: number) => ({
    timestamp: `t${i}`,
    system: "s",
    user: "u",
    prompt: "p",
    response: i % 2 ? null : "r",
    errorMessage: i % 2 ? "boom" : null,
    durationMs: 1,
    webFetchCalls: [{
      url: "https://x",
      responseCode: 200,
      mediaType: "text/html",
      rawLength: 1,
      extractedLength: 1,
    }],
    provider: "openai",
    model: "gpt-4o",
  });
  const redacted = new InteractionLog(false);
  for (let i = 0; i < 60; i++) redacted.add(record(i));
  const list = redacted.list();
  assert.equal(list.length, INTERACTION_LOG_SIZE);
  assert.equal(list[0].timestamp, "t59");
  assert.deepEqual(list[0], {
    ...record(59),
    system: "[redacted]",
    user: "[redacted]",
    prompt: "[redacted]",
    errorMessage: "[redacted]",
    webFetchCalls: [],
  });
  assert.equal(list[1].response, "[redacted]");
  assert.equal(list[1].errorMessage, null);
  const captured = new InteractionLog(true);
  captured.add(record(0));
  assert.deepEqual(captured.list(), [record(0)]);
});

Deno.test("with content capture off the interaction log keeps no content, not even to redact later", () => {
  const record = {
    timestamp: "t",
    system: "secret system",
    user: "secret user",
    prompt: "secret prompt",
    response: "secret response",
    errorMessage: null,
    durationMs: 1,
    webFetchCalls: [],
    provider: "openai",
    model: "gpt-4o",
  };
  // Revoked once recorded: a log that kept the record (or any part of it) to redact on read throws.
  const { proxy, revoke } = Proxy.revocable(record, {});
  const log = new InteractionLog(false);
  log.add(proxy);
  revoke();
  const [entry] = log.list();
  assert.deepEqual(entry, {
    ...record,
    system: "[redacted]",
    user: "[redacted]",
    prompt: "[redacted]",
    response: "[redacted]",
  });
  assert.doesNotMatch(JSON.stringify(entry), /secret/);
});

/** A page server for fetchPage through an injected guard that lets loopback through. */
function pages() {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/moved") {
      return new Response(null, { status: 302, headers: { location: "https://elsewhere.example/" } });
    }
    if (path === "/missing") return new Response("no", { status: 404 });
    if (path === "/text") {
      return new Response("plain " + "x".repeat(500), { headers: { "content-type": "text/plain" } });
    }
    return new Response(
      "<html><head><title>t</title><style>p{}</style></head><body><script>alert(1)</script><h1>VAT rates</h1>" +
        "<p>Standard &amp; reduced: 20%</p><table><tr><td>A</td><td>B</td></tr></table></body></html>",
      { headers: { "content-type": "text/html; charset=utf-8" } },
    );
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  const guard = (url: string, init?: { signal?: AbortSignal }) => fetch(url, { ...init, redirect: "manual" });
  return { base, guard, close: () => server.shutdown() };
}

Deno.test("web_fetch: HTML to text, redirects and errors as text, cut at max-chars, localhost refused", async () => {
  const site = pages();
  try {
    const page = await fetchPage(`${site.base}/`, site.guard, 8000);
    assert.equal(page.text, "VAT rates\nStandard & reduced: 20%\n| A | B");
    assert.equal(page.record.responseCode, 200);
    assert.equal(page.record.mediaType, "text/html");
    assert.equal(page.record.extractedLength, page.text.length);
    assert.ok(page.record.rawLength > page.text.length);
    assert.equal(
      (await fetchPage(`${site.base}/moved`, site.guard, 8000)).text,
      "[Redirect to https://elsewhere.example/ not followed]",
    );
    assert.equal(
      (await fetchPage(`${site.base}/missing`, site.guard, 8000)).text,
      "[HTTP 404 from 127.0.0.1]",
    );
    const cut = await fetchPage(`${site.base}/text`, site.guard, 100);
    assert.ok(cut.text.startsWith("plain xxx") && cut.text.endsWith("[… cut at 100 characters]"));
    assert.match((await fetchPage("http://localhost:1/", site.guard, 100)).text, /refused: localhost/);
    assert.match((await fetchPage("gopher://x/", site.guard, 100)).text, /only http and https/);
    assert.match(
      (await fetchPage("https://x/" + "a".repeat(2048), site.guard, 100)).text,
      /longer than 2048/,
    );
    assert.match(
      (await fetchPage("https://example.com/", noEgress, 100)).text,
      /^\[web_fetch refused: web access is not configured on this host\]$/,
    );
  } finally {
    await site.close();
  }
  assert.equal(htmlToText("a<br>b&#x41;&#66;&nbsp;c"), "a\nbAB c");
});

Deno.test("web_search back ends parse their answers (DuckDuckGo HTML, Brave, Tavily) through the fetch port", async () => {
  const seen: Request[] = [];
  const fake = (request: Request | URL | string): Promise<Response> => {
    const req = request as Request;
    seen.push(req);
    const host = new URL(req.url).hostname;
    if (host === "html.duckduckgo.com") {
      return Promise.resolve(
        new Response(
          '<a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fvat.example%2Frates&amp;rut=1">VAT <b>rates</b></a>' +
            '<a class="result__snippet" href="x">Standard rate is <b>20%</b></a>',
        ),
      );
    }
    if (host === "api.search.brave.com") {
      return Promise.resolve(
        Response.json({
          web: { results: [{ title: "B", url: "https://b.example", description: "<strong>b</strong> d" }] },
        }),
      );
    }
    return Promise.resolve(
      Response.json({ results: [{ title: "T", url: "https://t.example", content: "t c" }] }),
    );
  };
  const duck = await webSearchOf({ provider: "duckduckgo", apiKey: null, fetch: fake as typeof fetch })
    .search("vat rate", 5);
  assert.deepEqual(duck, [{
    title: "VAT rates",
    url: "https://vat.example/rates",
    snippet: "Standard rate is 20%",
  }]);
  const brave = await webSearchOf({ provider: "brave", apiKey: "bk", fetch: fake as typeof fetch }).search(
    "q",
    3,
  );
  assert.deepEqual(brave, [{ title: "B", url: "https://b.example", snippet: "b d" }]);
  assert.equal(seen[1].headers.get("x-subscription-token"), "bk");
  assert.match(seen[1].url, /count=3/);
  const tavily = await webSearchOf({ provider: "tavily", apiKey: "tk", fetch: fake as typeof fetch }).search(
    "q",
    2,
  );
  assert.deepEqual(tavily, [{ title: "T", url: "https://t.example", snippet: "t c" }]);
  assert.equal(seen[2].headers.get("authorization"), "Bearer tk");
  assert.deepEqual(await seen[2].json(), { query: "q", max_results: 2 });
});

Deno.test("tools: budgets per session, repeats from the cache, progress for each call, repair offers eval only", async () => {
  const site = pages();
  const events: ProgressEvent[] = [];
  let searches = 0;
  const config = configOf({ "svc.llm.web-fetch.max-calls": "2", "svc.llm.web-search.max-calls": "1" });
  const session = new ToolSession(
    config,
    {
      fetch: site.guard,
      search: {
        name: "fake",
        search: (query) => {
          searches++;
          return Promise.resolve([{ title: query, url: "https://r.example", snippet: "s" }]);
        },
      },
    },
    localAuthoring(),
    (e) => events.push(e),
  );
  try {
    const tools = Object.fromEntries(session.all().map((t) => [t.name, t]));
    assert.deepEqual(Object.keys(tools), ["get_domain_guidance", "eval_jsonata", "web_fetch", "web_search"]);
    assert.deepEqual(session.repair().map((t) => t.name), ["eval_jsonata"]);
    assert.equal(
      await tools.eval_jsonata.execute({ expr: "a + 1", input: { a: 1 } }),
      '{"result":2,"type":"number"}',
    );
    assert.match(await tools.eval_jsonata.execute({ expr: "a +" }), /^error: /);
    // A huge result is cut like a fetched page, and says so.
    const huge = await tools.eval_jsonata.execute({ expr: '$pad("", 3000000, "x")' });
    assert.ok(huge.length < 8100, String(huge.length));
    assert.match(huge, /\n\[… cut at 8000 of 3000029 characters\]$/);
    assert.match(await tools.get_domain_guidance.execute({ topics: ["percentages"] }), /"id":"percentages"/);
    assert.equal(session.guidance.length, 1);
    assert.match(
      await tools.get_domain_guidance.execute({ topics: ["astrology"] }),
      /unknown guidance topic/,
    );
    assert.match(await tools.web_fetch.execute({ url: `${site.base}/` }), /VAT rates/);
    assert.match(await tools.web_fetch.execute({ url: `${site.base}/` }), /VAT rates/, "cached, free");
    assert.match(await tools.web_fetch.execute({ url: `${site.base}/text` }), /plain/);
    assert.match(await tools.web_fetch.execute({ url: `${site.base}/missing` }), /limit reached: 2 pages/);
    assert.equal(session.fetches.length, 2);
    assert.match(await tools.web_search.execute({ query: "vat" }), /1\. vat\n {3}https:\/\/r\.example/);
    assert.match(await tools.web_search.execute({ query: "other" }), /limit reached: 1 searches/);
    assert.equal(searches, 1);
    assert.deepEqual(events.slice(0, 2).map((e) => [e.type, e.tool]), [["tool_calling", "eval_jsonata"], [
      "tool_completed",
      "eval_jsonata",
    ]]);
    assert.equal(
      events.filter((e) => e.type === "tool_calling").length,
      events.filter((e) => e.type === "tool_completed").length,
    );
    const off = new ToolSession(
      configOf({
        "svc.llm.web-fetch.enabled": "false",
        "svc.llm.web-search.enabled": "false",
        "svc.llm.eval-tool.enabled": "false",
      }),
      {
        fetch: site.guard,
        search: { name: "none", search: () => Promise.resolve([]) },
      },
      localAuthoring(),
    );
    assert.deepEqual(off.all().map((t) => t.name), ["get_domain_guidance"]);
    assert.deepEqual(off.repair(), []);
  } finally {
    await site.close();
  }
});
