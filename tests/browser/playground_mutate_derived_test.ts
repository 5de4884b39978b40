/// <reference lib="dom" />
/**
 * The playground's Mutate panel names every address a write recomputed,
 * those under a wildcard derivation (`$.ingredients[*].scaledQuantity`) one
 * per element: a recipe without ingredients derives two paths from a change
 * of `targetServings`, one with two ingredients eleven.
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

Deno.test("playground mutate: derived paths under a wildcard are listed per element", async () => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.getByText("Connected: this tab").waitFor();
    await page.getByRole("button", { name: "Open Recipe scaler" }).click();
    await page.locator("svc-view h2").first().waitFor();
    await page.getByRole("tab", { name: "Mutate" }).click();
    const box = page.getByLabel("Paths and their values (JSON object)");
    const result = page.getByRole("status", { name: "Mutation result" });
    const derived = async (changes: unknown) => {
      await box.fill(JSON.stringify(changes));
      await page.getByRole("button", { name: "Apply" }).click();
      await result.getByText(`Written: ${Object.keys(changes as object)[0]}`).waitFor();
      return await result.locator(".tag.derived").allTextContents();
    };
    assert.deepEqual(await derived({ "$.targetServings": 6 }), ["$.scaleFactor", "$.kcalPerServing"]);
    await derived({
      "$.ingredients": [
        { name: "flour", quantity: 500, unit: "g", kcalPer100g: 364 },
        { name: "milk", quantity: 300, unit: "ml" },
      ],
    });
    assert.deepEqual(await derived({ "$.targetServings": 8 }), [
      "$.scaleFactor",
      "$.ingredients[0].scaledQuantity",
      "$.ingredients[1].scaledQuantity",
      "$.ingredients[0].grams",
      "$.ingredients[1].grams",
      "$.shoppingList",
      "$.ingredients[0].kcal",
      "$.ingredients[1].kcal",
      "$.totalGrams",
      "$.totalKcal",
      "$.kcalPerServing",
    ]);
    await screenshot(page, "mutate-derived-per-element");
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
});
