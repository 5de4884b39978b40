/// <reference lib="dom" />
/**
 * The view renderer keeps the person's place while another writer moves
 * section list rows, in Chromium: the field they are typing in stays focused
 * on its row, with their uncommitted text and caret, and their Enter writes
 * that row; when their row is gone, focus goes to the list, which says the
 * edit was not saved, and nothing is written. After the person's own Add, the
 * new row's first field takes the focus.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { stateOf, withEmbeddedSpec } from "./embedded_spec.ts";
import { screenshot } from "./journey.ts";
import { keepOnly, linesOf, valuesOf } from "./lines_writer.ts";
import { LINES_LIST, linesSchema } from "./fixtures/lines_list.ts";

/** A model `focus` whose view lists `lines` (a number `N`, a text `D`), rows a, b, c, d at first. */
const SPEC = {
  id: "focus",
  schema: linesSchema(["a", "b", "c", "d"].map((d, i) => ({ n: i + 1, d }))),
  viewDefinition: { defaultView: "main", views: [{ id: "main", label: "Main", components: [LINES_LIST] }] },
};

/** The D field of row `i` (from 0). */
const dOf = (view: Locator, i: number) => view.getByLabel("D", { exact: true }).nth(i);

/** Types `text` at the end of `field`'s own text (nothing is written: no Enter, no leaving it), caret at `caret`. */
async function typeUncommitted(field: Locator, text: string, caret: number): Promise<void> {
  await field.click();
  await field.press("End");
  await field.pressSequentially(text);
  await field.evaluate((el, caret) => (el as HTMLInputElement).setSelectionRange(caret, caret), caret);
}

/** Whether `field` is focused, its text, and its caret. */
function focusOf(field: Locator): Promise<{ focused: boolean; value: string; caret: number | null }> {
  return field.evaluate((el) => {
    const input = el as HTMLInputElement;
    return { focused: input.matches(":focus"), value: input.value, caret: input.selectionStart };
  });
}

/** The person types `more` at the caret and enters it: the model's lines then show `expected`. */
async function enterAndLands(page: Page, more: string, expected: string[]): Promise<void> {
  await page.keyboard.type(more);
  await page.keyboard.press("Enter");
  await until(
    page,
    `the lines ${expected}`,
    async () => JSON.stringify(await linesOf(page, "focus")) === JSON.stringify(expected),
  );
}

// Lit's keyed rows keep the DOM of the rows below a removed one in place, so this held before focus_keeper.ts
// too: it guards the common case.
Deno.test("the renderer: the field a person types in stays focused, text and caret intact, when another writer removes a row above", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // The person types into row c's D, caret after its "c"; another writer removes row a.
    await typeUncommitted(dOf(view, 2), "x", 1);
    await keepOnly(page, "focus", ["b", "c", "d"]);
    await untilValues(page, view, "N", ["2", "3", "4"]);
    await screenshot(page, "renderer-focus-row-above-removed");
    assert.deepEqual(
      await focusOf(dOf(view, 1)),
      { focused: true, value: "cx", caret: 1 },
      "row c, now second",
    );
    assert.deepEqual(await linesOf(page, "focus"), ["b", "c", "d"], "nothing of the typing was written");
    // What they type goes in at the caret, and Enter writes row c.
    await enterAndLands(page, "y", ["b", "cyx", "d"]);
  }));

Deno.test("the renderer: the field a person types in follows its row when another writer reorders the rows", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // The person types into row b's D, caret after its "b"; another writer shuffles the rows, row b first.
    await typeUncommitted(dOf(view, 1), "z", 1);
    await keepOnly(page, "focus", ["b", "d", "a", "c"]);
    await untilValues(page, view, "N", ["2", "4", "1", "3"]);
    await screenshot(page, "renderer-focus-rows-shuffled");
    assert.deepEqual(
      await focusOf(dOf(view, 0)),
      { focused: true, value: "bz", caret: 1 },
      "row b, now first",
    );
    assert.deepEqual(await linesOf(page, "focus"), ["b", "d", "a", "c"], "nothing of the typing was written");
    // Then puts row b last.
    await keepOnly(page, "focus", ["d", "a", "c", "b"]);
    await untilValues(page, view, "N", ["4", "1", "3", "2"]);
    assert.deepEqual(
      await focusOf(dOf(view, 3)),
      { focused: true, value: "bz", caret: 1 },
      "row b, now last",
    );
    assert.deepEqual(await linesOf(page, "focus"), ["d", "a", "c", "b"], "nothing of the typing was written");
    // Enter, typing nothing more, writes row b.
    await enterAndLands(page, "", ["d", "a", "c", "bz"]);
  }));

