/**
 * A link to a server's model (`/#model=…&panel=…`, the address a person copies
 * from the playground) opened in a fresh browser: the playground starts in the
 * tab, which lacks the model, so it says where the model may be instead of
 * showing the start page without a word; connecting to the server then opens
 * that model on that panel.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BLANK_SPEC } from "../../browser/playground/blank_spec.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { launchBrowser } from "./chromium.ts";
import { screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";

const SPEC = { ...BLANK_SPEC, id: "shop/cart" };

Deno.test("a link to a server's model: the tab says it is not there, and connecting opens it", async () => {
  const build = await temporaryWebBuild();
  const server = await startTestServer({}, { webRoot: build.dir });
  await using browser = await launchBrowser();
  try {
    assert.equal((await call(server.url, "POST", "/models", SPEC)).status, 201);
    const { page, errors } = await watchedPage(browser);
    await page.goto(`${server.url}/#model=${encodeURIComponent(SPEC.id)}&panel=audit`);
    await page.getByText("Connected: this tab").waitFor();
    await page.getByRole("status").getByText(
      `Model '${SPEC.id}' is not in this tab: if a server holds it, choose "On a server" and Connect.`,
    ).waitFor();
    await screenshot(page, "playground-link-not-in-tab");

    await page.getByLabel("On a server").check();
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByText(`Connected: ${server.url}`).waitFor();
    await page.getByRole("heading", { name: "Audit trail" }).waitFor();
    assert.equal(
      await page.getByRole("button", { name: SPEC.id, exact: true }).getAttribute("aria-current"),
      "page",
    );
    assert.match(page.url(), /#model=shop%2Fcart&panel=audit$/);
    assert.equal(
      await page.getByText("is not in this tab").count(),
      0,
      "the notice went with the model found",
    );
    await screenshot(page, "playground-link-opened");
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
    await build.remove();
  }
});
