/**
 * The README's embedding snippet as written: a page of one origin loads the
 * embed script from the server's origin (`<script type="module"
 * src="https://your-host/svc-embed.js">`) and its `<svc-model>` runs the model
 * in the page. A module script from another origin needs CORS, so the server
 * shares `/svc-embed.js` with every origin (before, the browser blocked it and
 * the element never showed).
 *
 * @module
 */
import assert from "node:assert/strict";
import { startTestServer } from "../server/helpers.ts";
import { launchBrowser } from "./chromium.ts";
import { assertEventually, counter, enter, hostPage, JSON_TYPE } from "./embed_host.ts";
import { screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

Deno.test("embedding: a page of another origin loads the server's svc-embed.js", async () => {
  const build = await temporaryWebBuild();
  const server = await startTestServer({}, { webRoot: build.dir });
  await using host = serveStatic({
    "/": hostPage(`<svc-model src="/counter.json"></svc-model>`, "", `${server.url}/svc-embed.js`),
    "/counter.json": { type: JSON_TYPE, body: JSON.stringify(counter("1.0.0", 2)) },
  });
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await page.goto(`http://127.0.0.1:${host.addr.port}/`);
    const model = page.locator("svc-model");
    const count = model.getByLabel("Count", { exact: true });
    const shown = await count.waitFor({ timeout: 10_000 }).then(() => true, () => false);
    assert.ok(shown, `the element shows the model; the page said: ${errors.join("; ")}`);
    await enter(model, "Count", "3");
    await model.getByRole("button", { name: "Add a step" }).click();
    await assertEventually(async () => await count.inputValue() === "5");
    await screenshot(page, "embed-cross-origin");
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
  }
});
