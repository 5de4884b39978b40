/**
 * The playground connected to a real server, which serves it at `/` under its
 * page CSP: the page starts on that server and asks for its API key (focus in
 * the key's field, labelled as required), connects with it, sees a write
 * made by another client arrive live over the WebSocket feed, write through
 * the view (REST through the remote invoker) and see a 409 constraint message
 * at its field; the spec editor shows validation findings inline as you type.
 * No console errors (a CSP violation would be one).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { WebSocketRoute } from "playwright-core";
import { BLANK_SPEC } from "../../browser/playground/blank_spec.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

const KEY = "journey-key";
const auth = { authorization: `Bearer ${KEY}` };

/** The playground's "New model" spec, under a namespaced id. */
const SPEC = { ...BLANK_SPEC, id: "live/cart" };

Deno.test("playground against a server: switch, live writes of another client, REST writes, inline findings", async (t) => {
  const build = await temporaryWebBuild();
  const server = await startTestServer({ "svc.api.key": KEY }, { webRoot: build.dir });
  await using browser = await launchBrowser();
  try {
    assert.equal((await call(server.url, "POST", "/models", SPEC, auth)).status, 201);
    // The first visit's list is answered 401 (no key yet), the refused writes below 409 and 422, which
    // Chromium logs as failed loads.
    const { page, errors } = await watchedPage(browser, [401, 409, 422]);
    // The live feed's sockets pass through, so that a step can drop one as a network would.
    const sockets: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/subscribe/, (socket) => {
      socket.connectToServer();
      sockets.push(socket);
    });
    await page.goto(`${server.url}/`);

    await t.step("the page starts on its server, which asks for its API key", async () => {
      await page.getByRole("status").getByText("This server asks for its API key: enter it and Connect.")
        .waitFor();
      assert.equal(await page.getByLabel("On a server").isChecked(), true);
      assert.equal(await page.getByLabel("Server URL").inputValue(), server.url);
      // Known to ask for its key: the field says so, rather than "(optional)".
      const key = page.getByLabel("API key", { exact: true });
      assert.equal(await key.getAttribute("required"), "");
      assert.equal(await page.getByLabel("API key (optional)").count(), 0);
      await page.locator('input[name="apiKey"]:focus').waitFor();
      assert.equal(await page.getByRole("alert").count(), 0, "asking for the key is not a failure");
      await screenshot(page, "server-asks-for-key");
      await key.fill(KEY);
      await page.getByRole("button", { name: "Connect" }).click();
      await page.getByText(`Connected: ${server.url}`).waitFor();
      await page.getByRole("button", { name: SPEC.id, exact: true }).click();
      await page.locator("svc-view h2").waitFor();
    });

    await t.step("a write by another client arrives live", async () => {
      const write = await call(server.url, "POST", `/models/${encodeURIComponent(SPEC.id)}/mutations`, {
        "$.qty": 7,
        "$.price": 3,
      }, auth);
      assert.equal(write.status, 200);
      await page.locator("svc-view").getByText("€21.00").waitFor();
      assert.equal(await page.locator("svc-view").getByLabel("Quantity").inputValue(), "7");
      await page.getByTestId("state").getByText('"total": 21').waitFor();
    });

    await t.step(
      "the live feed drops: the status says so, and says connected again once it is back",
      async () => {
        const opened = sockets.length;
        await sockets.at(-1)!.close({ code: 1011, reason: "network trouble" });
        const status = page.locator(".status");
        await status.getByText(
          `Live updates of '${SPEC.id}' interrupted (1011 network trouble); reconnecting…`,
        )
          .waitFor();
        await status.getByText(`Connected: ${server.url}`).waitFor();
        assert.equal(sockets.length, opened + 1, "one new socket");
        const write = await call(server.url, "POST", `/models/${encodeURIComponent(SPEC.id)}/mutations`, {
          "$.qty": 8,
        }, auth);
        assert.equal(write.status, 200);
        await page.locator("svc-view").getByText("€24.00").waitFor();
      },
    );

    await t.step("writes through the view go to the server; a 409 shows at its field", async () => {
      const price = page.locator("svc-view").getByLabel("Price");
      await price.fill("10");
      await price.press("Enter");
      await page.locator("svc-view").getByText("€80.00").waitFor();
      const state = await call(
        server.url,
        "GET",
        `/models/${encodeURIComponent(SPEC.id)}/state`,
        undefined,
        auth,
      );
      assert.deepEqual(state.json, { qty: 8, price: 10, total: 80 });
      await price.fill("1000");
      await price.press("Enter");
      await page.locator("svc-view").getByText("The total may not exceed 1000").waitFor();
      await screenshot(page, "server-live-cart");
      await assertAccessible(page);
    });

    await t.step("another client deletes the model: it leaves the list and the page", async () => {
      const path = `/models/${encodeURIComponent(SPEC.id)}`;
      assert.equal((await call(server.url, "DELETE", path, undefined, auth)).status, 204);
      // The server ends the model's feed; the playground hears the deletion, as in a tab of its own.
      await page.getByRole("button", { name: SPEC.id, exact: true }).waitFor({ state: "detached" });
      await page.locator("svc-view").waitFor({ state: "detached" });
      await page.getByRole("status").getByText(`Model '${SPEC.id}' was deleted.`).waitFor();
      // The connection's own status line stays as it was.
      await page.getByRole("status").getByText(/^Connected: /).waitFor();
      await screenshot(page, "server-model-deleted");
    });

    await t.step("the spec editor shows findings inline as you type", async () => {
      await page.getByRole("button", { name: "Examples and new model" }).click();
      await page.getByRole("button", { name: "New model", exact: true }).click();
      const editor = page.locator(".cm-content");
      await editor.waitFor();
      await editor.fill(
        JSON.stringify({ ...SPEC, id: "live/broken", derivations: [{ path: "$.total", expr: "qty *" }] }),
      );
      await page.locator(".cm-lintRange-error").first().waitFor();
      await page.locator(".cm-lintRange-error").first().hover();
      await page.locator(".cm-tooltip-lint").getByText(/derivations\[0\]\.expr: JSONata compile error/)
        .waitFor();
      await screenshot(page, "server-spec-findings");
      await page.getByRole("button", { name: "Create the model" }).click();
      await page.getByRole("alert").getByText(/Spec validation failed/).waitFor();
    });
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
    await build.remove();
  }
});

