/**
 * The playground's generation panels against real servers (README "In the
 * browser"). With `svc.llm.mock` (scripted by `mock:` words, README
 * "Generation"): describe a model, preview and edit the prompt, and see the
 * progress lines (tool call, failed validation, retry, tests) arrive before
 * the result; create it and use its view; evolve it with AI and see the new
 * tile; an AI evolution overtaken by another client's evolution is a 409 shown
 * as such; a generation cancelled midway (by keyboard) stops the provider call
 * on the server; a generation that never validates shows its errors and the
 * raw response. Without a provider, and in the tab (chosen on the server's
 * page, which starts on the server), the panels say generation is not
 * available and call nothing. axe on the panels, no console errors.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { BLANK_SPEC } from "../../browser/playground/blank_spec.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild, useTab, watchedPage } from "./journey.ts";

const ID = "calc/doubler";
const modelPath = `/models/${encodeURIComponent(ID)}`;

/** Switches the playground from the tab to the server at `url` (open mode). */
async function connect(page: Page, url: string): Promise<void> {
  await page.getByLabel("On a server").check();
  await page.getByRole("button", { name: "Connect" }).click();
  await page.getByText(`Connected: ${url}`).waitFor();
}

/** The progress log of a panel. */
const progress = (page: Page, name: string) => page.getByRole("log", { name });

