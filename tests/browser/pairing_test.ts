/// <reference lib="dom" />
/**
 * Browser pairing end to end (README "Browser pairing"): a real MCP SDK client
 * runs `svc mcp --url <server> --browser` over stdio (and, in a second run,
 * connects to the server's own `/mcp`) and calls `pair_browser`;
 * headless Chromium opens the link it returns and a person's clicks approve
 * (fields and buttons found by their labels); the tool answers `paired`; the
 * agent creates and mutates a model and the tab shows it; the person edits a
 * field in the tab and the agent hears `resources/updated` and reads the new
 * value. Also: a session ended outside the tab (its feed stops for good, and
 * so does one the tab opens afterwards), deny (then the next link opened in
 * the same tab),
 * a wrong (then typed) code on a bare link, an expired
 * link, a second agent whose tab cannot see the first one's session, and a
 * paired tab closed: the agent's next link brings the session back in a new tab.
 * Screenshots under .cache/screenshots/pairing-*.png.
 *
 * @module
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Browser, Page, Route } from "playwright-core";
import { type Connected, connectHttp, connectStdio, textOf } from "../mcp/helpers.ts";
import { PairingHost } from "../../server/pairing/host.ts";
import { startTestServer, type TestServer } from "../server/helpers.ts";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";

/** What the agent builds: quantity and price, a derived total, a view with labelled fields. */
const CART = {
  id: "cart",
  schema: {
    type: "object",
    properties: { qty: { type: "integer", minimum: 0 }, price: { type: "number" }, note: { type: "string" } },
  },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Shopping cart",
      components: [
        { id: "qty", type: "numericField", label: "Quantity", bind: "$.qty" },
        { id: "price", type: "currencyField", label: "Price", bind: "$.price", currency: "EUR" },
        { id: "note", type: "textField", label: "Note", bind: "$.note" },
        {
          id: "total",
          type: "statTile",
          label: "Total",
          bind: "$.total",
          format: "currency",
          currency: "EUR",
        },
      ],
    }],
  },
};

async function tool(agent: Connected, name: string, args: Record<string, unknown> = {}) {
  const result = await agent.client.callTool({ name, arguments: args }) as CallToolResult;
  // deno-lint-ignore no-explicit-any
  return { isError: result.isError === true, body: textOf(result) as any };
}

const browserAgent = (server: TestServer) => connectStdio(["--url", server.url, "--browser"]);

/** Everything one scenario needs: a web build, a server serving it, Chromium. */
async function setUp(keys: Record<string, string> = {}, pairing?: PairingHost) {
  const build = await temporaryWebBuild();
  const server = await startTestServer(keys, { webRoot: build.dir, pairing });
  const browser = await launchBrowser();
  return {
    server,
    browser,
    async [Symbol.asyncDispose]() {
      await browser.close();
      await server.close();
      await build.remove();
    },
  };
}

/**
 * Opens a pairing link in a fresh context and checks the code is shown and gone from the address; `prepare`
 * readies the page before it loads (a clock the test controls).
 */
async function openLink(
  browser: Browser,
  link: string,
  expected: number[] = [],
  prepare?: (page: Page) => Promise<void>,
) {
  const watched = await watchedPage(browser, expected);
  await prepare?.(watched.page);
  await watched.page.goto(link);
  await watched.page.getByRole("heading", { name: "Pair with an agent" }).waitFor();
  assert.equal(await watched.page.evaluate(() => location.hash), "", "the code is removed from the address");
  return watched;
}

/** Asks `agent` for a pairing link, opens it in a fresh context, approves it, and checks the agent is paired. */
async function pairedTab(
  browser: Browser,
  agent: Connected,
  expected: number[] = [],
  prepare?: (page: Page) => Promise<void>,
) {
  const pending = await tool(agent, "pair_browser");
  const watched = await openLink(browser, pending.body.verificationUriComplete, expected, prepare);
  await watched.page.getByRole("button", { name: "Approve" }).click();
  await watched.page.locator(".paired-badge").waitFor();
  assert.equal((await tool(agent, "pair_browser")).body.status, "paired");
  return watched;
}

