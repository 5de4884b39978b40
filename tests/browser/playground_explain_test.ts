/// <reference lib="dom" />
/**
 * The playground's Explain panel on a big model: a refused path names the
 * first 20 paths that have traces and counts the others, not a wall of
 * hundreds; the Field or constraint box still offers every one. A base field
 * that meta derivations compute the metadata of points at their keys
 * (`$.note#required`), where their traces are.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BLANK_SPEC } from "../../browser/playground/blank_spec.ts";
import type { Page } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

const COUNT = 200;
/** The blank spec with `COUNT` more derived fields: `$.d001`, `$.d002`, … */
const BIG_SPEC = {
  ...BLANK_SPEC,
  id: "big",
  derivations: [
    ...BLANK_SPEC.derivations,
    ...Array.from(
      { length: COUNT },
      (_, i) => ({ path: `$.d${String(i + 1).padStart(3, "0")}`, expr: `qty + ${i}` }),
    ),
  ],
};

/** Opens the playground in the tab on `server` and creates `spec` from the New model editor, as a person would. */
async function createInTab(page: Page, port: number, spec: unknown) {
  await page.goto(`http://127.0.0.1:${port}/`);
  await page.getByText("Connected: this tab").waitFor();
  await page.getByRole("button", { name: "New model", exact: true }).click();
  const editor = page.locator("svc-new-model .cm-content");
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.insertText(JSON.stringify(spec));
  await page.getByRole("button", { name: "Create the model" }).click();
  await page.locator("svc-view h2").first().waitFor();
}

Deno.test("playground explain: a refused path on a big model names 20 traced paths and counts the rest", async () => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await createInTab(page, server.addr.port, BIG_SPEC);

    await page.getByRole("tab", { name: "Explain" }).click();
    const target = page.getByLabel("Field or constraint");
    await target.fill("$.nope");
    await target.press("Enter");
    const panel = page.locator("svc-explain-panel");
    await panel.getByText("Nothing to explain at $.nope: model 'big' has no such field").waitFor();
    const named = [
      "$.total",
      ...Array.from({ length: 19 }, (_, i) => `$.d${String(i + 1).padStart(3, "0")}`),
    ];
    const list = panel.locator("p.muted");
    await list.waitFor();
    await screenshot(page, "explain-big-model");
    assert.equal(
      (await list.textContent())?.replace(/\s+/g, " ").trim(),
      "This model's derived fields, meta values and constraints (the Field or constraint box lists them too): " +
        `${named.join(", ")}, … and ${COUNT + 2 - 20} more.`,
    );
    // The box still offers every one (the 201 derived fields and the constraint).
    assert.equal(await panel.locator("#explain-targets option").count(), COUNT + 2);
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
});

Deno.test("playground explain: a base field with meta derivations points at their keys, which explain them", async () => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await createInTab(page, server.addr.port, {
      ...BLANK_SPEC,
      id: "notes",
      schema: {
        ...BLANK_SPEC.schema,
        properties: { ...BLANK_SPEC.schema.properties, note: { type: "string" } },
      },
      metaDerivations: [{ path: "$.note", property: "required", expr: "qty > 5" }],
    });
    // A write the meta derivation reads: it is computed, and traced.
    const quantity = page.locator("svc-view").getByLabel("Quantity");
    await quantity.fill("7");
    await quantity.press("Enter");
    await page.locator("svc-state-panel").getByText('"qty": 7').waitFor();
    await page.getByRole("tab", { name: "Explain" }).click();
    const panel = page.locator("svc-explain-panel");
    // The box offers the meta value with the derived fields and constraints.
    await panel.locator('#explain-targets option[value="$.note#required"]').waitFor({ state: "attached" });
    const target = page.getByLabel("Field or constraint");
    await target.fill("$.note");
    await target.press("Enter");
    await panel.getByText("No traces for $.note: its value is written, not computed.").waitFor();
    await screenshot(page, "explain-meta-values");
    // The same field written in another form finds the same meta values: addresses compare canonically.
    for (const form of [`$['note']`, `$["note"]`]) {
      await target.fill(form);
      await target.press("Enter");
      await panel.getByText(`No traces for ${form}: its value is written, not computed.`).waitFor();
      await panel.getByRole("button", { name: "$.note#required" }).waitFor();
    }
    await screenshot(page, "explain-meta-values-quoted");
    await panel.getByRole("button", { name: "$.note#required" }).click();
    assert.equal(await target.inputValue(), "$.note#required");
    // The button went with its line: focus is in the box, which names what is explained.
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("list")), "explain-targets");
    await panel.getByRole("region", { name: "Traces of $.note#required" }).getByText("qty > 5").first()
      .waitFor();
    await screenshot(page, "explain-meta-value-traces");
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
});
