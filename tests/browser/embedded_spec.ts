/// <reference lib="dom" />
/**
 * A journey on a page embedding one spec with `<svc-model>` (the embed
 * bundle of a temporary web build, in a fresh Chromium): the renderer tests
 * start here, read the model's state as the page's own code would, and fail on
 * any console error of the page.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { launchBrowser } from "./chromium.ts";
import { temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Embedded</title>
<link rel="icon" href="data:,"><script type="module" src="/svc-embed.js"></script></head>
<body><main><svc-model></svc-model></main></body></html>`;

/** Options of {@link withEmbeddedSpec}. */
export interface EmbedOptions {
  /** The heading to wait for before the journey (the first view's title). */
  heading: string;
  /** The page's time zone (an IANA name; default: the host's). */
  timezoneId?: string;
}

/**
 * Runs `journey` once the view of `spec` shows its heading; fails on any console
 * error of the page.
 */
export async function withEmbeddedSpec(
  spec: unknown,
  options: EmbedOptions,
  journey: (page: Page, view: Locator) => Promise<void>,
): Promise<void> {
  const build = await temporaryWebBuild();
  await using server = serveStatic({ "/": { body: PAGE, type: "text/html; charset=utf-8" } }, build.dir);
  await using browser = await launchBrowser();
  try {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: options.timezoneId,
    });
    const { page, errors } = await watchedPage(context);
    await page.goto(`http://127.0.0.1:${server.addr.port}/`);
    await page.evaluate((json) => {
      (document.querySelector("svc-model") as unknown as { spec: unknown }).spec = JSON.parse(json);
    }, JSON.stringify(spec));
    const view = page.locator("svc-view");
    await view.getByRole("heading", { name: options.heading }).waitFor();
    await journey(page, view);
    assert.deepEqual(errors, []);
  } finally {
    await build.remove();
  }
}

/** The merged state of the embedded model `id`, read as the page's own code would (the element's service). */
export function stateOf(page: Page, id: string): Promise<unknown> {
  return page.evaluate(async (modelId) => {
    const embed = await import("/svc-embed.js");
    return await embed.getState(modelId);
  }, id);
}