/**
 * Checks that a paired tab whose session moved or ended says so (`badge`, `heading`) and no longer shows the
 * session's models, whose writes would all be refused; its one way on is to leave the session.
 */
async function sessionLost(page: Page, badge: string, heading: string) {
  await page.locator(".paired-badge").getByText(badge, { exact: true }).waitFor();
  await page.getByRole("heading", { name: heading }).waitFor();
  assert.equal(await page.locator("svc-view").count(), 0, "the model's view is gone");
  assert.equal(await page.getByRole("navigation", { name: "Models" }).count(), 0, "so is the models list");
  assert.equal(await page.getByRole("button", { name: "End the session" }).count(), 0);
  await page.getByRole("button", { name: "Leave the session" }).waitFor();
}

/**
 * Checks that the connection form says the tab is in use, as it is, after a session is ended or left: "In this
 * tab" chosen, and no "Use this tab" button offering what is already so.
 */
async function usingThisTab(page: Page) {
  await page.getByText("Connected: this tab").waitFor();
  assert.equal(await page.getByLabel("In this tab").isChecked(), true);
  assert.equal(await page.getByRole("button", { name: "Use this tab" }).count(), 0);
}

/** Ends the tab's session with its own token, as the agent's `DELETE /pair/session` or the operator's would. */
async function endSessionOutside(page: Page) {
  const ended = await page.evaluate(async () => {
    const token = sessionStorage.getItem("svc-playground:api-key");
    return (await fetch("/pair/session", { method: "DELETE", headers: { Authorization: `Bearer ${token}` } }))
      .status;
  });
  assert.equal(ended, 204);
}

/** The text of the element that has the keyboard focus (`BODY` when nothing has it). */
function focusedText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const focused = document.activeElement;
    return !focused || focused === document.body ? "BODY" : focused.textContent?.trim() ?? "";
  });
}

/** The two agents SPEC.md offers `pair_browser` to: the CLI with --browser, and the server's own `/mcp`. */
const AGENTS: { agentKind: string; shots: string; connect: (server: TestServer) => Promise<Connected> }[] = [
  { agentKind: "svc mcp --browser", shots: "pairing", connect: browserAgent },
  { agentKind: "the server's /mcp", shots: "pairing-hosted", connect: (server) => connectHttp(server.url) },
];

