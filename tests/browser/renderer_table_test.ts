/// <reference lib="dom" />
/**
 * The data table in Chromium: a column of numbers is right-aligned as a whole,
 * its header with it (the header sat at the left, far from its figures, in a
 * wide table); a column of text or of mixed values is left-aligned, header and
 * cells alike.
 *
 * @module
 */
import assert from "node:assert/strict";
import { withEmbeddedSpec } from "./embedded_spec.ts";
import { assertAccessible, screenshot } from "./journey.ts";

const SPEC = {
  id: "table",
  schema: {
    type: "object",
    properties: {
      lines: {
        type: "array",
        items: {
          type: "object",
          properties: { desc: { type: "string" }, total: { type: "number" }, code: {} },
        },
        default: [
          { desc: "Widget", total: 20, code: 7 },
          { desc: "Gadget", total: 1250.5, code: "A7" },
        ],
      },
    },
  },
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Invoice",
      components: [{
        id: "tbl",
        type: "dataTable",
        label: "Lines",
        bind: "$.lines",
        tableColumns: [
          { field: "desc", header: "Item" },
          { field: "total", header: "Line total", format: "currency", currency: "USD" },
          { field: "code", header: "Code" },
        ],
      }],
    }],
  },
};

Deno.test("the renderer: a table's column of numbers is right-aligned with its header; text and mixed columns left", () =>
  withEmbeddedSpec(SPEC, { heading: "Invoice" }, async (page, view) => {
    await view.getByRole("cell", { name: "Gadget" }).waitFor();
    await screenshot(page, "renderer-table-alignment");
    const alignments = await view.locator("table").evaluate((table) =>
      [...table.querySelectorAll("tr")].map((tr) =>
        [...tr.querySelectorAll("th, td")].map((cell) => getComputedStyle(cell).textAlign)
      )
    );
    assert.deepEqual(alignments, [
      ["left", "right", "left"],
      ["left", "right", "left"],
      ["left", "right", "left"],
    ]);
    await assertAccessible(page, "svc-model");
  }));