/** The N field (a number input) of row `i` (from 0). */
const nOf = (view: Locator, i: number) => view.getByLabel("N", { exact: true }).nth(i);

// A number input has no caret a page can read or set (selectionStart is null, setSelectionRange throws).
Deno.test("the renderer: the number field a person types in keeps its focus and typed number when another writer moves its row", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // The person types "7" after row c's N (3): 37, not entered.
    await nOf(view, 2).click();
    await nOf(view, 2).press("End");
    await nOf(view, 2).pressSequentially("7");
    await keepOnly(page, "focus", ["b", "c", "d"]);
    await untilValues(page, view, "D", ["b", "c", "d"]);
    await screenshot(page, "renderer-focus-number-row-above-removed");
    assert.deepEqual(
      await focusOf(nOf(view, 1)),
      { focused: true, value: "37", caret: null },
      "row c, now second",
    );
    assert.deepEqual(await valuesOf(view, "N"), ["2", "37", "4"]);
    // Reversed, Lit's keyed rows take row c out of the page and put it back: it keeps them too.
    await keepOnly(page, "focus", ["d", "c", "b"]);
    await untilValues(page, view, "D", ["d", "c", "b"]);
    assert.deepEqual(
      await focusOf(nOf(view, 1)),
      { focused: true, value: "37", caret: null },
      "row c, moved",
    );
    const state = await stateOf(page, "focus") as { lines: { n: number; d: string }[] };
    assert.deepEqual(state.lines.map((line) => line.n), [4, 3, 2], "nothing of the typing was written");
    // Enter writes row c.
    await page.keyboard.press("Enter");
    await until(page, "row c's N written", async () => {
      const { lines } = await stateOf(page, "focus") as { lines: { n: number }[] };
      return JSON.stringify(lines.map((line) => line.n)) === "[4,37,2]";
    });
  }));

Deno.test("the renderer: when another writer removes the row a person types in, focus goes to the list, which says so", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    await typeUncommitted(dOf(view, 2), "q", 1);
    await keepOnly(page, "focus", ["a", "b", "d"]);
    await untilValues(page, view, "N", ["1", "2", "4"]);
    const list = view.getByRole("region", { name: "Lines" });
    await list.getByText("the edit was not saved").waitFor();
    await screenshot(page, "renderer-focus-row-gone");
    assert.equal(await list.evaluate((el) => el.matches(":focus")), true, "the list has the focus");
    // Enter goes nowhere: nothing of the typing is written, no other row changes.
    await page.keyboard.press("Enter");
    await laterWriteLands(page, view, ["az", "b", "d"]);
    assert.deepEqual(await valuesOf(view, "D"), ["az", "b", "d"]);
  }));

/** The Remove button of row `i` (from 0). */
const removeOf = (view: Locator, i: number) => view.getByRole("button", { name: /^Remove lines/ }).nth(i);

/** Whether `element` has the focus. */
const focused = (element: Locator) => element.evaluate((el) => el.matches(":focus"));

Deno.test("the renderer: when another writer removes the row whose Remove a person is on, focus goes to the list, which says so", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    await removeOf(view, 2).focus();
    await keepOnly(page, "focus", ["a", "b", "d"]);
    await untilValues(page, view, "D", ["a", "b", "d"]);
    const list = view.getByRole("region", { name: "Lines" });
    await list.getByText("The row was removed meanwhile (another writer).").waitFor();
    await screenshot(page, "renderer-focus-remove-row-gone");
    // Not on row d's Remove: the Enter the person meant for row c would remove row d.
    assert.equal(await focused(list), true, "the list has the focus");
    await page.keyboard.press("Enter");
    await laterWriteLands(page, view, ["az", "b", "d"]);
  }));

Deno.test("the renderer: the person's own Remove hands the focus to the next row's Remove (the one before, last), then to the list", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    await removeOf(view, 1).focus();
    await page.keyboard.press("Enter");
    await untilValues(page, view, "D", ["a", "c", "d"]);
    assert.equal(await focused(removeOf(view, 1)), true, "row c's Remove, now second");
    await page.keyboard.press("Enter");
    await untilValues(page, view, "D", ["a", "d"]);
    assert.equal(await focused(removeOf(view, 1)), true, "row d's Remove, now second");
    // Row d is the last: row a's Remove, before it, takes the focus.
    await page.keyboard.press("Enter");
    await untilValues(page, view, "D", ["a"]);
    assert.equal(await focused(removeOf(view, 0)), true, "row a's Remove");
    await page.keyboard.press("Enter");
    const list = view.getByRole("region", { name: "Lines" });
    await list.getByText("None yet.").waitFor();
    await screenshot(page, "renderer-focus-own-removes");
    assert.equal(await focused(list), true, "the list, empty, has the focus");
    assert.deepEqual(await linesOf(page, "focus"), []);
    assert.equal(await list.getByText("another writer").count(), 0, "nothing is said");
  }));