for (const { agentKind, shots, connect } of AGENTS) {
  Deno.test(`pairing end to end (${agentKind}): link, approve, live model both ways`, async () => {
    await using env = await setUp();
    const { server, browser } = env;
    const agent = await connect(server);
    try {
      const pending = await tool(agent, "pair_browser");
      assert.equal(pending.body.status, "pending");
      const { page, errors } = await openLink(browser, pending.body.verificationUriComplete);
      assert.equal(await page.getByLabel("Pairing code").textContent(), pending.body.userCode);
      await screenshot(page, `${shots}-approve-page`);
      await assertAccessible(page, "svc-pairing");

      // The agent waits while the person checks the code and approves.
      const waiting = tool(agent, "pair_browser");
      // With the keyboard: the button pressed goes with the approve page, so focus moves to what replaced it.
      await page.getByRole("button", { name: "Approve" }).press("Enter");
      const paired = await waiting;
      assert.equal(paired.body.status, "paired");
      await page.locator(".paired-badge").getByText("Paired").waitFor();
      await page.getByText("Paired with an agent").waitFor();
      assert.equal(new URL(page.url()).pathname, "/", "the tab leaves the approve page");
      assert.equal(await focusedText(page), "Paired with an agent");

      // The agent builds; the tab follows.
      assert.equal((await tool(agent, "create_model", { spec: CART })).isError, false);
      await page.getByRole("button", { name: "cart", exact: true }).waitFor();
      const view = page.locator("svc-view");
      await view.getByLabel("Quantity").waitFor();
      await tool(agent, "mutate", { id: "cart", mutations: { "$.qty": 3, "$.price": 2.5 } });
      await view.getByText("€7.50").waitFor();
      assert.equal(await view.getByLabel("Quantity").inputValue(), "3");

      // The person edits; the agent hears of it and reads the new value.
      await agent.client.subscribeResource({ uri: "svc://state/cart" });
      const quantity = view.getByLabel("Quantity");
      await quantity.fill("5");
      await quantity.press("Enter");
      await view.getByText("€12.50").waitFor();
      const updated = await agent.waitFor((n) => n.method === "notifications/resources/updated", 10_000);
      assert.equal((updated.params as { uri: string }).uri, "svc://state/cart");
      const state = await tool(agent, "get_state", { id: "cart" });
      assert.deepEqual(state.body, { qty: 5, price: 2.5, total: 12.5 });
      await view.getByLabel("Note").fill("gift wrap");
      await view.getByLabel("Note").press("Tab");
      await page.getByTestId("state").getByText('"note": "gift wrap"').waitFor();
      assert.equal((await tool(agent, "get_field", { id: "cart", path: "$.note" })).body, "gift wrap");
      await screenshot(page, `${shots}-live-session`);
      await assertAccessible(page);

      // The person ends the session: the tab goes back to itself and the agent loses access.
      await page.getByRole("button", { name: "End the session" }).press("Enter");
      await page.getByText("In this tab · offline-ready").waitFor();
      assert.equal(await page.locator(".paired-badge").count(), 0);
      assert.equal(await focusedText(page), "Where models run");
      await usingThisTab(page);
      const ended = await tool(agent, "get_state", { id: "cart" });
      assert.equal(ended.isError, true);
      assert.match(ended.body.error, /ended/);
      assert.deepEqual(errors, []);
    } finally {
      await agent.close();
    }
  });
}

Deno.test("a session ended outside the tab: its live feed stops for good and the tab says why", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    // The tab's list poll is refused once the session is gone.
    const { page, errors } = await pairedTab(browser, agent, [401]);
    assert.equal((await tool(agent, "create_model", { spec: CART })).isError, false);
    assert.equal((await tool(agent, "create_model", { spec: { ...CART, id: "notes" } })).isError, false);
    await page.getByRole("button", { name: "notes", exact: true }).waitFor();
    // The tab's feed is live: the agent's write shows.
    await tool(agent, "mutate", { id: "cart", mutations: { "$.qty": 3, "$.price": 2.5 } });
    await page.locator("svc-view").getByText("€7.50").waitFor();

    // Ended with the session's token (as the agent's DELETE /pair/session or the operator's would).
    await endSessionOutside(page);
    const sockets: string[] = [];
    page.on("websocket", (socket) => sockets.push(socket.url()));
    // The feed's close ("Live updates of 'cart' stopped") is shown only until the tab asks the session.
    await page.getByRole("alert").getByText(/The pairing session has ended/).waitFor();
    await sessionLost(page, "Session ended", "Pairing session ended");
    // Past the first reconnect delays: no new socket was tried.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal(sockets.length, 0, sockets.join());
    await screenshot(page, "pairing-ended-elsewhere");

    // A reload says the same (the token is refused, and no API key would do), rather than ask for a key.
    await page.reload();
    await page.getByRole("alert").getByText(/The pairing session has ended/).waitFor();
    await sessionLost(page, "Session ended", "Pairing session ended");
    assert.equal(await page.getByLabel("API key").count(), 0);
    // Leaving it, the tab goes back to its own engine.
    await page.getByRole("button", { name: "Leave the session" }).click();
    await usingThisTab(page);
    await screenshot(page, "pairing-left-in-this-tab");
    assert.equal(await page.locator(".paired-badge").count(), 0);
    assert.equal(await page.getByRole("alert").count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await agent.close();
  }
});

