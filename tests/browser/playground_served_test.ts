/// <reference lib="dom" />
/**
 * Where the playground starts (README "In the browser"): the page the server
 * serves at `/` starts on that server, so it lists a model created over REST
 * (as the README's first `curl` does) and a model created in it is there over
 * REST; the same build on a static host, or the single file opened from disk,
 * starts in the tab and does not see the server's models. A connection saved
 * by an earlier build (which saved the automatic start too) yields to the
 * server; one the person chose stays. Reopened offline from the service
 * worker's cache, the server's page says the server is unreachable and offers
 * the tab. The Explain panel
 * lists a field's traces newest first.
 *
 * @module
 */
import assert from "node:assert/strict";
import { BLANK_SPEC } from "../../browser/playground/blank_spec.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { launchBrowser } from "./chromium.ts";
import { screenshot, temporaryWebBuild, useTab, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

const SPEC = { ...BLANK_SPEC, id: "shop/cart" };

Deno.test("the server's playground starts on that server; a static or file playground starts in the tab", async (t) => {
  const build = await temporaryWebBuild();
  const server = await startTestServer({}, { webRoot: build.dir });
  await using host = serveStatic({}, build.dir);
  await using browser = await launchBrowser();
  try {
    assert.equal((await call(server.url, "POST", "/models", SPEC)).status, 201);

    await t.step(
      "served by the server: lists the REST model, and its own model is on the server",
      async () => {
        const { page, errors } = await watchedPage(browser);
        await page.goto(`${server.url}/`);
        await page.getByRole("status").getByText(`Connected: ${server.url}`).waitFor();
        await page.getByText(`Server · ${server.url}`).waitFor();
        await page.getByRole("button", { name: SPEC.id, exact: true }).waitFor();
        await screenshot(page, "served-starts-on-server");
        // Two writes over REST; the Explain panel lists their traces newest first, as its caption says.
        const mutations = `/models/${encodeURIComponent(SPEC.id)}/mutations`;
        assert.equal((await call(server.url, "POST", mutations, { "$.qty": 1, "$.price": 2 })).status, 200);
        assert.equal((await call(server.url, "POST", mutations, { "$.qty": 3 })).status, 200);
        await page.getByRole("button", { name: SPEC.id, exact: true }).click();
        await page.getByRole("tab", { name: "Explain" }).click();
        await page.getByText("Traces of $.total, newest first").waitFor();
        assert.deepEqual(await page.locator("#panel tbody tr td:last-child").allTextContents(), ["6", "2"]);
        await screenshot(page, "served-explain");
        await page.getByRole("button", { name: "Examples and new model" }).click();
        await page.getByRole("button", { name: "Open Shipping quote" }).click();
        await page.locator("svc-view h2").first().waitFor();
        const listed = await call(server.url, "GET", "/models");
        assert.ok(
          (listed.json as string[]).includes("shipping-quote"),
          `the server lists ${listed.text}`,
        );
        assert.equal((await call(server.url, "GET", "/models/shipping-quote/state")).status, 200);
        // The tab is one click away.
        assert.equal(await page.getByLabel("In this tab").isChecked(), false);
        await page.getByLabel("In this tab").waitFor();
        assert.deepEqual(errors, []);
        await page.context().close();
      },
    );

    await t.step(
      "a connection saved before the page marked the person's choices yields to the server; a chosen tab stays",
      async () => {
        const { page, errors } = await watchedPage(browser);
        // Earlier builds saved the connection on every visit, as {mode, baseUrl}: "tab" here says nothing.
        await page.goto(`${server.url}/actuator/health`);
        await page.evaluate(() =>
          localStorage.setItem("svc-playground:connection", JSON.stringify({ mode: "tab", baseUrl: "" }))
        );
        await page.goto(`${server.url}/`);
        await page.getByRole("status").getByText(`Connected: ${server.url}`).waitFor();
        await useTab(page);
        await page.reload();
        await page.getByRole("status").getByText("Connected: this tab").waitFor();
        assert.equal(await page.getByLabel("In this tab").isChecked(), true);
        assert.deepEqual(errors, []);
        await page.context().close();
      },
    );

    await t.step("on a static host: the tab, without the server's models", async () => {
      const { page, errors } = await watchedPage(browser);
      await page.goto(`http://127.0.0.1:${host.addr.port}/`);
      await page.getByRole("status").getByText("Connected: this tab").waitFor();
      await page.getByText("In this tab · offline-ready").waitFor();
      assert.equal(await page.getByRole("button", { name: SPEC.id, exact: true }).count(), 0);
      await screenshot(page, "static-starts-in-tab");
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    await t.step("opened from disk: the tab", async () => {
      const { page, errors } = await watchedPage(browser);
      await page.goto(`file://${build.playgroundFile}`);
      await page.getByRole("status").getByText("Connected: this tab").waitFor();
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  } finally {
    await server.close();
    await build.remove();
  }
});

Deno.test("the server's page reopened offline from the service worker's cache: the server is unreachable, the tab one click away", async () => {
  const build = await temporaryWebBuild();
  const server = await startTestServer({}, { webRoot: build.dir });
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await page.goto(`${server.url}/`);
    await page.getByRole("status").getByText(`Connected: ${server.url}`).waitFor();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 10_000 });
    await server.close();
    await page.reload();
    await page.getByRole("alert").getByText(`the server at ${server.url} is unreachable`).waitFor();
    await screenshot(page, "served-offline");
    // Said in the alert and the connection's status line, not a third time in the main area.
    assert.equal(await page.getByText(`the server at ${server.url} is unreachable`).count(), 2);
    await page.getByRole("alert").getByRole("button", { name: "Use this tab instead" }).click();
    await page.getByRole("status").getByText("Connected: this tab").waitFor();
    assert.equal(await page.getByRole("alert").count(), 0);
    // The click is the person's choice, kept as one made in the form: a reload stays in the tab.
    await page.reload();
    await page.getByRole("status").getByText("Connected: this tab").waitFor();
    await screenshot(page, "served-offline-tab-kept");
    assert.equal(await page.getByRole("alert").count(), 0);
    // The server's requests fail to connect: Chromium logs those; nothing else may be an error.
    assert.deepEqual(errors.filter((e) => !/net::ERR_CONNECTION_REFUSED/.test(e)), []);
    await page.context().close();
  } finally {
    await server.close().catch(() => {});
    await build.remove();
  }
});
