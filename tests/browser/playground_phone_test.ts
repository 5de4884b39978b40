/// <reference lib="dom" />
/**
 * The playground at a phone's width (390×844), in the tab: an example opened
 * with the keyboard (or a model created in the editor) puts focus on the
 * model's heading; after commits the view and the merged state (whose history
 * now lists them) stay inside their card; every panel fits the screen (the
 * page never scrolls sideways, a wide table or graph scrolls in a box of its
 * own that the keyboard reaches), and the panels pass axe.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

/** The playground's panels (app.ts defines custom elements, so it is not imported here). */
const PANELS = [
  ["view", "View"],
  ["mutate", "Mutate"],
  ["explain", "Explain"],
  ["graph", "Graph"],
  ["tests", "Tests"],
  ["audit", "Audit"],
  ["evolve", "Evolve"],
  ["files", "Snapshots & files"],
] as const;

/**
 * What sticks out: the page's width beyond the screen, and the elements crossing the right edge of the card
 * `selector` (the panel's, by default).
 */
function overflow(page: Page, selector = ".panel"): Promise<{ page: number; card: string[] }> {
  return page.evaluate((selector) => {
    const card = document.querySelector(selector)!;
    const edge = card.getBoundingClientRect().right;
    const out: string[] = [];
    // Inside a scrolling box an element may be wider than the card: the box scrolls it.
    const clips = (e: Element) => /auto|scroll|hidden/.test(getComputedStyle(e).overflowX);
    const walk = (root: Element | ShadowRoot) => {
      for (const e of root.children) {
        const box = e.getBoundingClientRect();
        if (box.width > 0 && box.right > edge + 0.5) {
          out.push(
            `${e.tagName.toLowerCase()}.${e.getAttribute("class") ?? ""} ends at ${Math.round(box.right)}`,
          );
        }
        if (clips(e)) continue;
        if (e.shadowRoot) walk(e.shadowRoot);
        walk(e);
      }
    };
    walk(card);
    return { page: document.documentElement.scrollWidth - innerWidth, card: out.slice(0, 8) };
  }, selector);
}

/** The element with focus, through shadow roots, as tag and text. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    let at = document.activeElement;
    while (at?.shadowRoot?.activeElement) at = at.shadowRoot.activeElement;
    return at ? `${at.tagName.toLowerCase()} ${at.textContent?.trim().slice(0, 60)}` : "none";
  });
}

Deno.test("playground at a phone's width: focus on open, nothing wider than the screen, panels accessible", async (t) => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const { page, errors } = await watchedPage(context);
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.getByText("Connected: this tab").waitFor();

    await t.step("an example opened with the keyboard moves focus to the model's heading", async () => {
      await page.getByRole("button", { name: "Open Gym membership pricing" }).focus();
      await page.keyboard.press("Enter");
      await page.locator("svc-view h2").first().waitFor();
      await page.waitForFunction(() => document.activeElement !== document.body, null, { timeout: 5_000 })
        .catch(() => {});
      assert.equal(await focused(page), "h2 gym-membership-pricing");
      await screenshot(page, "phone-opened-by-keyboard");
      // The next Tab reaches the panel tabs, right below the heading.
      await page.keyboard.press("Tab");
      assert.equal(await focused(page), "button View");
    });

    await t.step("after commits the view and the state's history stay inside their card", async () => {
      const view = page.locator("svc-view");
      await view.getByRole("radio", { name: "Plus: gym and pool" }).check();
      await view.getByRole("checkbox", { name: "Sauna" }).check();
      await view.getByRole("checkbox", { name: "Towel service" }).check();
      await page.getByText("3 commits in history.").waitFor();
      await screenshot(page, "phone-view-after-commits");
      // The history names commits in local time, short enough for a phone (the ISO instant was too wide).
      const commits = await page.getByLabel("Show").locator("option").allTextContents();
      assert.equal(commits.length, 4);
      for (const text of commits.slice(1)) {
        assert.match(text, /^after the commit of .*\d\d:\d\d:\d\d\.\d{3}$/);
      }
      assert.deepEqual(await overflow(page), { page: 0, card: [] });
    });

    await t.step("every panel fits the screen and passes axe", async () => {
      // Traces to explain: a line of the invoice, then a few writes.
      await page.getByRole("button", { name: "Examples and new model" }).click();
      await page.getByRole("button", { name: "Open Invoice with tax lines" }).click();
      const view = page.locator("svc-view");
      await view.getByRole("button", { name: "Add line" }).click();
      for (const [label, value] of [["Description", "Consulting"], ["Qty", "2"], ["Unit price", "100"]]) {
        await view.getByLabel(label, { exact: true }).fill(value);
        await view.getByLabel(label, { exact: true }).press("Enter");
      }
      await page.getByText("4 commits in history.").waitFor();
      for (const [id, name] of PANELS) {
        await page.getByRole("tab", { name }).click();
        await page.locator("#panel").getByRole("heading").first().waitFor();
        if (id === "explain") await page.locator("#panel table").waitFor();
        if (id === "graph") await page.locator("#panel svg").waitFor();
        if (id === "evolve") {
          await page.locator("#panel .cm-content").waitFor();
          await page.getByRole("button", { name: "Preview the evolution" }).click();
          await page.getByText("Nothing changed.").waitFor();
        }
        if (id === "mutate") {
          await page.getByLabel("Paths and their values (JSON object)").fill(
            '{"$.customer.name": "Ada Lovelace"}',
          );
          await page.getByRole("button", { name: "Apply" }).click();
          await page.getByRole("status", { name: "Mutation result" }).waitFor();
        }
        if (id === "files") {
          await page.getByRole("button", { name: "Take a snapshot" }).click();
          await page.locator("#panel").getByRole("button", { name: "Restore snapshot 1" }).waitFor();
        }
        await screenshot(page, `phone-panel-${id}`);
        assert.deepEqual({ id, ...await overflow(page) }, { id, page: 0, card: [] });
        await assertAccessible(page, "#panel");
      }
    });
    await t.step(
      "the start page and the new-model editor fit the screen; a created model gets focus",
      async () => {
        await page.getByRole("button", { name: "Examples and new model" }).click();
        await page.getByRole("button", { name: "New model", exact: true }).waitFor();
        await screenshot(page, "phone-start");
        assert.deepEqual(await overflow(page, "main"), { page: 0, card: [] });
        await page.getByRole("button", { name: "New model", exact: true }).click();
        await page.locator("svc-new-model .cm-content").waitFor();
        await screenshot(page, "phone-new-model");
        assert.deepEqual(await overflow(page, "main"), { page: 0, card: [] });
        await assertAccessible(page, "main");
        // Created from the editor, the model opens with focus on its heading too.
        await page.getByRole("button", { name: "Create the model" }).click();
        await page.locator("svc-view h2").first().waitFor();
        await page.waitForFunction(() => document.activeElement?.matches(".model-title"), null, {
          timeout: 5_000,
        })
          .catch(() => {});
        assert.equal(await focused(page), "h2 my-model");
      },
    );
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await build.remove();
  }
});
