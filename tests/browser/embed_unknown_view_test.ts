/**
 * A `view` attribute naming a view the spec does not define (a typo, a view
 * renamed): the element says so inside itself, naming the view asked for and
 * the ones the spec has, and shows the default view under that line (before,
 * the view's bare "not found" alert showed alone).
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { counter, hostPage, JSON_TYPE } from "./embed_host.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

Deno.test("embedding: a view the spec does not define is named in the element, with the views it has", async () => {
  const build = await temporaryWebBuild();
  const spec = counter("1.0.0", 1) as { viewDefinition: { views: Record<string, unknown>[] } };
  spec.viewDefinition.views.push({ id: "summary", label: "Summary", components: [] });
  await using server = serveStatic({
    "/": hostPage(`<svc-model src="/counter.json" view="mian"></svc-model>`),
    "/counter.json": { type: JSON_TYPE, body: JSON.stringify(spec) },
  }, build.dir);
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    const model = page.locator("svc-model");
    await model.getByText(
      "This spec has no view 'mian' (its views: main, summary): its default view shows.",
    ).waitFor();
    await model.getByLabel("Count", { exact: true }).waitFor();
    await screenshot(page, "embed-unknown-view");
    await assertAccessible(page, "svc-model");
    // A view it defines shows as asked, without the line.
    await model.evaluate((el) => el.setAttribute("view", "summary"));
    await model.locator("svc-view").getByRole("heading", { name: "Summary" }).waitFor();
    assert.equal(await model.getByText("has no view").count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
});
