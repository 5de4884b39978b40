/**
 * A host page under the Content-Security-Policy the README names for an
 * embedding (`script-src 'self' 'unsafe-eval'`, here under `default-src
 * 'none'`, no `style-src`): the model shows with its layout, since the
 * renderer sets its element styles through the CSSOM (before, Lit's styleMap
 * wrote them as `style` attributes, which such a policy blocks: a console
 * violation each, a grid's columns and a spacer's height lost).
 *
 * @module
 */
import assert from "node:assert/strict";
import { launchBrowser } from "./chromium.ts";
import { enter, hostPage, JSON_TYPE } from "./embed_host.ts";
import { screenshot, temporaryWebBuild, watchedPage } from "./journey.ts";
import { serveStatic } from "./static_server.ts";

// `img-src data:`: the host page's own favicon.
const CSP = "default-src 'none'; script-src 'self' 'unsafe-eval'; connect-src 'self'; img-src data:";

const SPEC = {
  id: "csp-grid",
  version: "1.0.0",
  schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  derivations: [{ path: "$.sum", expr: "a + b" }],
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Grid",
      components: [
        {
          id: "box",
          type: "group",
          layout: "grid",
          columns: 3,
          components: [
            { id: "a", type: "numericField", label: "A", bind: "$.a" },
            { id: "b", type: "numericField", label: "B", bind: "$.b" },
            { id: "sum", type: "statTile", label: "Sum", bind: "$.sum" },
          ],
        },
        { id: "gap", type: "spacer", size: 48 },
      ],
    }],
  },
};

Deno.test("embedding: a page under the README's CSP shows the model with its layout and no violation", async () => {
  const build = await temporaryWebBuild();
  await using server = serveStatic({
    "/": hostPage(
      `<svc-model src="/grid.json"></svc-model>`,
      `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    ),
    "/grid.json": { type: JSON_TYPE, body: JSON.stringify(SPEC) },
  }, build.dir);
  await using browser = await launchBrowser();
  const { page, errors } = await watchedPage(browser);
  await page.goto(`http://127.0.0.1:${server.addr.port}/`);
  const model = page.locator("svc-model");
  await model.getByLabel("A", { exact: true }).waitFor();
  // As first shown, before any write redraws the view.
  const layout = await model.locator("svc-view").evaluate((view) => {
    const root = view.shadowRoot ?? view;
    const grid = root.querySelector<HTMLElement>(".layout-grid")!;
    const spacer = root.querySelector<HTMLElement>(".spacer")!;
    return {
      columns: getComputedStyle(grid).gridTemplateColumns.split(" ").length,
      spacer: spacer.getBoundingClientRect().height,
    };
  });
  assert.deepEqual(layout, { columns: 3, spacer: 48 });
  await enter(model, "A", "2");
  await enter(model, "B", "3");
  await model.getByText("5", { exact: true }).waitFor();
  await screenshot(page, "embed-csp-grid");
  assert.deepEqual(errors, []);
});