Deno.test("a session ended outside the tab: the tab says so as its feed closes, not at its next poll", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    // The page's clock is the test's: once paused, the tab's session poll no longer runs.
    const { page, errors } = await pairedTab(browser, agent, [401], (page) => page.clock.install());
    assert.equal((await tool(agent, "create_model", { spec: CART })).isError, false);
    await page.locator("svc-view").getByLabel("Quantity").waitFor();
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 10));
    await endSessionOutside(page);
    // Only the feed's close (4401) can have told the tab: before, it showed "Live updates … stopped" until
    // the poll found the token refused.
    await page.getByRole("alert").getByText(/The pairing session has ended/).waitFor();
    await sessionLost(page, "Session ended", "Pairing session ended");
    await screenshot(page, "pairing-ended-feed-closed");
    assert.deepEqual(errors, []);
  } finally {
    await agent.close();
  }
});

Deno.test("a second tab opened meanwhile: the paired tab stays paired on a reload", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    const { page, errors } = await pairedTab(browser, agent);
    assert.equal((await tool(agent, "create_model", { spec: CART })).isError, false);
    await page.getByRole("button", { name: "cart", exact: true }).waitFor();
    // The person opens the playground in another tab of the same browser: it is not paired (no token), and
    // saves its own connection.
    const second = await watchedPage(page.context());
    await second.page.goto(`${server.url}/`);
    await second.page.getByText(`Connected: ${server.url}`, { exact: true }).waitFor();
    assert.equal(await second.page.locator(".paired-badge").count(), 0);
    // Before, the paired tab's reload read the other tab's choice and left the session without a word.
    await page.reload();
    await page.getByText(`Connected: ${server.url} (paired session)`).waitFor();
    await page.locator(".paired-badge").waitFor();
    await page.locator("svc-view").getByLabel("Quantity").waitFor();
    await screenshot(page, "pairing-reload-after-second-tab");
    assert.deepEqual([...errors, ...second.errors], []);
  } finally {
    await agent.close();
  }
});

Deno.test("ending the session while a list poll is under way: no request goes out with the ended token", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    // No 401 is expected: a request answered 401 would be one sent with the ended token.
    const { page, errors } = await pairedTab(browser, agent);
    // The next list poll is held (as a loaded server would) until the person has clicked End.
    const list = /\/models(\?.*)?$/;
    const held = Promise.withResolvers<Route>();
    const release = Promise.withResolvers<void>();
    await page.route(list, async (route) => {
      if (route.request().method() !== "GET") return await route.continue();
      held.resolve(route);
      await release.promise;
      await route.continue().catch(() => {}); // the page may have aborted it meanwhile
    });
    const route = await held.promise;
    await page.getByRole("button", { name: "End the session" }).click();
    await page.getByText("In this tab · offline-ready").waitFor();
    release.resolve();
    const answer = await route.request().response();
    await page.unroute(list);
    await page.context().close();
    // Aborted before the DELETE went out, rather than sent after it and refused.
    assert.equal(answer, null, `the held poll was answered ${answer?.status()}`);
    const ended = await tool(agent, "list_models");
    assert.equal(ended.isError, true);
    assert.deepEqual(errors, []);
  } finally {
    await agent.close();
  }
});

Deno.test("pairing denied in the tab: the agent is told, and its next link pairs in the same tab", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    const pending = await tool(agent, "pair_browser");
    const { page, errors } = await openLink(browser, pending.body.verificationUriComplete);
    const waiting = tool(agent, "pair_browser");
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByRole("heading", { name: "Pairing denied" }).waitFor();
    await screenshot(page, "pairing-denied");
    const denied = await waiting;
    assert.equal(denied.isError, true);
    assert.match(denied.body.error, /denied the pairing/);
    assert.match((await tool(agent, "list_models")).body.error, /call pair_browser first/);

    // The agent's next link, opened in the same tab: only the fragment differs, so the browser does not reload
    // the page, which shows the new code (before, it kept the denial, and the code stayed in the address bar).
    const next = await tool(agent, "pair_browser");
    assert.notEqual(next.body.userCode, pending.body.userCode);
    await page.goto(next.body.verificationUriComplete);
    await page.getByLabel("Pairing code").getByText(next.body.userCode).waitFor();
    assert.equal(await page.evaluate(() => location.hash), "", "the new code is removed from the address");
    await screenshot(page, "pairing-next-link-same-tab");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.locator(".paired-badge").waitFor();
    assert.equal((await tool(agent, "pair_browser")).body.status, "paired");
    assert.deepEqual(errors, []);
  } finally {
    await agent.close();
  }
});

