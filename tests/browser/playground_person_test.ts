/// <reference lib="dom" />
/**
 * Panels as a person meets them, in the tab. Explain: a path the model does
 * not compute is not met with "write a field it reads" (no write would trace
 * it), but pointed at the list of its derived fields and constraints.
 * Snapshots: take one, go to the view and
 * change a value, come back and restore it (the list outlives the visit to
 * another panel; each button names its snapshot), see the value back; export
 * the state and restore it from the file; a file that is no state says which
 * action failed, and no earlier success is shown beside it. Deleting the
 * model moves focus to the models list (the panel and its button are gone).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

/** Types into a labelled field of the view and commits it (Enter). */
async function type(page: Page, label: string, value: string): Promise<void> {
  const field = page.locator("svc-view").getByLabel(label, { exact: true });
  await field.fill(value);
  await field.press("Enter");
}

Deno.test("playground panels as a person uses them: explain a path, snapshots kept across panels, files", async (t) => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const folder = await Deno.makeTempDir({ prefix: "snapshots_" });
  try {
    const { page, errors } = await watchedPage(context);
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.getByText("Connected: this tab").waitFor();
    await page.getByRole("button", { name: "Open Recipe scaler" }).click();
    await page.locator("svc-view h2").first().waitFor();
    const state = page.getByTestId("state");
    await type(page, "Recipe", "Pancakes");
    await state.getByText('"Pancakes"').waitFor();
    const files = page.getByRole("tab", { name: "Snapshots & files" });
    const status = page.locator("svc-snapshot-panel").getByRole("status");

    await t.step(
      "explain: a derived field's traces; a path the model lacks is refused, a base field has none: both name the list",
      async () => {
        await page.getByRole("tab", { name: "Explain" }).click();
        const target = page.getByLabel("Field or constraint");
        await target.fill("$.scaleFactor");
        await target.press("Enter");
        await page.getByRole("region", { name: "Traces of $.scaleFactor" }).waitFor();
        await target.fill("$.scale");
        await target.press("Enter");
        const panel = page.locator("svc-explain-panel");
        // Refused, and the paths that have traces named in words (not "the field's list"), once.
        await panel.getByText("Nothing to explain at $.scale: model 'recipe-scaler' has no such field")
          .waitFor();
        const list =
          "This model's derived fields, meta values and constraints (the Field or constraint box lists them too): " +
          "$.scaleFactor, ";
        await panel.getByText(list).waitFor();
        assert.equal(await panel.getByText("No traces for $.scale").count(), 0);
        assert.equal(await panel.getByText("write a field it reads").count(), 0);
        await screenshot(page, "explain-unknown-path");
        // A base field the model has: no traces of its value, and why; its meta value (a live maximum) has
        // traces of its own, offered as a button.
        await target.fill("$.targetServings");
        await target.press("Enter");
        await panel.getByText("No traces for $.targetServings: its value is written, not computed.")
          .waitFor();
        await panel.getByRole("button", { name: "$.targetServings#maximum" }).waitFor();
        assert.equal(await panel.getByText("Nothing to explain").count(), 0);
      },
    );

    await t.step(
      "mutate: the box's label is in words every font draws, and a write by path commits",
      async () => {
        await page.getByRole("tab", { name: "Mutate" }).click();
        // Its arrow glyph drew blank in fonts without one ("Address  value").
        const box = page.getByLabel("Paths and their values (JSON object)");
        await box.fill('{"$.targetServings": 6}');
        await page.getByRole("button", { name: "Apply" }).click();
        await page.getByRole("status", { name: "Mutation result" }).getByText("$.scaleFactor").waitFor();
        await screenshot(page, "mutate-by-path");
      },
    );

    await t.step("evolve: a refused apply shows the refusal, and no preview that looks applied", async () => {
      await page.getByRole("tab", { name: "Evolve" }).click();
      const panel = page.locator("svc-evolve-panel");
      const editor = panel.getByLabel("Spec to evolve");
      await editor.waitFor();
      const spec = JSON.parse(
        await panel.evaluate((el) =>
          (el.querySelector("svc-json-editor") as unknown as {
            value: string;
          }).value
        ),
      );
      spec.derivations.push({ path: "$.broken", expr: "1 +" });
      await editor.click();
      await page.keyboard.press("ControlOrMeta+a");
      await page.keyboard.insertText(JSON.stringify(spec, null, 2));
      await panel.getByRole("button", { name: "Preview the evolution" }).click();
      await panel.getByText("This evolution:").waitFor();
      await panel.getByRole("button", { name: "Apply the evolution" }).click();
      const alert = panel.getByRole("alert");
      await alert.getByText(/Spec validation failed: derivations\[\d+\]\.expr/).waitFor();
      await screenshot(page, "evolve-refused");
      assert.equal(await panel.getByText("This evolution:").count(), 0);
      assert.equal(await panel.getByText("Applied.").count(), 0);
      assert.match(await alert.textContent() ?? "", /^Not applied: /);
    });

    await t.step(
      "tests: each case reads passed or failed in words, no glyph a font may lack first",
      async () => {
        await page.getByRole("tab", { name: "Tests" }).click();
        const cases = page.locator("svc-tests-panel .cases > li");
        await cases.first().waitFor();
        for (const text of await cases.allTextContents()) assert.match(text.trim(), /^(passed|failed): /);
        await screenshot(page, "tests-cases");
      },
    );

    await t.step("a snapshot taken stays listed after a visit to the view, and restores", async () => {
      await files.click();
      await page.getByRole("button", { name: "Take a snapshot" }).click();
      await status.getByText("Snapshot taken.").waitFor();
      await page.getByRole("tab", { name: "View" }).click();
      await type(page, "Recipe", "Waffles");
      await state.getByText('"Waffles"').waitFor();
      await files.click();
      await page.getByRole("button", { name: "Restore snapshot 1" }).click();
      await status.getByText("State restored.").waitFor();
      await screenshot(page, "snapshots-restored");
      await assertAccessible(page, "svc-snapshot-panel");
      await page.getByRole("tab", { name: "View" }).click();
      await state.getByText('"Pancakes"').waitFor();
      assert.equal(
        await page.locator("svc-view").getByLabel("Recipe", { exact: true }).inputValue(),
        "Pancakes",
      );
    });

    await t.step("the state exported restores from its file; a file that is no state says so", async () => {
      await files.click();
      const download = page.waitForEvent("download");
      await page.getByRole("button", { name: "Export the state" }).click();
      const exported = `${folder}/state.json`;
      await (await download).saveAs(exported);
      await page.getByRole("tab", { name: "View" }).click();
      await type(page, "Recipe", "Crêpes");
      await state.getByText('"Crêpes"').waitFor();
      await files.click();
      await page.getByLabel("Restore state from a file").setInputFiles(exported);
      await status.getByText("State restored.").waitFor();
      await Deno.writeTextFile(`${folder}/other.json`, '{"serves": 4}');
      await page.getByLabel("Restore state from a file").setInputFiles(`${folder}/other.json`);
      const alert = page.locator("svc-snapshot-panel").getByRole("alert");
      await alert.getByText(/^Restoring from that file failed: /).waitFor();
      // The earlier success is gone: a failure beside "State restored." contradicts itself.
      assert.equal(await status.textContent(), "");
      await screenshot(page, "snapshots-import-refused");
      await page.getByRole("tab", { name: "View" }).click();
      await state.getByText('"Pancakes"').waitFor();
      assert.equal(
        await page.locator("svc-view").getByLabel("Recipe", { exact: true }).inputValue(),
        "Pancakes",
      );
    });
    await t.step("deleting the model moves focus to the models list, whose notice says so", async () => {
      await files.click();
      page.once("dialog", (dialog) => dialog.accept());
      await page.getByRole("button", { name: "Delete the model" }).click();
      await page.getByRole("status").getByText("Model 'recipe-scaler' was deleted.").waitFor();
      await page.getByRole("heading", { name: "Start from an example" }).waitFor();
      // Focus is where the person can go on (not the top of the document, with the panel gone).
      await page.waitForFunction(() => document.activeElement?.id === "models-title", null, {
        timeout: 5_000,
      })
        .catch(() => {});
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Models");
      await screenshot(page, "deleted-focus");
    });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await Deno.remove(folder, { recursive: true });
    await build.remove();
  }
});