Deno.test("playground generation: describe, stream, create and open; evolve with AI; 409; cancel; invalid", async (t) => {
  const build = await temporaryWebBuild();
  const server = await startTestServer(
    { "svc.llm.mock": "true", "svc.llm.log.capture-content": "true" },
    { webRoot: build.dir },
  );
  await using browser = await launchBrowser();
  try {
    const { page, errors } = await watchedPage(browser);
    await page.goto(`${server.url}/`);
    await page.getByText(`Connected: ${server.url}`).waitFor();
    await useTab(page);

    await t.step("in the tab the panel says generation needs a server", async () => {
      await page.getByTestId("generation-unavailable").getByText(/needs a server with an LLM provider/)
        .waitFor();
      assert.equal(await page.getByRole("button", { name: "Generate" }).count(), 0);
      await screenshot(page, "generation-in-tab");
    });

    await connect(page, server.url);
    const panel = page.locator("svc-generate-panel");
    const log = progress(page, "Generation progress");

    await t.step(
      "describe, preview and edit the prompt, then watch progress arrive before the result",
      async () => {
        await panel.getByLabel("Model id").fill(ID);
        await panel.getByLabel("Describe the domain").fill(
          "A number and its double. mock:delay=700 mock:tool mock:repair",
        );
        assert.equal(await panel.getByLabel("Include a view").isChecked(), true);
        await panel.getByRole("button", { name: "Preview the prompt" }).click();
        const prompt = panel.getByLabel(/^Prompt/);
        await prompt.waitFor();
        assert.match(await prompt.inputValue(), /^Model ID: calc\/doubler$/m);
        await prompt.fill(`${await prompt.inputValue()}\nKeep it small.`);
        await panel.getByRole("button", { name: "Generate" }).click();
        await log.getByText("Attempt 1: asking the LLM (mock)…").waitFor();
        assert.equal(await panel.getByTestId("generated").count(), 0, "progress shows before the result");
        await screenshot(page, "generation-progress");
        await panel.getByTestId("generated").waitFor({ timeout: 15_000 });
        const lines = await log.locator("li").allTextContents();
        assert.deepEqual(lines, [
          "Attempt 1: asking the LLM (mock)…",
          'The LLM calls eval_jsonata: value * 2 {"value":21}',
          'eval_jsonata answered: {"result":42,"type":"number"}',
          "Attempt 1: validating the answer",
          lines[4],
          "Retrying: attempt 2 of at most 7",
          "Attempt 2: asking the LLM (mock)…",
          "Attempt 2: validating the answer",
          "Attempt 2: running the embedded tests",
        ]);
        assert.match(lines[4], /^Attempt 1: not valid \(derivations\[0\]\.expr: .*JSONata/);
        await panel.getByText("1 of 1 checkable tests pass").waitFor();
        // The edited prompt is what the LLM got.
        const [latest] = (await call(server.url, "GET", "/llm/interactions")).json;
        assert.match(latest.prompt, /Keep it small\./);
        await screenshot(page, "generation-result");
        await assertAccessible(page, "svc-generate-panel");
      },
    );

    await t.step("create and open the generated model: its view works", async () => {
      await panel.getByRole("button", { name: "Create and open the model" }).click();
      const view = page.locator("svc-view");
      await view.getByLabel("Value").waitFor();
      await view.getByLabel("Value").fill("21");
      await view.getByLabel("Value").press("Enter");
      await view.getByText("42").waitFor();
      assert.equal((await call(server.url, "GET", `${modelPath}/state`)).json.doubled, 42);
      await screenshot(page, "generation-model-view");
    });

    const evolve = page.locator("svc-ai-evolve");
    const evolveLog = progress(page, "Evolution progress");

    await t.step("evolve it with AI: progress, applied, the new tile in the view", async () => {
      await page.getByRole("tab", { name: "Evolve" }).click();
      await evolve.getByLabel("Describe the change").fill(
        "Also show the value tripled. mock:delay=500 mock:derive=tripled=value*3",
      );
      await evolve.getByRole("button", { name: "Evolve with AI" }).click();
      await evolveLog.getByText("Attempt 1: asking the LLM (mock)…").waitFor();
      await evolve.getByTestId("ai-evolved").waitFor({ timeout: 10_000 });
      await evolve.getByTestId("ai-evolved").getByText("Now at version 1.0.0.").waitFor();
      assert.match(await evolve.getByTestId("ai-evolved").textContent() ?? "", /tripled/);
      await screenshot(page, "generation-ai-evolved");
      await assertAccessible(page, "svc-ai-evolve");
      await page.getByRole("tab", { name: "View" }).click();
      await page.locator("svc-view").getByText("Tripled").waitFor();
      await page.locator("svc-view").getByText("63").waitFor();
    });

    await t.step(
      "an AI evolution overtaken by another client's evolution is a 409, nothing applied",
      async () => {
        await page.getByRole("tab", { name: "Evolve" }).click();
        await evolve.getByLabel("Describe the change").fill(
          "Also show half the value. mock:delay=1500 mock:derive=half=value/2",
        );
        await evolve.getByRole("button", { name: "Evolve with AI" }).click();
        await evolveLog.getByText("Attempt 1: asking the LLM (mock)…").waitFor();
        const meanwhile = await call(server.url, "POST", `${modelPath}/spec/evolve`, { newVersion: "1.1.0" });
        assert.equal(meanwhile.status, 200, meanwhile.text);
        const refused = evolve.getByTestId("ai-evolve-refused");
        await refused.getByText(/The model changed while the LLM drafted its evolution/).waitFor({
          timeout: 10_000,
        });
        await refused.getByText(/\(HTTP 409\)/).waitFor();
        const spec = (await call(server.url, "GET", `${modelPath}/spec`)).json;
        assert.ok(!spec.derivations.some((d: { path: string }) => d.path === "$.half"));
        await screenshot(page, "generation-ai-409");
      },
    );

    await t.step("cancel a generation midway, by keyboard: the server stops the provider call", async () => {
      await page.getByRole("button", { name: "Examples and new model" }).click();
      await panel.getByLabel("Model id").fill("calc/slow");
      await panel.getByLabel("Describe the domain").fill("Takes its time. mock:delay=30000");
      await panel.getByLabel("Describe the domain").focus();
      await panel.getByRole("button", { name: "Generate" }).focus();
      await page.keyboard.press("Enter");
      await log.getByText("Attempt 1: asking the LLM (mock)…").waitFor();
      const cancel = panel.getByRole("button", { name: "Cancel" });
      await cancel.waitFor();
      assert.equal(await cancel.evaluate((b) => b.matches(":focus")), true, "focus moves to Cancel");
      await page.keyboard.press("Enter");
      await log.getByText("Cancelled: the server stops the LLM call.").waitFor();
      assert.equal(await panel.getByRole("button", { name: "Generate" }).isEnabled(), true);
      assert.equal(await panel.getByTestId("generated").count(), 0);
      let cut: { errorMessage: string | null } | undefined;
      for (let i = 0; i < 50 && !cut; i++) {
        const [latest] = (await call(server.url, "GET", "/llm/interactions")).json;
        if (/calc\/slow/.test(latest.user) && latest.errorMessage) cut = latest;
        else await new Promise((r) => setTimeout(r, 100));
      }
      assert.match(cut?.errorMessage ?? "not cancelled", /went away/);
      await screenshot(page, "generation-cancelled");
    });

    await t.step("a generation that never validates shows its errors and the raw response", async () => {
      await panel.getByLabel("Model id").fill("calc/broken");
      await panel.getByLabel("Describe the domain").fill("Never right. mock:invalid");
      await panel.getByRole("button", { name: "Generate" }).click();
      const invalid = panel.getByTestId("generation-invalid");
      await invalid.waitFor({ timeout: 15_000 });
      await invalid.getByText("No valid spec within the attempts.").waitFor();
      await invalid.getByText("derivations[0].expr").waitFor();
      assert.match(await invalid.locator("pre").textContent() ?? "", /"expr":"value \*"/);
      await log.getByText("Retrying: attempt 7 of at most 7").waitFor();
      await screenshot(page, "generation-invalid");
      await assertAccessible(page, "svc-generate-panel");
      assert.equal((await call(server.url, "GET", "/models/calc%2Fbroken")).status, 404);
    });
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
    await build.remove();
  }
});

Deno.test("playground generation without a provider: the panels say it is not configured and call nothing", async () => {
  const build = await temporaryWebBuild();
  const server = await startTestServer({}, { webRoot: build.dir });
  await using browser = await launchBrowser();
  try {
    assert.equal((await call(server.url, "POST", "/models", { ...BLANK_SPEC, id: "plain" })).status, 201);
    const { page, errors } = await watchedPage(browser);
    const requests: string[] = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    // The page the server serves starts on that server.
    await page.goto(`${server.url}/`);
    await page.getByText(`Connected: ${server.url}`).waitFor();
    const notice = page.locator("svc-generate-panel").getByTestId("generation-unavailable");
    await notice.getByText(/Not available here\. No LLM provider configured: set svc\.llm\.provider/)
      .waitFor();
    assert.equal(await page.getByRole("button", { name: "Generate" }).count(), 0);
    await screenshot(page, "generation-not-configured");
    await assertAccessible(page, "svc-generate-panel");
    await page.getByRole("button", { name: "plain", exact: true }).click();
    await page.getByRole("tab", { name: "Evolve" }).click();
    await page.locator("svc-ai-evolve").getByTestId("generation-unavailable").getByText(/No LLM provider/)
      .waitFor();
    assert.equal(await page.getByRole("button", { name: "Evolve with AI" }).count(), 0);
    assert.deepEqual(requests.filter((p) => p.startsWith("/llm/") || p.includes("generate")), [
      "/llm/status",
    ]);
    assert.deepEqual(errors, []);
  } finally {
    await server.close();
    await build.remove();
  }
});
