/// <reference lib="dom" />
/**
 * The view renderer keeping what a person entered where it belongs, in
 * Chromium: a section list row's refused entry moves up with its row when a
 * row above goes, a stepper's `min` and `max` and a file upload's bounds
 * refuse an entry before anything is written (the bound named beside the
 * field), and a region selector offers the regions of the country it
 * `dependsOn`, letting go of a region when the country changes.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Locator, Page } from "playwright-core";
import { stateOf, withEmbeddedSpec } from "./embedded_spec.ts";
import { assertAccessible, screenshot } from "./journey.ts";
import { LINES_LIST, linesSchema } from "./fixtures/lines_list.ts";

/** A spec `id` whose one view `Main` holds `components`. */
function specOf(id: string, schema: unknown, components: unknown[]) {
  return {
    id,
    schema,
    viewDefinition: { defaultView: "main", views: [{ id: "main", label: "Main", components }] },
  };
}

/** Waits until the model's state satisfies `check` (its last state in the failure otherwise). */
async function untilState(page: Page, id: string, check: (state: Record<string, unknown>) => boolean) {
  let state: Record<string, unknown> = {};
  for (let i = 0; i < 50; i++) {
    state = await stateOf(page, id) as Record<string, unknown>;
    if (check(state)) return state;
    await page.waitForTimeout(100);
  }
  assert.fail(`the state never got there: ${JSON.stringify(state)}`);
}

/** Types `value` into the field labelled `label` and leaves it with Enter. */
async function enter(view: Locator, label: string, value: string, nth = 0): Promise<void> {
  const input = view.getByLabel(label, { exact: true }).nth(nth);
  await input.fill(value);
  await input.press("Enter");
}

/** A 1×1 PNG (70 bytes). */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

Deno.test("the renderer: a refused entry in a section list row moves up with its row and message", () =>
  withEmbeddedSpec(
    specOf("rows", linesSchema([{ n: 1 }, {}, {}]), [LINES_LIST]),
    { heading: "Main" },
    async (page, view) => {
      const rows = view.locator(".section-item");
      const shown = async () =>
        await Promise.all((await rows.all()).map(async (row) => ({
          n: await row.getByLabel("N", { exact: true }).inputValue(),
          d: await row.getByLabel("D", { exact: true }).inputValue(),
          messages: await row.locator(".messages").allInnerTexts(),
        })));
      await enter(view, "N", "-1", 1);
      await view.getByText("must be >= 0").waitFor();
      await enter(view, "D", "long", 2);
      await view.getByText("must NOT have more than 3 characters").waitFor();

      await view.getByRole("button", { name: "Remove lines 1" }).click();
      await rows.nth(2).waitFor({ state: "detached" });
      await untilState(page, "rows", (s) => JSON.stringify(s.lines) === JSON.stringify([{}, {}]));
      // Each refused entry stays in its own row, beside its own message (before, the second row's entry showed
      // in the first row's control, the first row's message under the second, and "long" was gone).
      assert.deepEqual(await shown(), [
        { n: "-1", d: "", messages: ["must be >= 0"] },
        { n: "", d: "long", messages: ["must NOT have more than 3 characters"] },
      ]);
      await screenshot(page, "renderer-row-refused-moved");
    },
  ));

Deno.test("the renderer: a stepper's min and max refuse a number beside the field, nothing written", () =>
  withEmbeddedSpec(
    specOf("stepper", { type: "object", properties: { count: { type: "integer" } } }, [
      { id: "count", type: "numericStepper", bind: "$.count", label: "Count", min: 0, max: 9 },
    ]),
    { heading: "Main" },
    async (page, view) => {
      const count = view.getByLabel("Count", { exact: true });
      await enter(view, "Count", "5");
      await untilState(page, "stepper", (s) => s.count === 5);

      await enter(view, "Count", "15");
      await view.getByText("must be <= 9").waitFor();
      assert.equal(await count.getAttribute("aria-invalid"), "true");
      assert.equal(await count.inputValue(), "15", "the entry stays to be corrected");
      await screenshot(page, "renderer-stepper-refused");
      await enter(view, "Count", "-1");
      await view.getByText("must be >= 0").waitFor();
      assert.deepEqual(await view.locator(".messages").allInnerTexts(), ["must be >= 0"]);
      await page.waitForTimeout(300);
      assert.deepEqual(await stateOf(page, "stepper"), { count: 5 });

      await enter(view, "Count", "9");
      await untilState(page, "stepper", (s) => s.count === 9);
      await view.locator(".messages").waitFor({ state: "detached" });
      assert.equal(await count.getAttribute("aria-invalid"), "false");
    },
  ));

