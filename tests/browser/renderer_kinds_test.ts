/// <reference lib="dom" />
/**
 * The view renderer on a spec using all 26 component record kinds
 * (fixtures/every_kind.ts), embedded with `<svc-model>`: every kind renders,
 * inputs write back (schema and constraint messages at their fields), a
 * button runs its handler, menus navigate between views, tabs follow the arrow
 * keys, Home and End, a file upload becomes a BlobRef shown by an image, a section list adds
 * rows a table and a chart show, an effect's status chip offers Retry. Each
 * tab passes axe-core; no console errors.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Locator, Page } from "playwright-core";
import { stateOf, withEmbeddedSpec } from "./embedded_spec.ts";
import { EVERY_KIND, KIND_SAMPLES } from "./fixtures/every_kind.ts";
import { assertAccessible, screenshot } from "./journey.ts";

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** Component ids the view shows now. */
function shownComponents(page: Page): Promise<string[]> {
  return page.locator("svc-view").evaluate((view) =>
    [...view.shadowRoot!.querySelectorAll("[data-component]")].map((e) => e.getAttribute("data-component")!)
  );
}

/** Runs `journey` on a page embedding the spec of every kind, once its first view shows. */
function withEveryKind(journey: (page: Page, view: Locator) => Promise<void>): Promise<void> {
  return withEmbeddedSpec(EVERY_KIND, { heading: "Every kind" }, journey);
}

Deno.test("the renderer: all 26 record kinds render, write back, navigate and stay accessible", () =>
  withEveryKind(async (page, view) => {
    const seen = new Set(await shownComponents(page));
    for (const tab of ["Displays", "Panels", "Inputs"]) {
      await view.getByRole("tab", { name: tab }).click();
      for (const id of await shownComponents(page)) seen.add(id);
      await assertAccessible(page, "svc-model");
    }
    await view.getByRole("button", { name: "Second view" }).click();
    await view.getByRole("heading", { name: "Second view" }).waitFor();
    for (const id of await shownComponents(page)) seen.add(id);
    await view.getByRole("button", { name: "Back" }).click();
    await view.getByRole("heading", { name: "Every kind" }).waitFor();
    const missing = Object.entries(KIND_SAMPLES).flatMap(([kind, ids]) =>
      ids.filter((id) => !seen.has(id)).map((id) => `${kind}: ${id}`)
    );
    assert.equal(Object.keys(KIND_SAMPLES).length, 26);
    assert.deepEqual(missing, []);

    const enter = async (label: string, value: string) => {
      await view.getByLabel(label, { exact: true }).fill(value);
      await view.getByLabel(label, { exact: true }).press("Enter");
    };
    await enter("Name", "A");
    await view.getByText("must NOT have fewer than 2 characters").waitFor();
    await enter("Name", "Ada");
    await enter("Count", "3");
    await enter("Count", "200");
    await view.getByText("Count above 100").waitFor();
    await view.getByRole("button", { name: "Double the count" }).click();
    await view.getByLabel("I agree").check();
    await view.getByLabel("Size").selectOption({ label: "Large" });
    await view.getByRole("radio", { name: "Blue" }).check();
    await view.getByRole("checkbox", { name: "Card" }).check();
    await enter("Tags", "a, b");
    await enter("From", "2024-01-01");
    await enter("To", "2024-02-01");
    await view.getByLabel("Picture file").setInputFiles({
      name: "dot.png",
      mimeType: "image/png",
      buffer: PNG,
    });
    await view.getByText("Stored: image/png (", { exact: false }).waitFor();

    // The arrow keys move between tabs (wrapping), Home and End to the first and last (WAI-ARIA tabs).
    const focusedTab = () => view.evaluate((el) => el.shadowRoot!.activeElement?.textContent?.trim());
    await view.getByRole("tab", { name: "Inputs" }).focus();
    await page.keyboard.press("End");
    await view.getByRole("tab", { name: "Panels", selected: true }).waitFor();
    assert.equal(await focusedTab(), "Panels");
    await page.keyboard.press("Home");
    await view.getByRole("tab", { name: "Inputs", selected: true }).waitFor();
    assert.equal(await focusedTab(), "Inputs");
    await page.keyboard.press("ArrowRight");
    await view.getByRole("tab", { name: "Displays", selected: true }).waitFor();
    assert.equal(await focusedTab(), "Displays");
    await view.getByText("Doubled").first().waitFor();
    assert.equal(await view.locator('[data-component="doubled"] output').textContent(), "12");
    assert.match(await view.locator('img[data-component="picture"]').getAttribute("src") ?? "", /^blob:/);

    await view.getByRole("tab", { name: "Panels" }).click();
    // The refused 200 (doubled 400) was never committed, so the explanation lists committed values only.
    const why = view.locator('[data-component="explain"] li');
    await why.filter({ hasText: "$.doubled = 12" }).waitFor();
    assert.match(await why.first().textContent() ?? "", /^\$\.doubled = \d+ from count \* 2$/);
    // The creation computed nothing (no count yet): explain keeps no `(no value)` row from before any write.
    assert.ok(
      !(await why.allTextContents()).some((row) => row.includes("(no value)")),
      "nothing from before",
    );
    assert.ok(!(await why.allTextContents()).some((row) => row.includes("= 400")), "no refused value");
    await view.getByRole("button", { name: "Add a row" }).click();
    await enter("Row label", "first");
    await enter("Row value", "5");
    await page.evaluate(async () => {
      const embed = await import("/svc-embed.js");
      await embed.mutate("every-kind", { "$.io": { phase: "failed", error: "timeout" } });
    });
    await view.getByText("Failed", { exact: true }).waitFor();
    await view.getByText("timeout").waitFor();
    await view.getByRole("button", { name: "Sync again" }).click();
    await view.getByText("Queued", { exact: true }).waitFor();
    await screenshot(page, "renderer-panels");
    await view.getByRole("tab", { name: "Displays" }).click();
    await view.getByRole("cell", { name: "first" }).waitFor();
    await screenshot(page, "renderer-displays");
    await view.getByRole("tab", { name: "Inputs" }).click();
    await screenshot(page, "renderer-inputs");
  }));