Deno.test("a playground on another origin: CORS and the WebSocket origin list let it in; without them it is told", async () => {
  const build = await temporaryWebBuild();
  await using host = serveStatic({}, build.dir);
  const origin = `http://127.0.0.1:${host.addr.port}`;
  const server = await startTestServer({
    "svc.api.key": KEY,
    "svc.http.cors.allowed-origins": origin,
    "svc.websocket.allowed-origins": origin,
  });
  const closed = await startTestServer({ "svc.api.key": KEY });
  await using browser = await launchBrowser();
  try {
    assert.equal((await call(server.url, "POST", "/models", SPEC, auth)).status, 201);
    const { page, errors } = await watchedPage(browser);
    await page.goto(`${origin}/`);
    await page.getByText("Connected: this tab").waitFor();
    const connect = async (url: string) => {
      await page.getByLabel("On a server").check();
      await page.getByLabel("Server URL").fill(url);
      await page.getByLabel("API key (optional)").fill(KEY);
      await page.getByRole("button", { name: "Connect" }).click();
    };

    // A server that lists no other origin: the browser withholds its answers, and the page says so.
    await connect(closed.url);
    await page.getByRole("alert").getByText(`must list ${origin} in svc.http.cors.allowed-origins`, {
      exact: false,
    })
      .first().waitFor();

    await connect(server.url);
    await page.getByText(`Connected: ${server.url}`).waitFor();
    await page.getByRole("button", { name: SPEC.id, exact: true }).click();
    const view = page.locator("svc-view");
    await view.getByLabel("Quantity").waitFor();
    await call(server.url, "POST", `/models/${encodeURIComponent(SPEC.id)}/mutations`, {
      "$.qty": 2,
      "$.price": 4,
    }, auth);
    await view.getByText("€8.00").waitFor();
    await view.getByLabel("Price").fill("5");
    await view.getByLabel("Price").press("Enter");
    await view.getByText("€10.00").waitFor();
    await screenshot(page, "server-cross-origin");
    // Chromium reports the closed server's withheld answer on the console; nothing else may be an error.
    assert.deepEqual(errors.filter((e) => !/CORS policy|net::ERR_FAILED/.test(e)), []);
  } finally {
    await server.close();
    await closed.close();
    await build.remove();
  }
});
