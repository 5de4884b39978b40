/// <reference lib="dom" />
/**
 * The embed replacing a stored model, as a person sees it in real Chromium:
 * the element never says the model "was deleted" while it replaces it itself, nor while another
 * tab does, nor while a service of the page's own (createModelService) does (nor says another tab does);
 * a `view` only the refused spec has shows the kept model's default view,
 * saying so; a replacement whose put-back fails (storage failing under it)
 * says so, logs the state, and the next open puts the model back from the journal; a journal record over a
 * stored model that did not load says what to do, which then lets the next open finish.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { assertAccessible, screenshot, temporaryWebBuild } from "./journey.ts";
import { assertEventually, counter, freshPage, hostPage, JSON_TYPE, storeSpecVersion } from "./embed_host.ts";
import { type ServedFile, serveStatic } from "./static_server.ts";

/** `counter(version, step)` whose schema refuses a count above `max` (a stored count of 1 and more, with 0). */
function refusing(version: string, max: number): Record<string, unknown> {
  const spec = counter(version, 1);
  (spec.schema as { properties: { n: Record<string, unknown> } }).properties.n.maximum = max;
  return spec;
}

/** Adds a view `extra` (labelled "Extra view") to a counter spec. */
function withExtraView(spec: Record<string, unknown>): Record<string, unknown> {
  const views = (spec.viewDefinition as { views: unknown[] }).views;
  views.push({
    id: "extra",
    label: "Extra view",
    components: [{ id: "x", type: "numericField", label: "Count", bind: "$.n" }],
  });
  return spec;
}

/**
 * Starts recording every text the element `model` shows (its own and its view's), at each change of
 * either; the texts are read back with {@link shownTexts}.
 */
async function recordTexts(model: Locator): Promise<void> {
  await model.evaluate((el) => {
    const seen: string[] = (globalThis as unknown as { shownTexts: string[] }).shownTexts = [];
    const view = el.shadowRoot!.querySelector("svc-view")!;
    const read = () => seen.push(`${el.shadowRoot!.textContent}\n${view.shadowRoot!.textContent}`);
    const observer = new MutationObserver(read);
    for (const root of [el.shadowRoot!, view.shadowRoot!]) {
      observer.observe(root, { childList: true, subtree: true, characterData: true, attributes: true });
    }
    read();
  });
}

/** What {@link recordTexts} saw. */
function shownTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as unknown as { shownTexts: string[] }).shownTexts);
}

/** Sets the `spec` property of the element `#m`, as a page does. */
function setSpec(page: Page, spec: Record<string, unknown>): Promise<void> {
  return page.evaluate(async (spec) => {
    await customElements.whenDefined("svc-model");
    (document.getElementById("m") as unknown as { spec: unknown }).spec = spec;
  }, spec);
}

/** The record the journal (database `svc-embed-journal`) holds for model `id`, `null` when none. */
function journaled(page: Page, id: string): Promise<unknown> {
  return page.evaluate((id) =>
    new Promise((resolve, reject) => {
      const request = indexedDB.open("svc-embed-journal");
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains("replacing")) return db.close(), resolve(null);
        const get = db.transaction("replacing").objectStore("replacing").get(id);
        get.onsuccess = () => (db.close(), resolve(get.result ?? null));
      };
    }), id);
}

/** A page {@link installReplaceAsAnOpen} prepared. */
interface ReplacingPage {
  /**
   * Replaces model `spec.id` by `spec` as an open does, through a service of the page's own: under the open's
   * lock, journaled, deleted, then (once `midway` resolves) created again and given its state.
   */
  replaceAsAnOpen(spec: Record<string, unknown>, midway: () => Promise<void>): Promise<void>;
}

/** Gives `page` its {@link ReplacingPage.replaceAsAnOpen}. */
function installReplaceAsAnOpen(page: Page): Promise<void> {
  return page.evaluate(() => {
    const journal = (write: (store: IDBObjectStore) => void) =>
      new Promise((resolve, reject) => {
        const request = indexedDB.open("svc-embed-journal");
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const transaction = request.result.transaction("replacing", "readwrite");
          transaction.oncomplete = () => (request.result.close(), resolve(null));
          write(transaction.objectStore("replacing"));
        };
      });
    (globalThis as unknown as ReplacingPage).replaceAsAnOpen = async (spec, midway) => {
      const embed = await import("/svc-embed.js");
      const service = await embed.createModelService();
      const id = spec.id as string;
      await navigator.locks.request(`svc-embed:open:${id}`, async () => {
        const stored = await service.getSpec(id);
        const snapshot = await service.snapshot(id);
        await journal((store) => store.put({ stored, snapshot, version: spec.version }, id));
        await service.deleteModel(id);
        await midway();
        await service.createModel(spec);
        await service.restore(id, snapshot);
        await journal((store) => store.delete(id));
      });
    };
  });
}