Deno.test("the renderer keeps what a person types into a field while an earlier write of it commits", () =>
  withEveryKind(async (page, view) => {
    const count = view.getByLabel("Count", { exact: true });
    // 3 entered (leaving the field writes it), then 200 typed before that write commits and re-renders.
    // Typed as a person types (insertText), in one task, so the write cannot commit in between.
    const shown = await count.evaluate(async (input: HTMLInputElement) => {
      input.focus();
      input.select();
      document.execCommand("insertText", false, "3");
      input.blur();
      input.focus();
      input.select();
      document.execCommand("insertText", false, "200");
      await new Promise((resolve) => setTimeout(resolve, 500));
      return input.value;
    });
    assert.equal(shown, "200");
    await count.press("Enter");
    await view.getByText("Count above 100").waitFor();
    // Once the person has left the field, it shows the state again.
    await view.getByLabel("Name", { exact: true }).focus();
    await page.evaluate(async () => {
      const embed = await import("/svc-embed.js");
      await embed.mutate("every-kind", { "$.count": 7 });
    });
    await page.waitForFunction(
      (input) => (input as HTMLInputElement).value === "7",
      await count.elementHandle(),
    );
  }));

Deno.test("the renderer shows the state of a choice whose write was refused, beside the reason", () =>
  withEveryKind(async (_page, view) => {
    const active = view.getByRole("switch", { name: "Active" });
    await active.click();
    await view.getByText("Agree before activating").waitFor();
    assert.equal(await active.isChecked(), false, "the refused switch shows the state: off");
    await view.getByLabel("I agree").check();
    await active.click();
    // An accepted write turns it on.
    await view.getByRole("switch", { name: "Active", checked: true }).waitFor();
  }));

/** Links a stranger could write into a view or a model's data. */
const LINKS = {
  id: "links",
  schema: {
    type: "object",
    properties: { site: { type: "string", default: "javascript:window.__pwned='bound'" } },
  },
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Links",
      components: [
        { id: "web", type: "link", text: "Docs", href: "https://example.org/docs" },
        { id: "written", type: "link", text: "Written", href: "javascript:window.__pwned='written'" },
        {
          id: "disguised",
          type: "link",
          text: "Disguised",
          href: " JaVa\tScRiPt:window.__pwned='disguised'",
        },
        { id: "bound", type: "link", text: "Bound", bind: "$.site" },
      ],
    }],
  },
};

Deno.test("links open http(s), mailto and relative addresses only: a javascript: one, written or bound, is inert", () =>
  withEveryKind(async (page, view) => {
    await page.evaluate((spec) => {
      (document.querySelector("svc-model") as unknown as { spec: unknown }).spec = JSON.parse(spec);
    }, JSON.stringify(LINKS));
    await view.getByRole("heading", { name: "Links" }).waitFor();
    assert.equal(
      await view.getByRole("link", { name: "Docs" }).getAttribute("href"),
      "https://example.org/docs",
    );
    for (const name of ["Written", "Disguised", "Bound"]) {
      assert.equal(await view.getByRole("link", { name }).count(), 0, `${name} is no link`);
      await view.getByText(name, { exact: true }).click();
    }
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned), undefined);
  }));

/** Fields whose `type` is mistyped: the renderer draws each as a basic input for its value. */
const MISTYPED = {
  id: "mistyped",
  schema: {
    type: "object",
    properties: {
      guests: { type: "integer", default: 2 },
      vegetarian: { type: "boolean", default: false },
      note: { type: "string", default: "" },
    },
  },
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Mistyped",
      components: [
        { id: "guests", type: "integerField", label: "Guests", bind: "$.guests" },
        { id: "vegetarian", type: "checkBox", label: "Vegetarian", bind: "$.vegetarian" },
        { id: "note", type: "textBox", label: "Note", bind: "$.note" },
      ],
    }],
  },
};

Deno.test("an unknown type draws a number box for a number, a checkbox for a boolean, else a text box", () =>
  withEmbeddedSpec(MISTYPED, { heading: "Mistyped" }, async (page, view) => {
    const guests = view.getByRole("spinbutton", { name: "Guests" });
    await guests.fill("5");
    await guests.press("Enter");
    await view.getByRole("checkbox", { name: "Vegetarian" }).check();
    await view.getByRole("textbox", { name: "Note" }).fill("no nuts");
    await view.getByRole("textbox", { name: "Note" }).press("Enter");
    await page.waitForFunction(async () => {
      const embed = await import("/svc-embed.js");
      const state = await (await embed.createModelService()).getState("mistyped");
      return state.note === "no nuts";
    });
    assert.deepEqual(await stateOf(page, "mistyped"), { guests: 5, vegetarian: true, note: "no nuts" });
  }));