Deno.test("the renderer: a file upload refuses files outside its media types, sizes and count, naming the bound", () =>
  withEmbeddedSpec(
    specOf("uploads", { type: "object", properties: { doc: { type: "object" }, docs: { type: "array" } } }, [
      {
        id: "doc",
        type: "fileUploadField",
        bind: "$.doc",
        label: "Receipt",
        allowedMediaTypes: ["image/png"],
        maxSize: 100,
      },
      { id: "docs", type: "fileUploadField", bind: "$.docs", label: "Receipts", multiple: true, maxFiles: 1 },
    ]),
    { heading: "Main" },
    async (page, view) => {
      const receipt = view.getByLabel("Receipt", { exact: true });
      const messagesOf = (id: string) => view.locator(`[data-component=${id}] .messages`).allInnerTexts();
      await receipt.setInputFiles({ name: "note.txt", mimeType: "text/plain", buffer: Buffer.from("hello") });
      await view.getByText("note.txt is text/plain: allowed are image/png").waitFor();
      await receipt.setInputFiles({ name: "big.png", mimeType: "image/png", buffer: Buffer.alloc(200) });
      await view.getByText("big.png is 200 bytes: at most 100 bytes allowed").waitFor();
      assert.deepEqual(await messagesOf("doc"), ["big.png is 200 bytes: at most 100 bytes allowed"]);
      assert.equal(await receipt.evaluate((input) => (input as HTMLInputElement).files?.length), 0);

      const receipts = view.getByLabel("Receipts", { exact: true });
      await receipts.setInputFiles([
        { name: "a.png", mimeType: "image/png", buffer: PNG },
        { name: "b.png", mimeType: "image/png", buffer: PNG },
      ]);
      await view.getByText("2 files chosen: at most 1 file allowed").waitFor();
      await screenshot(page, "renderer-upload-refused");
      await assertAccessible(page, "svc-model");
      await page.waitForTimeout(300);
      assert.deepEqual(await stateOf(page, "uploads"), {}, "nothing was stored");

      // Files within the bounds are stored, and the reasons go.
      await receipt.setInputFiles({ name: "dot.png", mimeType: "image/png", buffer: PNG });
      await receipts.setInputFiles({ name: "a.png", mimeType: "image/png", buffer: PNG });
      const state = await untilState(page, "uploads", (s) => s.doc !== undefined && Array.isArray(s.docs));
      assert.equal((state.doc as Record<string, unknown>).$mediaType, "image/png");
      assert.equal((state.docs as unknown[]).length, 1);
      assert.deepEqual([...await messagesOf("doc"), ...await messagesOf("docs")], []);
    },
  ));

Deno.test("the renderer: a region selector offers its country's regions and lets go of one when the country changes", () =>
  withEmbeddedSpec(
    specOf("places", {
      type: "object",
      properties: { country: { type: "string" }, region: { type: "string" } },
    }, [
      { id: "country", type: "countrySelector", bind: "$.country", label: "Country" },
      {
        id: "region",
        type: "countryRegionSelector",
        bind: "$.region",
        label: "Region",
        dependsOn: "$.country",
        options: [
          { value: "BE", label: "Berlin", country: "DE" },
          { value: "BY", label: "Bavaria", country: "DE" },
          { value: "FR-IDF", label: "Île-de-France" },
          { value: "elsewhere", label: "Elsewhere" },
        ],
      },
    ]),
    { heading: "Main" },
    async (page, view) => {
      const country = view.getByLabel("Country", { exact: true });
      const region = view.getByLabel("Region", { exact: true });
      const offered = () => region.locator("option").allInnerTexts();
      assert.deepEqual(await offered(), ["—", "Elsewhere"]);

      await country.selectOption("DE");
      await untilState(page, "places", (s) => s.country === "DE");
      await page.waitForFunction(
        (select) => (select as HTMLSelectElement).options.length === 4,
        await region.elementHandle(),
      );
      assert.deepEqual(await offered(), ["—", "Berlin", "Bavaria", "Elsewhere"]);
      await region.selectOption({ label: "Berlin" });
      await untilState(page, "places", (s) => s.region === "BE");

      // Berlin is no region of France: it goes from the state and the field.
      await country.selectOption("FR");
      await untilState(page, "places", (s) => s.country === "FR" && !("region" in s));
      await page.waitForFunction(
        (select) => (select as HTMLSelectElement).options.length === 3,
        await region.elementHandle(),
      );
      assert.deepEqual(await offered(), ["—", "Île-de-France", "Elsewhere"]);
      assert.equal(await region.inputValue(), "");
      await screenshot(page, "renderer-region-follows-country");

      // A region offered for every country stays.
      await region.selectOption({ label: "Elsewhere" });
      await untilState(page, "places", (s) => s.region === "elsewhere");
      await country.selectOption("DE");
      await untilState(page, "places", (s) => s.country === "DE");
      await page.waitForTimeout(300);
      assert.equal((await stateOf(page, "places") as Record<string, unknown>).region, "elsewhere");
      assert.equal(await region.inputValue(), "elsewhere");
    },
  ));
