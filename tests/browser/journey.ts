/**
 * Helpers of the browser journeys: a web build in a temporary folder, a page
 * that records console errors and failed page scripts (a journey asserts there
 * are none), screenshots under `.cache/screenshots/` (gitignored) to look at,
 * and an axe-core check of the rendered views that fails on serious or
 * critical violations.
 *
 * @module
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { buildWeb, type WebBuild } from "../../browser/build.ts";

/** Where journeys save screenshots. */
export const SCREENSHOTS = fileURLToPath(new URL("../../.cache/screenshots/", import.meta.url));

/** Builds dist/web into a temporary folder; remove `dir`'s parent when done. */
export async function temporaryWebBuild(): Promise<WebBuild & { remove(): Promise<void> }> {
  const parent = await Deno.makeTempDir({ prefix: "web_build_" });
  const build = await buildWeb(`${parent}/web`, `${parent}/playground.html`);
  return { ...build, remove: () => Deno.remove(parent, { recursive: true }) };
}

/** A page and the errors it reported. */
export interface WatchedPage {
  page: Page;
  /** Console errors and uncaught page errors, in order. */
  errors: string[];
}

/**
 * Opens a page in `context` (or a new context of `browser`) that records its errors. Chromium logs
 * every non-2xx answer as a console error; those with an `expected` status (a refused write) are not
 * errors of the page.
 */
export async function watchedPage(
  target: Browser | BrowserContext,
  expected: readonly number[] = [],
): Promise<WatchedPage> {
  const context = "newContext" in target
    ? await target.newContext({ viewport: { width: 1280, height: 900 } })
    : target;
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    const status = /^Failed to load resource: the server responded with a status of (\d+)/.exec(msg.text());
    if (status && expected.includes(Number(status[1]))) return;
    if (msg.type() === "error") errors.push(`console error: ${msg.text()}`);
  });
  return { page, errors };
}

/** Moves a playground that started elsewhere (on the server that served it) to the tab, as a person would. */
export async function useTab(page: Page): Promise<void> {
  await page.getByLabel("In this tab").check();
  await page.getByRole("button", { name: "Use this tab" }).click();
  await page.getByText("Connected: this tab").waitFor();
}

/** Saves a full-page screenshot as `.cache/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });
}

const AXE_SOURCE = fileURLToPath(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url));

/** One axe violation, as reported. */
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core on the elements matching `selector` (shadow roots included); fails on serious or critical
 * violations. `rules` turns on rules axe leaves off by default (`label-content-name-mismatch`, WCAG 2.5.3).
 */
export async function assertAccessible(
  page: Page,
  selector = "svc-view",
  rules: readonly string[] = [],
): Promise<void> {
  if (!(await page.evaluate(() => "axe" in globalThis))) {
    await page.evaluate(await Deno.readTextFile(AXE_SOURCE));
  }
  const violations: AxeViolation[] = await page.evaluate(async ([sel, enabled]) => {
    // deno-lint-ignore no-explicit-any
    const axe = (globalThis as any).axe;
    const result = await axe.run({ include: [[sel]] }, {
      resultTypes: ["violations"],
      rules: Object.fromEntries(enabled.map((rule) => [rule, { enabled: true }])),
    });
    return result.violations.map((v: AxeViolation) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  }, [selector, rules] as const);
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    serious.map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`),
    [],
  );
}