Deno.test("no history entry keeps the code; typed codes: a wrong one is refused, the right one pairs", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    const pending = await tool(agent, "pair_browser");
    const { page, errors } = await openLink(browser, pending.body.verificationUriComplete, [404]);
    await page.getByLabel("Pairing code").waitFor();
    // The history entry is the link without its code: reloading it (as coming back to it does) gives a bare
    // approve page. A reload, not goBack/goForward from about:blank: that swaps Chromium's renderer and under
    // load the page object sometimes never saw the new document (CI timed out waiting for the heading twice).
    const entries = await page.evaluate(() => history.length);
    await page.reload();
    assert.equal(page.url(), pending.body.verificationUri);
    assert.equal(
      await page.evaluate(() => history.length),
      entries,
      "the code's entry was replaced, not added",
    );
    await page.getByRole("heading", { name: "Pair with an agent" }).waitFor();
    const field = page.getByLabel("Pairing code");
    const wrong = pending.body.userCode === "BBBB-BBBB" ? "CCCC-CCCC" : "BBBB-BBBB";
    await field.fill(wrong);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("alert").getByText(/No pairing has this code/).waitFor();
    await screenshot(page, "pairing-wrong-code");
    await field.fill(pending.body.userCode.toLowerCase());
    await page.getByRole("button", { name: "Approve" }).click();
    await page.locator(".paired-badge").waitFor();
    assert.equal((await tool(agent, "pair_browser")).body.status, "paired");
    assert.deepEqual(errors, []);
  } finally {
    await agent.close();
  }
});

Deno.test("the approve page's sidebar: Examples and new model leaves it for the start page", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const { page, errors } = await watchedPage(browser);
  await page.goto(`${server.url}/pair`);
  await page.getByRole("heading", { name: "Pair with an agent" }).waitFor();
  // Before, the approve page stayed and the button did nothing.
  await page.getByRole("button", { name: "Examples and new model" }).click();
  await page.getByRole("heading", { name: "Start from an example" }).waitFor();
  assert.equal(await page.getByRole("heading", { name: "Pair with an agent" }).count(), 0);
  assert.equal(new URL(page.url()).pathname, "/", "the address leaves the approve page too");
  assert.deepEqual(errors, []);
});

Deno.test("a server with an API key: the page asks for the key before it approves", async () => {
  await using env = await setUp({ "svc.api.key": "pairing-page-key" });
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    const pending = await tool(agent, "pair_browser");
    const { page, errors } = await openLink(browser, pending.body.verificationUriComplete, [401]);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("alert").getByText("This server asks for its API key to approve pairings.")
      .waitFor();
    await page.getByLabel("API key").fill("pairing-page-key");
    await screenshot(page, "pairing-needs-key");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.locator(".paired-badge").waitFor();
    assert.equal((await tool(agent, "pair_browser")).body.status, "paired");
    await tool(agent, "create_model", { spec: CART });
    await page.getByRole("button", { name: "cart", exact: true }).waitFor();
    assert.deepEqual(errors, []);
  } finally {
    await agent.close();
  }
});