Deno.test("the renderer: the person's own Remove hands the focus on also when another writer's reload showed the row gone before its answer came", () =>
  withEmbeddedSpec(
    {
      ...SPEC,
      schema: { ...SPEC.schema, properties: { ...SPEC.schema.properties, note: { type: "string" } } },
    },
    { heading: "Main" },
    async (page, view) => {
      // The view's patch answers wait for the page's word once committed: the removal is in the model, its
      // answer not yet in the view.
      await page.evaluate(() => {
        const element = document.querySelector("svc-model")!.shadowRoot!.querySelector("svc-view")!;
        const shown = element as unknown as {
          invoker: { invoke(op: { name: string }, input: unknown): unknown };
        };
        const real = shown.invoker;
        const answers = globalThis as unknown as { answer?: Promise<void>; letAnswer?: () => void };
        answers.answer = new Promise<void>((resolve) => answers.letAnswer = resolve);
        shown.invoker = {
          invoke: async (op, input) => {
            const answer = await real.invoke(op, input);
            if (op.name === "patch") await answers.answer;
            return answer;
          },
        };
      });
      await removeOf(view, 1).focus();
      await page.keyboard.press("Enter");
      await until(page, "row b's removal committed", async () => (await linesOf(page, "focus")).length === 3);
      // Another writer's commit meanwhile: its reload shows the rows without row b.
      await page.evaluate(async () =>
        (await import("/svc-embed.js")).mutate("focus", { "$.note": "meanwhile" })
      );
      await untilValues(page, view, "D", ["a", "c", "d"]);
      await page.evaluate(() => (globalThis as unknown as { letAnswer(): void }).letAnswer());
      const list = view.getByRole("region", { name: "Lines" });
      await until(page, "the answer shown", async () => await focused(removeOf(view, 1)));
      assert.equal(await list.getByText("another writer").count(), 0, "nothing is said of another writer");
    },
  ));

Deno.test("the renderer: after the person's Add (Enter on it), the new row's first field has the focus", () =>
  withEmbeddedSpec(
    {
      ...SPEC,
      viewDefinition: {
        defaultView: "main",
        views: [{
          id: "main",
          label: "Main",
          components: [{ ...LINES_LIST, canAdd: true, addLabel: "Add a line" }],
        }],
      },
    },
    { heading: "Main" },
    async (page, view) => {
      await view.getByRole("button", { name: "Add a line" }).press("Enter");
      const n = view.getByLabel("N", { exact: true });
      await until(page, "the new row", async () => await n.count() === 5);
      // Before, the focus stayed on Add, and nothing told a keyboard or screen reader user that a row had come.
      await until(page, "the new row's N focused", () => n.nth(4).evaluate((el) => el.matches(":focus")));
      await page.keyboard.type("5");
      await page.keyboard.press("Tab");
      await page.keyboard.type("e");
      await page.keyboard.press("Enter");
      await until(page, "the new row's D", async () => (await linesOf(page, "focus")).join() === "a,b,c,d,e");
      assert.deepEqual((await stateOf(page, "focus") as { lines: unknown[] }).lines.at(-1), { n: 5, d: "e" });
      await screenshot(page, "renderer-focus-added-row");
    },
  ));

/** Waits until `holds` (Playwright's waitForFunction takes an async predicate's promise for a truthy answer). */
async function until(page: Page, what: string, holds: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 30_000; !await holds();) {
    if (Date.now() > end) throw new Error(`${what} never came`);
    await page.waitForTimeout(20);
  }
}

/**
 * What a keypress did has landed once a later write of the person's has (this page's writes reach the model in
 * the order they are made): they add "z" to row a's D and enter it; the lines then are `expected`.
 */
async function laterWriteLands(page: Page, view: Locator, expected: string[]): Promise<void> {
  await dOf(view, 0).click();
  await dOf(view, 0).press("End");
  await page.keyboard.type("z");
  await page.keyboard.press("Enter");
  await until(page, "row a's later write", async () => (await linesOf(page, "focus"))[0] === "az");
  assert.deepEqual(await linesOf(page, "focus"), expected);
}

/** Waits until the fields labelled `label` show `values`. */
function untilValues(page: Page, view: Locator, label: string, values: string[]): Promise<void> {
  return until(
    page,
    `the ${label} fields showing ${values}`,
    async () => JSON.stringify(await valuesOf(view, label)) === JSON.stringify(values),
  );
}