Deno.test("embedding: replacing a stored model, as a person sees it", async (t) => {
  const build = await temporaryWebBuild();
  const files: Record<string, ServedFile> = {};
  await using server = serveStatic(files, build.dir);
  const base = `http://127.0.0.1:${server.addr.port}`;
  await using browser = await launchBrowser();
  const fresh = () => freshPage(browser);
  const count = (model: Locator) => model.getByLabel("Count", { exact: true }).inputValue();
  /** A fresh page at `path` showing the counter 1.0.0 with one step added, its texts recorded from then on. */
  const counterAtOne = async (path: string) => {
    files[path] = hostPage(`<svc-model id="m"></svc-model>`);
    const opened = await fresh();
    await opened.page.goto(`${base}${path}`);
    const model = opened.page.locator("#m");
    await setSpec(opened.page, counter("1.0.0", 1));
    await model.getByRole("button", { name: "Add a step" }).click();
    await assertEventually(async () => await count(model) === "1");
    await recordTexts(model);
    return { ...opened, model };
  };
  try {
    await t.step("a replacement the element makes never shows the model as deleted", async () => {
      files["/set.html"] = hostPage(`<svc-model id="m"></svc-model>`);
      const { context, page, errors } = await fresh();
      await page.goto(`${base}/set.html`);
      const model = page.locator("#m");
      await setSpec(page, counter("1.0.0", 1));
      // The counter's Count is a number field (numericField), not a text box.
      const countBox = model.getByLabel("Count", { exact: true });
      assert.equal(await countBox.getAttribute("inputmode"), "decimal");
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () => await count(model) === "1");

      // Refused (it is deleted, created from the new spec, which refuses the count, and put back).
      await recordTexts(model);
      await setSpec(page, refusing("2.0.0", 0));
      await model.getByRole("alert").getByText(/keeps its stored version 1\.0\.0 and its data/).waitFor();
      await model.getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
      assert.equal(await count(model), "1");
      const refused = await shownTexts(page);
      assert.deepEqual(refused.filter((text) => /was deleted/.test(text)), []);
      assert.ok(refused.some((text) => /keeps its stored version/.test(text)), "the recording saw the alert");

      // Taken (deleted, created again, restored): the old view until the new one.
      await recordTexts(model);
      await setSpec(page, counter("3.0.0", 10));
      await model.getByRole("heading", { name: "Counter 3.0.0" }).waitFor();
      assert.equal(await count(model), "1");
      const taken = await shownTexts(page);
      assert.deepEqual(taken.filter((text) => /was deleted/.test(text)), []);
      // The new spec is the view's: its button adds the new step.
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () => await count(model) === "11");
      assert.deepEqual(errors, []);
      await context.close();
    });

    await t.step("another tab's replacement: this tab sees the model come back, never deleted", async () => {
      const { context, page, errors, model } = await counterAtOne("/tabs.html");

      // The other tab deploys a change no evolution says (an annotation): deleted, created again, restored.
      const other = await context.newPage();
      await other.goto(`${base}/tabs.html`);
      await setSpec(other, counter("1.0.0", 1));
      await other.locator("#m").getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
      // Many derivations: its create compiles long enough for this tab to hear the deletion first.
      const derivations = Array.from({ length: 300 }, (_, i) => ({ path: `$.d${i}`, expr: `n + ${i}` }));
      await setSpec(other, { ...counter("2.0.0", 10), derivations, _name: "Counter, renamed" });
      await other.locator("#m").getByRole("heading", { name: "Counter 2.0.0" }).waitFor();

      await model.getByRole("heading", { name: "Counter 2.0.0" }).waitFor();
      assert.equal(await count(model), "1");
      const seen = await shownTexts(page);
      assert.deepEqual(seen.filter((text) => /was deleted/.test(text)), []);
      // The new spec is this tab's view's too.
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () => await count(model) === "11");
      await screenshot(page, "embed-other-tab-replaced");
      assert.deepEqual(errors, []);
      await context.close();
    });

    await t.step(
      "an edit made while another tab replaces the model: told so, applied once it is back",
      async () => {
        files["/other.html"] = hostPage("");
        const { context, page, errors, model } = await counterAtOne("/edit.html");

        // The other tab replaces it as an open does (under the open's lock, journaled), and stops midway: deleted.
        const other = await context.newPage();
        await other.goto(`${base}/other.html`);
        await installReplaceAsAnOpen(other);
        await other.evaluate(async (spec) => {
          const scope = globalThis as unknown as ReplacingPage & {
            finish: () => void;
            finished: Promise<void>;
          };
          const resume = new Promise<void>((resolve) => scope.finish = resolve);
          const deleted = Promise.withResolvers<void>();
          scope.finished = scope.replaceAsAnOpen(spec, () => (deleted.resolve(), resume));
          await deleted.promise;
        }, counter("2.0.0", 10));

        // This tab says so, still showing the model; an edit made meanwhile waits rather than failing.
        const status = model.getByRole("status");
        await status.getByText(
          "This model is being updated in another tab: edits made here meanwhile are applied once it is done.",
        ).waitFor();
        await model.getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
        const committed = model.evaluate((el) =>
          new Promise<string>((resolve) =>
            el.addEventListener(
              "svc-commit",
              (e) => resolve(JSON.stringify((e as CustomEvent).detail.viewId)),
              {
                once: true,
              },
            )
          )
        );
        await model.getByLabel("Count", { exact: true }).fill("5");
        await model.getByLabel("Count", { exact: true }).press("Enter");
        await screenshot(page, "embed-edit-during-other-tab-replacement");
        assert.equal(await model.getByRole("alert").count(), 0);

        await other.evaluate(async () => {
          const scope = globalThis as unknown as { finish: () => void; finished: Promise<void> };
          scope.finish();
          await scope.finished;
        });
        // Back as the other tab made it, with the edit applied to it; never said deleted, nor not found.
        assert.equal(await committed, JSON.stringify("main"));
        await model.getByRole("heading", { name: "Counter 2.0.0" }).waitFor();
        await assertEventually(async () => await count(model) === "5");
        await assertEventually(async () => await status.count() === 0);
        assert.equal(await model.getByRole("alert").count(), 0);
        const seen = await shownTexts(page);
        assert.deepEqual(seen.filter((text) => /was deleted|not found/.test(text)), []);
        const stored = await other.evaluate(async () => {
          const embed = await import("/svc-embed.js");
          return await (await embed.createModelService()).getState("counter");
        });
        assert.deepEqual(stored, { n: 5 });
        assert.deepEqual(errors, []);
        await context.close();
      },
    );

    await t.step(
      "this page's own replacement through createModelService: never said deleted, nor done in another tab",
      async () => {
        const { context, page, errors, model } = await counterAtOne("/own.html");
        // The page replaces the model as an open does (under its lock, journaled), through a service of its own;
        // it creates it again once the page-wide service heard of the deletion.
        await installReplaceAsAnOpen(page);
        await page.evaluate(async (spec) => {
          const embed = await import("/svc-embed.js");
          const heard = Promise.withResolvers<void>();
          const stop = embed.subscribe((event: { type: string }) =>
            event.type === "deleted" && heard.resolve()
          );
          await (globalThis as unknown as ReplacingPage).replaceAsAnOpen(spec, () => heard.promise);
          stop();
        }, counter("2.0.0", 10));
        await model.getByRole("heading", { name: "Counter 2.0.0" }).waitFor();
        await assertEventually(async () => await count(model) === "1");
        const seen = await shownTexts(page);
        assert.deepEqual(seen.filter((text) => /was deleted|another tab|not found/.test(text)), []);
        assert.deepEqual(errors, []);
        await context.close();
      },
    );

    await t.step("a view only the refused spec has: the kept model's default view, saying so", async () => {
      files["/views.json"] = { type: JSON_TYPE, body: JSON.stringify(counter("1.0.0", 1)) };
      files["/views.html"] = hostPage(`<svc-model src="/views.json"></svc-model>`);
      const { context, page, errors } = await fresh();
      await page.goto(`${base}/views.html`);
      const model = page.locator("svc-model");
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () => await count(model) === "1");

      // Redeployed: the page shows the new view `extra`, which its new spec adds, but that spec refuses the count.
      files["/views.json"] = { type: JSON_TYPE, body: JSON.stringify(withExtraView(refusing("2.0.0", 0))) };
      files["/views.html"] = hostPage(`<svc-model src="/views.json" view="extra"></svc-model>`);
      await page.reload();
      await model.getByRole("alert").getByText(/keeps its stored version 1\.0\.0 and its data/).waitFor();
      await model.getByText("View 'extra' is not in the stored version 1.0.0: its default view shows.")
        .waitFor();
      await model.getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
      assert.equal(await count(model), "1");
      // One alert, the element's: the view shows no error of its own.
      assert.equal(await model.getByRole("alert").count(), 1);
      await screenshot(page, "embed-refused-spec-unknown-view");
      await assertAccessible(page, "svc-model");

      // Once a spec taking the count comes, its view `extra` shows.
      files["/views.json"] = { type: JSON_TYPE, body: JSON.stringify(withExtraView(counter("2.1.0", 1))) };
      await page.reload();
      await model.getByRole("heading", { name: "Extra view" }).waitFor();
      assert.equal(await count(model), "1");
      assert.equal(await model.getByRole("alert").count(), 0);
      assert.equal(await model.getByText(/is not in the stored version/).count(), 0);
      assert.deepEqual(errors, []);
      await context.close();
    });

    /** A counter at 1 whose replacement by a spec refusing it fails to put it back: storage fails under it. */
    const putBackFailed = async () => {
      files["/back.json"] = { type: JSON_TYPE, body: JSON.stringify(counter("1.0.0", 1)) };
      files["/back.html"] = hostPage(`<svc-model id="m" src="/back.json"></svc-model>`);
      const opened = await fresh();
      const page = opened.page;
      await page.goto(`${base}/back.html`);
      const model = page.locator("#m");
      await model.getByRole("button", { name: "Add a step" }).click();
      await assertEventually(async () => await count(model) === "1");

      // The transaction writing the stored version's header again aborts (as one over quota does), once.
      await page.evaluate(() => {
        const scope = globalThis as unknown as { failPutBack: boolean };
        scope.failPutBack = true;
        const put = IDBObjectStore.prototype.put;
        IDBObjectStore.prototype.put = function (value: unknown, key?: IDBValidKey) {
          const request = put.call(this, value, key);
          const header = value as { spec?: { version?: string } } | undefined;
          if (
            scope.failPutBack && Array.isArray(key) && key[0] === "model" && header?.spec?.version === "1.0.0"
          ) {
            scope.failPutBack = false;
            this.transaction.abort();
          }
          return request;
        };
      });
      // An annotation changed: no evolution says it, so the model is replaced (deleted, created, put back).
      await setSpec(page, { ...refusing("2.0.0", 0), _name: "Counter, renamed" });
      await model.getByRole("alert").getByText(
        /could not take version 2\.0\.0 of its spec .*, and putting back its stored model failed too \(.+\): the next open \(a reload of the page\) puts it back from the IndexedDB database svc-embed-journal, and its state is in the console/,
      ).waitFor();
      return { ...opened, model };
    };

    await t.step("a put-back that fails: said, logged, and the next open puts the model back", async () => {
      const { context, page, errors, model } = await putBackFailed();
      assert.equal(await model.locator("svc-view").count(), 0);
      await screenshot(page, "embed-put-back-failed");
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.match(
        errors[0],
        /^console error: svc-embed: the state of model 'counter', which could not be put back:/,
      );
      const record = await journaled(page, "counter") as { stored: { version: string }; version: string };
      assert.equal(record.stored.version, "1.0.0");
      assert.equal(record.version, "2.0.0");

      // The next open (the page served again, its spec 1.0.0): the model is back, with its count.
      await page.reload();
      await model.getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
      assert.equal(await count(model), "1");
      assert.equal(await model.getByRole("alert").count(), 0);
      assert.equal(await journaled(page, "counter"), null);
      await context.close();
    });

    await t.step(
      "a journal record over a stored model that did not load: said, and a deletion lets it finish",
      async () => {
        const { context, page, model } = await putBackFailed();
        // Meanwhile a model of the id came, stored under a version a later embed refuses: it does not load.
        await page.evaluate(async (spec) => {
          const embed = await import("/svc-embed.js");
          await (await embed.createModelService()).createModel(spec);
        }, counter("2.1.0", 1));
        await storeSpecVersion(page, "counter", "2.1");
        await page.reload();
        const alert = model.getByRole("alert");
        await alert.getByText(
          /^This model could not start: Model 'counter' is stored but this version cannot load it: its stored spec no longer validates \(version: '2\.1' is not a semantic version .*\)\. A replacement of its version 1\.0\.0 by 2\.0\.0 was left midway: the data it had before is kept in the IndexedDB database svc-embed-journal \(key 'counter'\), and the next open puts it back once the stored model is deleted/,
        ).waitFor();
        await screenshot(page, "embed-journal-over-unloaded-model");
        // Every open says the same until the stored model goes: the record is kept.
        await page.reload();
        await alert.getByText(/A replacement of its version 1\.0\.0 by 2\.0\.0 was left midway/).waitFor();
        assert.notEqual(await journaled(page, "counter"), null);

        await page.evaluate(async () => {
          const embed = await import("/svc-embed.js");
          await (await embed.createModelService()).deleteModel("counter");
        });
        await page.reload();
        await model.getByRole("heading", { name: "Counter 1.0.0" }).waitFor();
        assert.equal(await count(model), "1");
        assert.equal(await alert.count(), 0);
        assert.equal(await journaled(page, "counter"), null);
        await context.close();
      },
    );
  } finally {
    await build.remove();
  }
});
