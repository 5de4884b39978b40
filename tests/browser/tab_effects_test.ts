/**
 * The tab is a host like the server (decisions/browser.md): a model embedded
 * in a plain page runs its own effects. A `server` effect fetches a rate from
 * another origin under the page's CORS rules and folds it back; one to an
 * origin that does not allow the page fails (its status document says so); a
 * timer folds back after its delay, also when the page was reloaded before it
 * fell due (the outbox is in IndexedDB); `caller` effects reach the page as
 * `svc-effect` events. Fields found by their labels; screenshot
 * .cache/screenshots/tab-effects.png.
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

/** What the page runs: a region whose rate is fetched, a timer that closes the quote, a caller effect. */
function quoteSpec(rateBase: string) {
  return {
    id: "tab-quote",
    schema: {
      type: "object",
      properties: {
        region: { type: "string" },
        rate: { type: "number" },
        status: { type: "string" },
        io: { type: "object" },
      },
    },
    effects: [
      {
        id: "fetch-rate",
        executor: "server",
        trigger: "region != null and region != 'private'",
        dedupeKey: "region",
        request: { url: `${rateBase}/rate/{ region }` },
        response: { set: { "$.rate": "$response.rate" } },
        statusPath: "$.io.rate",
      },
      {
        id: "close",
        executor: "timer",
        trigger: "status = 'open'",
        dedupeKey: "status",
        afterMs: "1500",
        response: { set: { "$.status": "'closed'" } },
      },
      {
        id: "fetch-private",
        executor: "server",
        trigger: "region = 'private'",
        dedupeKey: "region",
        request: { url: `${rateBase}/private` },
        response: { set: { "$.rate": "$response.rate" } },
        statusPath: "$.io.private",
      },
      {
        id: "saved",
        executor: "caller",
        trigger: "region != null",
        emit: "region-set",
        payload: "{'region': region}",
      },
    ],
    derivations: [{ path: "$.problem", expr: "io.private.error" }],
    viewDefinition: {
      defaultView: "main",
      views: [{
        id: "main",
        label: "Quote",
        components: [
          { id: "region", type: "textField", label: "Region", bind: "$.region" },
          { id: "status", type: "textField", label: "Status", bind: "$.status" },
          { id: "rate", type: "statTile", label: "Rate", bind: "$.rate" },
          { id: "problem", type: "statTile", label: "Fetch problem", bind: "$.problem" },
        ],
      }],
    },
  };
}

const PAGE = (spec: unknown) =>
  `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Effects in the tab</title><link rel="icon" href="data:,">
    <script type="module" src="/svc-embed.js"></script></head>
  <body><main>
    <h1>Quote</h1>
    <svc-model id="quote"></svc-model>
    <ul id="events" aria-label="Caller effects"></ul>
  </main>
  <script type="module">
    document.addEventListener("svc-effect", (event) => {
      const item = document.createElement("li");
      item.textContent = event.detail.effectId + ": " + event.detail.emit + " " + JSON.stringify(event.detail.payload);
      document.getElementById("events").append(item);
    });
    document.getElementById("quote").spec = ${JSON.stringify(spec)};
  </script></body>
</html>`;

Deno.test("effects in the tab: a CORS fetch folds back, a refused origin fails, a timer survives a reload, caller events", async () => {
  const build = await temporaryWebBuild();
  // Another origin (another port): it allows any page for /rate, nobody for /private.
  const requests: string[] = [];
  await using rates = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    requests.push(path);
    if (path.startsWith("/rate/")) {
      return Response.json({ rate: 3 }, {
        headers: { "access-control-allow-origin": "*" },
      });
    }
    return Response.json({ rate: 99 });
  });
  const rateBase = `http://127.0.0.1:${rates.addr.port}`;
  const spec = quoteSpec(rateBase);
  await using server = serveStatic({
    "/effects.html": { body: PAGE(spec), type: "text/html; charset=utf-8" },
  }, build.dir);
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await page.goto(`http://127.0.0.1:${server.addr.port}/effects.html`);
    const model = page.locator("svc-model");
    const enter = async (label: string, value: string) => {
      await model.getByLabel(label).fill(value);
      await model.getByLabel(label).press("Enter");
    };

    // The server effect, from the tab: the rate comes back into the model.
    await enter("Region", "eu");
    await model.getByText("3", { exact: true }).waitFor();
    await page.getByRole("list", { name: "Caller effects" }).getByText('saved: region-set {"region":"eu"}')
      .waitFor();
    assert.ok(requests.includes("/rate/eu"), "the tab sent the request itself");

    // The timer: armed, then the page is reloaded before it is due; it fires after the reload.
    await enter("Status", "open");
    await page.reload();
    await model.getByLabel("Status").waitFor();
    await assertEventually(
      async () => await model.getByLabel("Status").inputValue() === "closed",
      "timer after reload",
    );
    await assertAccessible(page, "svc-model");

    // An origin that does not allow the page: the browser refuses the answer, the status document says so.
    await enter("Region", "private");
    await model.getByText(/^request failed: /).waitFor();
    assert.equal(
      await model.getByText("3", { exact: true }).count(),
      1,
      "the rate stayed: nothing folded back",
    );
    await page.getByRole("list", { name: "Caller effects" }).getByText(
      'saved: region-set {"region":"private"}',
    )
      .waitFor();
    await screenshot(page, "tab-effects");
    // Chromium reports the refused cross-origin answer on the console; nothing else may be an error.
    assert.deepEqual(errors.filter((e) => !/CORS policy|net::ERR_FAILED/.test(e)), []);
  } finally {
    await build.remove();
  }
});

async function assertEventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
