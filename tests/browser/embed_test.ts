/**
 * The embedding example: a plain HTML page with one script (`svc-embed.js`)
 * and one `<svc-model src="order.json">` element runs the model in the page;
 * fields by label, derived values, the page's own `svc-commit` listener, the
 * JS API (`mutate`) updating the element live, state kept across a reload
 * (IndexedDB), a service of `createModelService()` working on the element's
 * model, accessible, no console errors.
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

Deno.test("embedding: one script and one element in a plain page", async () => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await page.goto(`http://127.0.0.1:${server.addr.port}/examples/embed.html`);
    const model = page.locator("svc-model");
    const enter = async (label: string, value: string) => {
      await model.getByLabel(label).fill(value);
      await model.getByLabel(label).press("Enter");
    };
    await enter("Quantity", "3");
    await enter("Unit price", "10");
    await model.getByText("€35.00").waitFor();
    await page.getByText(/^Saved: \$\.price \(recomputed/).waitFor();
    await model.getByLabel("Express delivery").check();
    await model.getByText("€45.00").waitFor();

    await page.evaluate(async () => {
      const embed = await import("/svc-embed.js");
      await embed.mutate("embed-order", { "$.qty": 4 });
    });
    await model.getByText("€55.00").waitFor();
    await enter("Quantity", "500");
    await model.getByText("Orders above 2000 need a quote").waitFor();
    await screenshot(page, "embed-order");
    await assertAccessible(page, "svc-model");

    await page.reload();
    await model.getByText("€55.00").waitFor();
    assert.equal(await model.getByLabel("Quantity").inputValue(), "4");
    assert.equal(await model.getByLabel("Express delivery").isChecked(), true);

    // createModelService() works on the page's models: a write through it reaches the element.
    await page.evaluate(async () => {
      const embed = await import("/svc-embed.js");
      const service = await embed.createModelService();
      await service.mutate("embed-order", { "$.qty": 6 });
    });
    await model.getByText("€75.00").waitFor();
    assert.equal(await model.getByLabel("Quantity").inputValue(), "6");
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
});
