/// <reference lib="dom" />
/**
 * Two tabs of one origin share one IndexedDB database (two pages of one
 * browser context, as a person opening the page twice): each runs its own
 * service over it, and neither may lose the other's writes. Through
 * `createModelService()` of the embed script: writes made alternately and at
 * once in both tabs all land, in one audit chain that verifies after a
 * reload, and both tabs converge to the same state; a model created or
 * deleted in one tab appears or disappears in the other; a timer effect and a
 * `server` request run once, not once per tab. Then the playground opened
 * twice: tab B lists the model tab A opens and shows A's writes without a
 * reload, and a new spec being written in B stays open while A creates a
 * model. Screenshots .cache/screenshots/two-tabs-a.png and two-tabs-b.png.
 *
 * @module
 */
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import type { BrowserContext, Page } from "playwright-core";
import type { ModelService } from "../../engine/mod.ts";
import { launchBrowser } from "./chromium.ts";
import { screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

/** A page that opens a service of its own over the shared database `two-tabs` as `globalThis.svc`. */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A tab</title><link rel="icon" href="data:,"></head>
<body><script type="module">
  const { createModelService } = await import("/svc-embed.js");
  globalThis.svc = await createModelService({ database: "two-tabs" });
</script></body></html>`;

const COUNTER = {
  id: "counter",
  schema: {
    type: "object",
    properties: { a: { type: "integer" }, b: { type: "integer" }, notes: { type: "array" } },
  },
  derivations: [{ path: "$.sum", expr: "$sum([a, b])" }],
};

/** A timer that fires once after 300 ms, counting its fold-backs, and a request counted by the server. */
function effectsSpec(origin: string) {
  return {
    id: "effects",
    schema: {
      type: "object",
      properties: {
        armed: { type: "boolean" },
        ticks: { type: "integer" },
        region: { type: "string" },
        rate: { type: "number" },
        io: { type: "object" },
      },
    },
    effects: [
      {
        id: "tick",
        executor: "timer",
        trigger: "armed = true",
        dedupeKey: "armed",
        afterMs: "300",
        response: { set: { "$.ticks": "$exists(ticks) ? ticks + 1 : 1" } },
      },
      {
        id: "fetch-rate",
        executor: "server",
        trigger: "region != null",
        dedupeKey: "region",
        request: { url: `${origin}/rate/{ region }` },
        response: { set: { "$.rate": "$response.rate" } },
        statusPath: "$.io.rate",
      },
    ],
  };
}

type Tab = { page: Page; errors: string[] };

async function openTab(context: BrowserContext, url: string): Promise<Tab> {
  const tab = await watchedPage(context);
  await tab.page.goto(url);
  await tab.page.waitForFunction(() => "svc" in globalThis, null, { timeout: 20_000 });
  return tab;
}

/** Runs `run` with the tab's service (a function of the page: no closures over the test's variables). */
function inTab<T, A>(tab: Tab, run: (svc: ModelService, arg: A) => Promise<T>, arg: A): Promise<T> {
  return tab.page.evaluate(
    ([source, value]) => {
      const svc = (globalThis as unknown as { svc: ModelService }).svc;
      return (0, eval)(source)(svc, value);
    },
    [run.toString(), arg] as const,
  ) as Promise<T>;
}

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** How many fold-backs of the `tick` timer the audit trail of `effects` holds. */
async function tickFoldbacks(tab: Tab): Promise<number> {
  const audit = await inTab(tab, (svc) => svc.getAudit("effects", { limit: 100 }), null);
  return audit.filter((r) => r.source === "foldback" && "$.ticks" in (r.mutations as object)).length;
}

/** Types into a labelled field of the playground's view and commits it (Enter), after pressing `first` if given. */
async function enterField(page: Page, label: string, value: string, first?: string): Promise<void> {
  const view = page.locator("svc-view");
  if (first) await view.getByRole("button", { name: first }).click();
  const field = view.getByLabel(label, { exact: true }).first();
  await field.fill(value);
  await field.press("Enter");
}

const listModels = (svc: ModelService) => svc.listModels();
const stateOf = (svc: ModelService, id: string) => svc.getState(id);
const mutate = (svc: ModelService, [id, writes]: [string, Record<string, unknown>]) =>
  svc.mutate(id, writes as never).then(() => null);

Deno.test("two tabs over one IndexedDB database: no write lost, one audit chain, effects run once", async (t) => {
  const build = await temporaryWebBuild();
  const requests: string[] = [];
  await using rates = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    requests.push(new URL(request.url).pathname);
    return Response.json({ rate: 3 }, { headers: { "access-control-allow-origin": "*" } });
  });
  await using server = serveStatic(
    { "/tab.html": { body: PAGE, type: "text/html; charset=utf-8" } },
    build.dir,
  );
  const url = `http://127.0.0.1:${server.addr.port}/tab.html`;
  await using browser = await launchBrowser();
  const context = await browser.newContext();
  try {
    const a = await openTab(context, url);
    await inTab(a, (svc, spec) => svc.createModel(spec).then(() => null), COUNTER);
    const b = await openTab(context, url);

    await t.step("writes made alternately in both tabs all land, in one audit chain", async () => {
      for (let i = 1; i <= 6; i++) {
        await inTab(i % 2 ? a : b, mutate, ["counter", i % 2 ? { "$.a": i } : { "$.b": i }]);
      }
      await eventually(
        async () => isDeepStrictEqual(await inTab(a, stateOf, "counter"), await inTab(b, stateOf, "counter")),
        "both tabs at the same state",
      );
      assert.deepEqual(await inTab(b, stateOf, "counter"), { a: 5, b: 6, sum: 11 });
    });

    await t.step("writes made at once in both tabs all land", async () => {
      const appends = (tab: Tab, name: string) =>
        inTab(tab, async (svc, who) => {
          for (let i = 0; i < 10; i++) {
            await svc.patch("counter", [{ op: "add", path: "/notes/-", value: `${who}${i}` }]);
          }
          return null;
        }, name);
      await inTab(a, mutate, ["counter", { "$.notes": [] }]);
      await Promise.all([appends(a, "a"), appends(b, "b")]);
      await eventually(
        async () => isDeepStrictEqual(await inTab(a, stateOf, "counter"), await inTab(b, stateOf, "counter")),
        "both tabs at the same state",
      );
      const notes = ((await inTab(a, stateOf, "counter")) as { notes: string[] }).notes;
      assert.deepEqual(notes.toSorted(), [...Array(10).keys()].flatMap((i) => [`a${i}`, `b${i}`]).toSorted());
      // Each tab's own appends stay in the order it made them.
      for (const who of ["a", "b"]) {
        assert.deepEqual(
          notes.filter((n) => n.startsWith(who)),
          [...Array(10).keys()].map((i) => `${who}${i}`),
        );
      }
    });

    await t.step("after a reload: the same state, every write audited once, the chain verifies", async () => {
      const before = await inTab(a, stateOf, "counter");
      for (const tab of [a, b]) {
        await tab.page.reload();
        await tab.page.waitForFunction(() => "svc" in globalThis, null, { timeout: 20_000 });
        assert.deepEqual(await inTab(tab, stateOf, "counter"), before);
      }
      const audit = await inTab(b, (svc) => svc.getAudit("counter", { limit: 1000 }), null);
      assert.equal(audit.length, 6 + 1 + 20);
      assert.deepEqual(audit.map((r) => r.sequence), [...Array(27).keys()].reverse());
      assert.equal((await inTab(a, (svc) => svc.verifyAudit("counter"), null)).valid, true);
    });

    await t.step("a model created in one tab appears in the other; deleted, it disappears", async () => {
      await inTab(b, (svc, spec) => svc.createModel(spec).then(() => null), { ...COUNTER, id: "second" });
      await eventually(async () => (await inTab(a, listModels, null)).includes("second"), "created in A");
      await inTab(a, mutate, ["second", { "$.a": 7 }]);
      await eventually(
        async () => isDeepStrictEqual(await inTab(b, stateOf, "second"), { a: 7, sum: 7 }),
        "A's write in B",
      );
      await inTab(a, (svc) => svc.deleteModel("second"), null);
      await eventually(async () => !(await inTab(b, listModels, null)).includes("second"), "deleted in B");
    });

    await t.step("a timer effect and a server request run once with two tabs open", async () => {
      const spec = effectsSpec(`http://127.0.0.1:${rates.addr.port}`);
      await inTab(a, (svc, s) => svc.createModel(s).then(() => null), spec);
      await eventually(async () => (await inTab(b, listModels, null)).includes("effects"), "the model in B");
      await inTab(b, mutate, ["effects", { "$.armed": true, "$.region": "eu" }]);
      await eventually(async () => {
        const state = await inTab(a, stateOf, "effects") as { ticks?: number; rate?: number };
        return state.ticks === 1 && state.rate === 3;
      }, "the timer and the request folded back");
      // Time for a second run, if a second tab were to make one.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.deepEqual(requests, ["/rate/eu"]);
      for (const tab of [a, b]) {
        const state = await inTab(tab, stateOf, "effects") as { ticks?: number };
        assert.equal(state.ticks, 1);
      }
      assert.equal(await tickFoldbacks(a), 1);
    });

    await t.step("a timer whose tab reloads before it is due runs once, in one of the tabs", async () => {
      await inTab(a, mutate, ["effects", { "$.armed": false }]);
      await inTab(a, mutate, ["effects", { "$.armed": true }]);
      // The tab holding the job goes away: the reloaded tab and the other one both see it due.
      await a.page.reload();
      await a.page.waitForFunction(() => "svc" in globalThis, null, { timeout: 20_000 });
      await eventually(
        async () => ((await inTab(b, stateOf, "effects")) as { ticks?: number }).ticks === 2,
        "the second tick",
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(((await inTab(a, stateOf, "effects")) as { ticks?: number }).ticks, 2);
      assert.equal(await tickFoldbacks(b), 2);
    });
    assert.deepEqual([...a.errors, ...b.errors], []);

    await t.step("the playground opened twice: B lists A's new model and shows A's writes live", async () => {
      const playground = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const [first, second] = [await watchedPage(playground), await watchedPage(playground)];
        for (const { page } of [first, second]) {
          await page.goto(`http://127.0.0.1:${server.addr.port}/`);
          await page.getByText("Connected: this tab").waitFor();
        }
        await first.page.getByRole("button", { name: "Open Shipping quote" }).click();
        await first.page.locator("svc-view h2").first().waitFor();
        await second.page.getByRole("button", { name: "shipping-quote", exact: true }).click();
        await second.page.locator("svc-view h2").first().waitFor();
        await enterField(first.page, "Destination postcode", "75011");
        await second.page.getByTestId("state").getByText('"postcode": "75011"').waitFor();
        await enterField(second.page, "Weight (kg)", "3.2", "Add parcel");
        await first.page.getByTestId("state").getByText('"weightKg": 3.2').waitFor();
        assert.equal(
          await second.page.locator("svc-view").getByLabel("Destination postcode").inputValue(),
          "75011",
        );
        await screenshot(first.page, "two-tabs-a");
        await screenshot(second.page, "two-tabs-b");
        assert.deepEqual([...first.errors, ...second.errors], []);

        // A person writing a new spec in B while A creates a model keeps the draft: B's list grows only.
        await second.page.getByRole("button", { name: "Examples and new model" }).click();
        await second.page.getByRole("button", { name: "New model", exact: true }).click();
        const editor = second.page.locator("svc-new-model .cm-content");
        await editor.click();
        await second.page.keyboard.press("Control+End");
        await second.page.keyboard.type(" ");
        await first.page.getByRole("button", { name: "Examples and new model" }).click();
        await first.page.getByRole("button", { name: "Open Loan amortisation" }).click();
        await first.page.getByRole("heading", { name: "loan-amortization" }).waitFor();
        await second.page.getByRole("button", { name: "loan-amortization", exact: true }).waitFor();
        assert.equal(await second.page.locator("svc-new-model").count(), 1, "the draft's editor stays open");
        await second.page.getByRole("button", { name: "Create the model" }).click();
        await second.page.locator("svc-view h2").first().waitFor();
        assert.equal(await second.page.locator(".model-title").innerText(), "my-model");
        assert.deepEqual([...first.errors, ...second.errors], []);
      } finally {
        await playground.close();
      }
    });
  } finally {
    await context.close();
    await build.remove();
  }
});
