/// <reference lib="dom" />
/**
 * What the embed's browser tests share: a host page of the embed script, a
 * counter spec, typing into a model's field, and waiting for a condition.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { watchedPage } from "./journey.ts";
import type { ServedFile } from "./static_server.ts";

export const HTML = "text/html; charset=utf-8";
export const JSON_TYPE = "application/json";

/** A host page: the embed script (from `script`, the page's own origin by default), then `body`. */
export function hostPage(body: string, head = "", script = "/svc-embed.js"): ServedFile {
  return {
    type: HTML,
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title>${head}
<link rel="icon" href="data:,"><script type="module" src="${script}"></script></head><body>${body}</body></html>`,
  };
}

/** Types into a labelled field of `scope`, commits it (Enter) and waits until the model took it. */
export async function enter(scope: ReturnType<Page["locator"]>, label: string, value: string): Promise<void> {
  // Listening before the entry: a page reloaded while the write is under way would lose it.
  const committed = scope.evaluate((el) =>
    new Promise<void>((resolve) => el.addEventListener("svc-commit", () => resolve(), { once: true }))
  );
  await scope.getByLabel(label, { exact: true }).fill(value);
  await scope.getByLabel(label, { exact: true }).press("Enter");
  await committed;
}

/** A counter whose button adds `$const.step`; `version` and `step` vary. */
export function counter(version: string, step: number): Record<string, unknown> {
  return {
    id: "counter",
    version,
    constants: { step },
    schema: { type: "object", properties: { n: { type: "number" } } },
    viewDefinition: {
      defaultView: "main",
      views: [{
        id: "main",
        label: `Counter ${version}`,
        components: [
          { id: "n", type: "numericField", label: "Count", bind: "$.n" },
          {
            id: "add",
            type: "button",
            label: "Add a step",
            onClick: { mutations: "{'$.n': ($exists(n) ? n : 0) + $const.step}" },
          },
        ],
      }],
    },
  };
}

/** Waits until `check` holds (a few seconds at most). */
export async function assertEventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) assert.fail("the condition did not hold in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A page in a browser context of its own (a fresh visitor: its own IndexedDB), watched for errors. */
export async function freshPage(
  browser: Browser,
  height = 700,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 900, height } });
  return { context, ...await watchedPage(context) };
}

/**
 * Rewrites the version of the spec stored for model `id` in the page's `svc-embed` database to `version`
 * (not semantic, say): the stored model then no longer loads, as after an earlier engine stored it.
 * `saved`: its head moves on too, as another tab's save moves it, so an open service hears of it.
 */
export function storeSpecVersion(page: Page, id: string, version: string, saved = false): Promise<unknown> {
  return page.evaluate(([id, version, saved]) =>
    new Promise((resolve, reject) => {
      const request = indexedDB.open("svc-embed");
      request.onerror = () => reject(request.error);
      request.onsuccess = () => {
        const transaction = request.result.transaction("models", "readwrite");
        const models = transaction.objectStore("models");
        transaction.oncomplete = resolve;
        const get = models.get(["model", id]);
        get.onsuccess = () => {
          get.result.spec.version = version;
          models.put(get.result, ["model", id]);
        };
        if (!saved) return;
        const head = models.get(["head", id]);
        head.onsuccess = () => {
          const rev = head.result.rev + 1;
          models.put({ ...head.result, rev, gen: rev }, ["head", id]);
        };
      };
    }), [id, version, saved] as const);
}
