/**
 * A `view` attribute naming a view the spec does not define (a typo, a view
 * renamed): the element says so inside itself, naming the view asked for and
 * the ones the spec has, and shows the default view under that line (before,
 * the view's bare "not found" alert showed alone), and fires `svc-error` with
 * that line, as the element's other failures do. A view the host sets is told
 * as `svc-navigate`, as a person's navigation is.
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { counter, hostPage, JSON_TYPE } from "./embed_host.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

Deno.test("embedding: a view the spec does not define is named in the element, with the views it has, and told as svc-error", async () => {
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
    // The page's own listener, as an embedding page would have one.
    await page.addInitScript(() => {
      const seen: unknown[] = (globalThis as unknown as { svcErrors: unknown[] }).svcErrors = [];
      document.addEventListener("svc-error", (e) => seen.push((e as CustomEvent).detail));
      const went: unknown[] = (globalThis as unknown as { svcNavigations: unknown[] }).svcNavigations = [];
      document.addEventListener("svc-navigate", (e) => went.push((e as CustomEvent).detail));
    });
    const told = () => page.evaluate(() => (globalThis as unknown as { svcErrors: unknown[] }).svcErrors);
    const navigations = () =>
      page.evaluate(() => (globalThis as unknown as { svcNavigations: unknown[] }).svcNavigations);
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    const model = page.locator("svc-model");
    const line = "This spec has no view 'mian' (its views: main, summary): its default view shows.";
    await model.getByText(line).waitFor();
    await model.getByLabel("Count", { exact: true }).waitFor();
    // Told to the page as the element's other failures are: one svc-error with the line's text.
    assert.deepEqual(await told(), [{ modelId: "counter", message: line }]);
    await screenshot(page, "embed-unknown-view");
    await assertAccessible(page, "svc-model");
    // A view it defines shows as asked, without the line.
    await model.evaluate((el) => el.setAttribute("view", "summary"));
    await model.locator("svc-view").getByRole("heading", { name: "Summary" }).waitFor();
    assert.equal(await model.getByText("has no view").count(), 0);
    // The host's change of view is told as a person's navigation is (before, only theirs was); the first view
    // shown was none.
    assert.deepEqual(await navigations(), [{ modelId: "counter", viewId: "summary" }]);
    // Another unknown view is told in turn; a view it has is no failure.
    await model.evaluate((el) => el.setAttribute("view", "other"));
    await model.getByText("This spec has no view 'other'").waitFor();
    assert.equal((await told()).length, 2);
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
});
