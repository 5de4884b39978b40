/// <reference lib="dom" />
/**
 * The playground in the tab over damaged IndexedDB records (hand-edited, or
 * written by a broken build): a model whose header or head cannot be read is
 * left out and named, the others load; a model whose write log cannot be
 * replayed is reset with its stored state and log kept, and the page names it
 * and exports the kept records as a file.
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

Deno.test("playground in the tab: damaged stored records are named, the rest loads", async () => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    const warnings: string[] = [];
    page.on("console", (msg) => msg.type() === "warning" && warnings.push(msg.text()));
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.getByText("Connected: this tab").waitFor();
    for (const title of ["Shipping quote", "Recipe scaler"]) {
      await page.getByRole("button", { name: "Examples and new model" }).click();
      await page.getByRole("button", { name: `Open ${title}` }).click();
      await page.locator("svc-view h2").first().waitFor();
    }
    await page.getByRole("button", { name: "shipping-quote", exact: true }).click();
    await page.locator("svc-view").getByLabel("Destination postcode").fill("10115");
    await page.locator("svc-view").getByLabel("Destination postcode").press("Enter");
    await page.getByTestId("state").getByText('"postcode": "10115"').waitFor();

    // Damage: a header that is no header, a head that is no head, a log entry that is no write.
    await page.evaluate(async () => {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const request = indexedDB.open("svc-playground");
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const transaction = db.transaction("models", "readwrite");
      const models = transaction.objectStore("models");
      models.put("hello", ["model", "junk"]);
      models.put("garbage", ["head", "recipe-scaler"]);
      models.put({ nonsense: true }, ["log", "shipping-quote", 0]);
      await new Promise((resolve) => (transaction.oncomplete = resolve));
      db.close();
    });
    await page.reload();
    await page.getByText("Connected: this tab").waitFor();
    const notice = page.locator("svc-storage-notice");
    await notice.getByText("model 'junk' not loaded: its stored header is unreadable").waitFor();
    await notice.getByText("model 'recipe-scaler' not loaded: its stored head is unreadable").waitFor();
    await notice.getByText(/Model 'shipping-quote' could not be rebuilt from its stored state/).waitFor();
    assert.deepEqual(await page.locator("ul.models button").allInnerTexts(), ["shipping-quote"]);
    assert.ok(warnings.some((w) => w.includes("model 'shipping-quote': state could not be reconstructed")));
    await screenshot(page, "tab-damaged-records");
    await assertAccessible(page, "svc-storage-notice");

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      notice.getByRole("button", { name: "Export the kept records of shipping-quote" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), "shipping-quote.recovery.json");
    const kept = JSON.parse(await Deno.readTextFile(await download.path()));
    assert.equal(kept[0].modelId, "shipping-quote");
    assert.deepEqual(kept[0].log, [{ nonsense: true }]);

    await notice.getByRole("button", { name: "Delete the kept records of shipping-quote" }).click();
    await notice.getByText(/Model 'shipping-quote'/).waitFor({ state: "detached" });
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
});