Deno.test("an expired link: the page says so, the agent gets a new link", async () => {
  await using env = await setUp({ "svc.pairing.expires-in-seconds": "1" });
  const { server, browser } = env;
  const agent = await browserAgent(server);
  try {
    const pending = await tool(agent, "pair_browser");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { page, errors } = await openLink(browser, pending.body.verificationUriComplete, [410]);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByRole("alert").getByText(
      /expired before anyone approved it\. Ask the agent for a new link/,
    )
      .waitFor();
    await screenshot(page, "pairing-expired");
    const next = await tool(agent, "pair_browser");
    assert.equal(next.body.status, "pending");
    assert.notEqual(next.body.userCode, pending.body.userCode);
    assert.deepEqual(errors, []);
  } finally {
    await agent.close();
  }
});

Deno.test("a second agent's tab sees only its own session", async () => {
  await using env = await setUp();
  const { server, browser } = env;
  const first = await browserAgent(server);
  const second = await browserAgent(server);
  try {
    const tabOne = await pairedTab(browser, first);
    // Checked, so a failed creation is reported as itself rather than as a tab that never lists the model.
    const createdOne = await tool(first, "create_model", { spec: CART });
    assert.equal(createdOne.isError, false, JSON.stringify(createdOne.body));
    await tabOne.page.getByRole("button", { name: "cart", exact: true }).waitFor();

    const tabTwo = await pairedTab(browser, second, [503]);
    await tabTwo.page.getByText("No models yet").waitFor();
    const createdTwo = await tool(second, "create_model", { spec: { ...CART, id: "notes" } });
    assert.equal(createdTwo.isError, false, JSON.stringify(createdTwo.body));
    await tabTwo.page.getByRole("button", { name: "notes", exact: true }).waitFor();
    // Two polls later the first tab still lists only its own model.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    assert.equal(await tabOne.page.getByRole("button", { name: "notes", exact: true }).count(), 0);
    assert.equal(await tabTwo.page.getByRole("button", { name: "cart", exact: true }).count(), 0);
    assert.deepEqual((await tool(second, "list_models")).body, ["notes"]);
    assert.equal((await tool(second, "get_state", { id: "cart" })).isError, true);
    await screenshot(tabTwo.page, "pairing-second-session");

    // The server stops answering the tab's list for a while: the status line says so, then that it is back.
    const list = /\/models(\?.*)?$/;
    await tabTwo.page.route(
      list,
      (route) =>
        route.request().method() === "GET"
          ? route.fulfill({
            status: 503,
            contentType: "application/json",
            body: '{"error":"Service unavailable"}',
          })
          : route.continue(),
    );
    const status = tabTwo.page.locator(".status");
    await status.getByText(/^Cannot list the session's models \(.*Service unavailable.*\); retrying…$/)
      .waitFor();
    await screenshot(tabTwo.page, "pairing-list-trouble");
    await tabTwo.page.unroute(list);
    await status.getByText(`Connected: ${server.url} (paired session)`).waitFor();
    assert.deepEqual([...tabOne.errors, ...tabTwo.errors], []);
  } finally {
    await first.close();
    await second.close();
  }
});

for (const { agentKind, shots, connect } of AGENTS) {
  Deno.test(`a paired tab closed (${agentKind}): the agent's next link brings the session back in a new tab`, async () => {
    // The server's clock moves only when the test says: "the tab has been gone 90 s" without waiting.
    let clock = Date.now();
    await using env = await setUp({}, new PairingHost({ now: () => clock }));
    const { server, browser } = env;
    const agent = await connect(server);
    try {
      const first = await pairedTab(browser, agent);
      assert.equal((await tool(agent, "create_model", { spec: CART })).isError, false);
      await first.page.locator("svc-view").getByLabel("Quantity").waitFor();
      // The tab is open: no link, whatever the agent asks.
      const held = (await tool(agent, "pair_browser")).body;
      assert.equal(held.status, "already_paired");
      const oldToken = await first.page.evaluate(() => sessionStorage.getItem("svc-playground:api-key"));
      assert.deepEqual(first.errors, []);
      // The person closes the tab; its token goes with it (session storage).
      await first.page.context().close();
      clock += 91_000;

      const link = await tool(agent, "pair_browser");
      assert.equal(link.body.status, "pending");
      assert.equal(link.body.rejoin, true);
      // Two tabs open the link; the first to approve gets the session, the other is refused.
      const tab = await openLink(browser, link.body.verificationUriComplete);
      const other = await openLink(browser, link.body.verificationUriComplete, [410]);
      assert.equal(await tab.page.getByLabel("Pairing code").textContent(), link.body.userCode);
      await screenshot(tab.page, `${shots}-rejoin-approve-page`);
      await tab.page.getByRole("button", { name: "Approve" }).click();
      await tab.page.locator(".paired-badge").getByText("Paired").waitFor();
      assert.deepEqual((await tool(agent, "pair_browser")).body, {
        status: "paired",
        namespaceId: held.namespaceId,
        rejoin: true,
      });
      await other.page.getByRole("button", { name: "Approve" }).click();
      await other.page.getByRole("alert").getByText(
        /already completed in the tab that approved it.*once it has been closed 90 s\. Ask the agent for a new link/,
      )
        .waitFor();
      await screenshot(other.page, `${shots}-rejoin-second-approval`);
      assert.equal(await other.page.locator(".paired-badge").count(), 0);
      // A pairing that is over leaves nothing to approve or deny: its buttons go.
      assert.equal(await other.page.getByRole("button", { name: /Approve|Deny/ }).count(), 0);

      // The model is back in the new tab, and the agent's writes arrive.
      const view = tab.page.locator("svc-view");
      await view.getByLabel("Quantity").waitFor();
      await tool(agent, "mutate", { id: "cart", mutations: { "$.qty": 3, "$.price": 2.5 } });
      await view.getByText("€7.50").waitFor();
      assert.equal(await view.getByLabel("Quantity").inputValue(), "3");
      await screenshot(tab.page, `${shots}-rejoined`);

      // The closed tab's token is refused; the new tab holds the session, so no other link is handed out.
      const refused = await fetch(`${server.url}/models`, {
        headers: { authorization: `Bearer ${oldToken}` },
      });
      await refused.body?.cancel();
      assert.equal(refused.status, 401);
      assert.equal((await tool(agent, "pair_browser")).body.status, "already_paired");
      assert.deepEqual([...tab.errors, ...other.errors], []);
    } finally {
      await agent.close();
    }
  });
}

Deno.test("a tab asleep past the rejoin, woken: it says the session moved to another tab", async () => {
  let clock = Date.now();
  await using env = await setUp({}, new PairingHost({ now: () => clock }));
  const { server, browser } = env;
  const agent = await connectHttp(server.url);
  try {
    const asleep = await pairedTab(browser, agent, [401]);
    assert.equal((await tool(agent, "create_model", { spec: CART })).isError, false);
    await asleep.page.locator("svc-view").getByLabel("Quantity").waitFor();
    // The browser pauses a long-hidden tab's timers: its requests stop, held here until it wakes.
    const held: Route[] = [];
    await asleep.page.route(/\/models/, (route) => void held.push(route));
    clock += 91_000;

    const link = await tool(agent, "pair_browser");
    assert.equal(link.body.rejoin, true);
    const tab = await openLink(browser, link.body.verificationUriComplete);
    await tab.page.getByRole("button", { name: "Approve" }).click();
    await tab.page.locator(".paired-badge").getByText("Paired").waitFor();

    await asleep.page.unroute(/\/models/);
    // The first answer (401) lets go of the session, aborting the requests still held: those are done.
    for (const route of held) await route.continue().catch(() => {});
    await asleep.page.getByRole("alert").getByText(
      "This session moved to another tab: a newer link from the agent was approved there. Use that tab; " +
        "this one no longer reaches the session's models.",
    ).waitFor();
    await sessionLost(asleep.page, "Session moved", "Session moved to another tab");
    await screenshot(asleep.page, "pairing-moved-to-another-tab");
    assert.deepEqual(tab.errors, []);
  } finally {
    await agent.close();
  }
});
