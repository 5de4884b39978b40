/**
 * A link to a server's model (`/#model=…&panel=…`, the address a person copies
 * from the playground). Opened in a fresh browser from the server that serves
 * the playground, the page starts on that server and opens the model on that
 * panel at once. In a tab whose person chose "In this tab" earlier, the tab
 * lacks the model, so it says where the model may be instead of showing the
 * start page without a word; connecting to the server then opens that model on
 * that panel.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { BLANK_SPEC } from "../../browser/playground/blank_spec.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { launchBrowser } from "./chromium.ts";
import { screenshot, temporaryWebBuild, useTab, watchedPage } from "./journey.ts";

const SPEC = { ...BLANK_SPEC, id: "shop/cart" };

/** The linked model is open on its audit panel, the link kept in the address. */
async function assertOpened(page: Page): Promise<void> {
  await page.getByRole("heading", { name: "Audit trail" }).waitFor();
  assert.equal(
    await page.getByRole("button", { name: SPEC.id, exact: true }).getAttribute("aria-current"),
    "page",
  );
  assert.match(page.url(), /#model=shop%2Fcart&panel=audit$/);
}

Deno.test("a link to a server's model: the server's page opens it; a tab says it is not there, and connecting opens it", async (t) => {
  const build = await temporaryWebBuild();
  const server = await startTestServer({}, { webRoot: build.dir });
  await using browser = await launchBrowser();
  const link = `${server.url}/#model=${encodeURIComponent(SPEC.id)}&panel=audit`;
  try {
    assert.equal((await call(server.url, "POST", "/models", SPEC)).status, 201);
    const { page, errors } = await watchedPage(browser);

    await t.step("a fresh browser: the page starts on the server that serves it, on the model", async () => {
      await page.goto(link);
      await page.getByText(`Connected: ${server.url}`).waitFor();
      await assertOpened(page);
      assert.equal(await page.getByText("is not in this tab").count(), 0);
    });

    await t.step("the person chose the tab earlier: the tab says the model is not there", async () => {
      await useTab(page);
      // The choice is kept: the link, opened again, starts in the tab.
      await page.goto(link);
      await page.reload();
      await page.getByText("Connected: this tab").waitFor();
      await page.getByRole("status").getByText(
        `Model '${SPEC.id}' is not in this tab: if a server holds it, choose "On a server" and Connect.`,
      ).waitFor();
      await screenshot(page, "playground-link-not-in-tab");
    });

    await t.step("connecting to the server opens the model on the linked panel", async () => {
      await page.getByLabel("On a server").check();
      await page.getByRole("button", { name: "Connect" }).click();
      await page.getByText(`Connected: ${server.url}`).waitFor();
      await assertOpened(page);
      assert.equal(
        await page.getByText("is not in this tab").count(),
        0,
        "the notice went with the model found",
      );
      await screenshot(page, "playground-link-opened");
    });
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
    await build.remove();
  }
});
