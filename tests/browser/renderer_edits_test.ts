/// <reference lib="dom" />
/**
 * The view renderer editing a model as a person does, in Chromium: emptying
 * fields, date-times and times in the page's time zone, read-only fields, the
 * messages of section list rows and of fields another writer changed, a menu
 * item whose view cannot be shown, a button whose write is refused (it stays), a
 * chart of negative values, a view's onOpen and onClose, and a wizard's steps
 * (what holds Next, refused choices).
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { stateOf, withEmbeddedSpec } from "./embedded_spec.ts";
import { assertAccessible, screenshot } from "./journey.ts";
import { LINES_LIST, linesSchema } from "./fixtures/lines_list.ts";

/** A spec `id` whose one view `Main` holds `components`. */
function specOf(id: string, schema: unknown, components: unknown[], rest: Record<string, unknown> = {}) {
  return {
    id,
    schema,
    ...rest,
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

Deno.test("the renderer: an emptied optional field loses its value; an emptied required one says it is required", () =>
  withEmbeddedSpec(
    specOf("clearing", {
      type: "object",
      required: ["qty"],
      properties: {
        qty: { type: "integer", default: 1 },
        discount: { type: "number" },
        day: { type: "string", format: "date" },
        pick: { type: "string", enum: ["a", "b"] },
        note: { type: "string", minLength: 2 },
      },
    }, [
      { id: "qty", type: "numericField", bind: "$.qty", label: "Quantity" },
      { id: "discount", type: "numericField", bind: "$.discount", label: "Discount" },
      { id: "day", type: "dateField", bind: "$.day", label: "Day" },
      {
        id: "pick",
        type: "selectField",
        bind: "$.pick",
        label: "Pick",
        options: [{ value: "a", label: "A" }, {
          value: "b",
          label: "B",
        }],
      },
      { id: "note", type: "textField", bind: "$.note", label: "Note" },
    ]),
    { heading: "Main" },
    async (page, view) => {
      await enter(view, "Discount", "5");
      await enter(view, "Day", "2024-01-02");
      await view.getByLabel("Pick").selectOption({ label: "A" });
      await enter(view, "Note", "hello");
      await untilState(
        page,
        "clearing",
        (s) =>
          s.discount === 5 && s.day === "2024-01-02" && s.pick === "a" &&
          s.note === "hello",
      );

      await enter(view, "Discount", "");
      await enter(view, "Day", "");
      await view.getByLabel("Pick").selectOption({ index: 0 });
      await enter(view, "Note", "");
      await untilState(page, "clearing", (s) => JSON.stringify(s) === JSON.stringify({ qty: 1 }));
      assert.equal(await view.getByLabel("Pick").inputValue(), "", "the select shows no choice");
      assert.deepEqual(await view.locator(".messages").allInnerTexts(), []);

      await enter(view, "Quantity", "");
      await view.getByText("is required by the schema and cannot be removed").waitFor();
      await screenshot(page, "renderer-emptied-fields");
      assert.equal((await stateOf(page, "clearing") as Record<string, unknown>).qty, 1);
      assert.deepEqual(await view.locator(".messages").allInnerTexts(), [
        "is required by the schema and cannot be removed",
      ]);
      // The field shows the value the model kept (the person's Enter leaves it focused), beside the reason.
      const quantity = view.getByLabel("Quantity");
      await page.waitForFunction(
        (input) => (input as HTMLInputElement).value === "1",
        await quantity.elementHandle(),
      );
      assert.equal(
        await quantity.evaluate((input) => input === (input.getRootNode() as ShadowRoot).activeElement),
        true,
      );
      assert.equal(await quantity.getAttribute("aria-invalid"), "false");
      await screenshot(page, "renderer-required-kept");
    },
  ));

Deno.test("the renderer: date-times show in the page's time zone and are written in UTC, times with their offset", () =>
  withEmbeddedSpec(
    specOf("clock", {
      type: "object",
      properties: {
        moment: { type: "string", format: "date-time", default: "2024-05-06T07:08:00Z" },
        at: { type: "string", format: "time", default: "07:08:00Z" },
      },
    }, [
      { id: "moment", type: "dateTimeField", bind: "$.moment", label: "Moment" },
      { id: "at", type: "timeField", bind: "$.at", label: "At" },
    ]),
    { heading: "Main", timezoneId: "Europe/Berlin" },
    async (page, view) => {
      // 07:08 UTC is 09:08 in Berlin in May (summer time).
      assert.equal(await view.getByLabel("Moment").inputValue(), "2024-05-06T09:08");
      assert.equal(await view.getByLabel("At").inputValue(), "07:08");

      await enter(view, "Moment", "2024-12-24T18:30");
      await enter(view, "At", "09:15");
      // The offset a time is written with is today's in Berlin (+01:00 or +02:00).
      const offset = await page.evaluate(() => -new Date().getTimezoneOffset());
      const expected = `09:15:00+0${offset / 60}:00`;
      await untilState(page, "clock", (s) => s.moment === "2024-12-24T17:30:00Z" && s.at === expected);
      assert.deepEqual(await view.locator(".messages").allInnerTexts(), []);
      assert.equal(await view.getByLabel("Moment").inputValue(), "2024-12-24T18:30");
      assert.equal(await view.getByLabel("At").inputValue(), "09:15");
      await screenshot(page, "renderer-date-times");
    },
  ));

Deno.test("the renderer: a field bound to a derived or a schema readOnly field is read-only", () =>
  withEmbeddedSpec(
    specOf("locked", {
      type: "object",
      properties: {
        qty: { type: "number", default: 1 },
        code: { type: "string", readOnly: true, default: "fixed" },
      },
    }, [
      { id: "qty", type: "numericField", bind: "$.qty", label: "Quantity" },
      { id: "total", type: "numericField", bind: "$.total", label: "Total" },
      { id: "code", type: "textField", bind: "$.code", label: "Code" },
    ], { derivations: [{ path: "$.total", expr: "qty * 2" }] }),
    { heading: "Main" },
    async (page, view) => {
      assert.equal(await view.getByLabel("Quantity").isEditable(), true);
      assert.equal(await view.getByLabel("Total").isEditable(), false);
      assert.equal(await view.getByLabel("Code").isEditable(), false);
      assert.equal(await view.getByLabel("Total").inputValue(), "2");
      assert.equal(await view.getByLabel("Code").inputValue(), "fixed");
      await assertAccessible(page, "svc-model");
      await screenshot(page, "renderer-read-only");
    },
  ));

Deno.test("the renderer: removing a section list row takes its messages along and moves up those below", () =>
  withEmbeddedSpec(
    specOf("rows", linesSchema([{ n: 1 }, { n: 2 }, { n: 3 }]), [LINES_LIST]),
    { heading: "Main" },
    async (page, view) => {
      const rows = view.locator(".section-item");
      const messagesOf = async () =>
        await Promise.all((await rows.all()).map((row) => row.locator(".messages").allInnerTexts()));
      await enter(view, "N", "-1", 1);
      await view.getByText("must be >= 0").waitFor();
      await enter(view, "D", "long", 2);
      await view.getByText("must NOT have more than 3 characters").waitFor();
      assert.deepEqual(await messagesOf(), [[], ["must be >= 0"], ["must NOT have more than 3 characters"]]);

      await view.getByRole("button", { name: "Remove lines 2" }).click();
      await rows.nth(2).waitFor({ state: "detached" });
      await untilState(page, "rows", (s) => JSON.stringify(s.lines) === JSON.stringify([{ n: 1 }, { n: 3 }]));
      assert.deepEqual(await messagesOf(), [[], ["must NOT have more than 3 characters"]]);
      await screenshot(page, "renderer-row-removed");

      await view.getByRole("button", { name: "Remove lines 1" }).click();
      await rows.nth(1).waitFor({ state: "detached" });
      assert.deepEqual(await messagesOf(), [["must NOT have more than 3 characters"]]);
    },
  ));

Deno.test("the renderer: a field's message goes once another writer changes its value", () =>
  withEmbeddedSpec(
    specOf(
      "shared",
      { type: "object", properties: { qty: { type: "integer", default: 1 }, note: { type: "string" } } },
      [
        { id: "qty", type: "numericField", bind: "$.qty", label: "Quantity" },
        { id: "note", type: "textField", bind: "$.note", label: "Note" },
      ],
      {
        derivations: [{ path: "$.total", expr: "qty * 10" }],
        constraints: [{
          id: "cap",
          path: "$.qty",
          expr: "total <= 100",
          message: "Total over 100",
          policy: "rollback",
        }],
      },
    ),
    { heading: "Main" },
    async (page, view) => {
      await enter(view, "Quantity", "50");
      await view.getByText("Total over 100").waitFor();
      await view.getByLabel("Note").focus();
      // Another writer sets a value that holds: the refused one's message no longer applies.
      await page.evaluate(async () => {
        const embed = await import("/svc-embed.js");
        await embed.mutate("shared", { "$.note": "unrelated" });
      });
      await page.waitForFunction(
        (input) => (input as HTMLInputElement).value === "unrelated",
        await view.getByLabel("Note").elementHandle(),
      );
      assert.equal(await view.getByText("Total over 100").count(), 1, "a change elsewhere keeps it");
      await page.evaluate(async () => {
        const embed = await import("/svc-embed.js");
        await embed.mutate("shared", { "$.qty": 7 });
      });
      await page.waitForFunction(
        (input) => (input as HTMLInputElement).value === "7",
        await view.getByLabel("Quantity").elementHandle(),
      );
      await view.getByText("Total over 100").waitFor({ state: "detached" });
    },
  ));

Deno.test("the renderer: a refused write's rule, at a field it did not write, goes with the next write", () =>
  withEmbeddedSpec(
    specOf(
      "range",
      {
        type: "object",
        properties: { start: { type: "integer" }, end: { type: "integer" }, qty: { type: "integer" } },
      },
      [
        { id: "start", type: "numericField", bind: "$.start", label: "Start" },
        { id: "end", type: "numericField", bind: "$.end", label: "End" },
        { id: "qty", type: "numericField", bind: "$.qty", label: "Quantity" },
      ],
      {
        constraints: [{
          id: "order",
          path: ["$.start", "$.end"],
          expr: "$not($exists(start) and $exists(end)) or start <= end",
          message: "Start must not be after end",
          policy: "rollback",
        }],
      },
    ),
    { heading: "Main" },
    async (page, view) => {
      await enter(view, "Start", "5");
      await enter(view, "End", "10");
      await untilState(page, "range", (state) => state.end === 10);
      await enter(view, "End", "3");
      const [start, end] = [view.locator('[data-component="start"]'), view.locator('[data-component="end"]')];
      await end.locator("li.error").getByText("Start must not be after end").waitFor();
      // Start shows the model's value, which the refusal left alone: the rule is a warning there, not an error.
      await start.locator("li.warning").getByText("Start must not be after end").waitFor();
      assert.equal(await view.getByLabel("Start", { exact: true }).getAttribute("aria-invalid"), "false");
      await screenshot(page, "renderer-refused-rule-beside");

      // A write elsewhere succeeds: Start, which is fine, loses the message; End still shows the refused entry.
      await enter(view, "Quantity", "2");
      await untilState(page, "range", (state) => state.qty === 2);
      await start.locator(".messages").waitFor({ state: "detached" });
      assert.equal(await view.getByLabel("End", { exact: true }).inputValue(), "3");
      await end.locator("li.error").getByText("Start must not be after end").waitFor();
      await screenshot(page, "renderer-refused-rule-after-next-write");
    },
  ));

Deno.test("the renderer: a price a rule on the quantity refuses says why, beside the entry refused", () =>
  withEmbeddedSpec(
    specOf(
      "priced",
      { type: "object", properties: { qty: { type: "integer" }, price: { type: "number" } } },
      [
        { id: "qty", type: "numericField", bind: "$.qty", label: "Quantity" },
        { id: "price", type: "numericField", bind: "$.price", label: "Price" },
      ],
      {
        constraints: [{
          id: "cap",
          path: "$.qty",
          expr: "$not($exists(price)) or qty * price <= 100",
          message: "Total over 100",
          policy: "rollback",
        }],
      },
    ),
    { heading: "Main" },
    async (page, view) => {
      await enter(view, "Quantity", "50");
      await untilState(page, "priced", (state) => state.qty === 50);
      await enter(view, "Price", "3");
      await view.locator('[data-component="price"] li.error').getByText("Total over 100").waitFor();
      assert.equal(await view.getByLabel("Price", { exact: true }).getAttribute("aria-invalid"), "true");
      await view.locator('[data-component="qty"] li.warning').getByText("Total over 100").waitFor();
      await screenshot(page, "renderer-refused-rule-of-another-field");
    },
  ));

Deno.test("the renderer: another view opens without the messages of the view left, though it binds the same fields", () =>
  withEmbeddedSpec(
    {
      id: "moving",
      schema: { type: "object", properties: { age: { type: "number", minimum: 0 } } },
      viewDefinition: {
        defaultView: "entry",
        views: [
          {
            id: "entry",
            label: "Entry",
            components: [
              { id: "age", type: "numericField", bind: "$.age", label: "Age" },
              { id: "menu", type: "menu", menuItems: [{ label: "To summary", targetView: "summary" }] },
            ],
          },
          {
            id: "summary",
            label: "Summary",
            components: [
              { id: "age", type: "numericField", bind: "$.age", label: "Age" },
              { id: "menu", type: "menu", menuItems: [{ label: "To entry", targetView: "entry" }] },
            ],
          },
        ],
      },
    },
    { heading: "Entry" },
    async (_page, view) => {
      const messages = () => view.locator(".messages").allInnerTexts();
      await enter(view, "Age", "-3");
      await view.getByText("must be >= 0").waitFor();
      await view.getByRole("button", { name: "To summary" }).click();
      await view.getByRole("heading", { name: "Summary" }).waitFor();
      assert.deepEqual(await messages(), [], "the refused entry belonged to the view left");
      assert.equal(await view.getByLabel("Age", { exact: true }).inputValue(), "", "the model's value: none");
      assert.equal(
        await view.evaluate((el) => el.shadowRoot?.activeElement?.textContent),
        "Summary",
        "the person goes on from the new view's title",
      );
      await view.getByRole("button", { name: "To entry" }).click();
      await view.getByRole("heading", { name: "Entry" }).waitFor();
      assert.deepEqual(await messages(), []);
    },
  ));

Deno.test("the renderer: a menu item whose view cannot be shown keeps the current view, the reason above it", () =>
  withEmbeddedSpec(
    {
      id: "nav",
      schema: { type: "object" },
      viewDefinition: {
        defaultView: "main",
        views: [
          {
            id: "main",
            label: "Main",
            components: [{
              id: "menu",
              type: "menu",
              menuItems: [{ label: "Go to second", targetView: "second" }],
            }],
          },
          { id: "second", label: "Second", components: [] },
        ],
      },
    },
    { heading: "Main" },
    async (page, view) => {
      // The view `second` cannot be read (as when a server no longer has it).
      await view.evaluate((element) => {
        const el = element as unknown as {
          invoker: { invoke(op: { name: string }, input: { viewId?: string }): Promise<unknown> };
          navigations: string[];
        };
        const real = el.invoker;
        el.navigations = [];
        element.addEventListener(
          "svc-navigate",
          (e) => el.navigations.push((e as CustomEvent).detail.viewId),
        );
        el.invoker = {
          invoke: (op, input) =>
            op.name === "getView" && input.viewId === "second"
              ? Promise.reject(new Error("View 'second' not found in model 'nav'"))
              : real.invoke(op, input),
        };
      });
      await view.getByRole("button", { name: "Go to second" }).click();
      await view.getByRole("alert").filter({ hasText: "View 'second' not found in model 'nav'" }).waitFor();
      await screenshot(page, "renderer-missing-view");
      assert.equal(await view.getByRole("heading", { name: "Main" }).count(), 1);
      assert.equal(await view.getByRole("button", { name: "Go to second" }).isEnabled(), true);
      assert.deepEqual(
        await view.evaluate((el) => (el as unknown as { navigations: string[] }).navigations),
        [],
      );
    },
  ));

Deno.test("the renderer: a button whose write is refused does not go to its handler's view", () =>
  withEmbeddedSpec(
    {
      id: "refusedGo",
      schema: { type: "object", properties: { n: { type: "number", minimum: 0 } } },
      viewDefinition: {
        defaultView: "main",
        views: [
          {
            id: "main",
            label: "Main",
            components: [
              { id: "n", type: "numericField", bind: "$.n", label: "N" },
              {
                id: "go",
                type: "button",
                text: "Save and go",
                onClick: { mutations: "{'$.n': -1}", navigate: "done" },
              },
            ],
          },
          { id: "done", label: "Done", components: [] },
        ],
      },
    },
    { heading: "Main" },
    async (page, view) => {
      await view.getByRole("button", { name: "Save and go" }).click();
      // The refusal shows beside the field, in the view the person is still in (before, it went with the view).
      await view.getByText("must be >= 0").waitFor();
      await screenshot(page, "renderer-refused-handler-stays");
      assert.equal(await view.getByRole("heading", { name: "Main" }).count(), 1);
      assert.equal(await view.evaluate((el) => (el as unknown as { viewId: string }).viewId), "");
      assert.deepEqual(await stateOf(page, "refusedGo"), {});
    },
  ));

Deno.test("the renderer: a bar chart draws negative values below a zero baseline", () =>
  withEmbeddedSpec(
    specOf("signs", {
      type: "object",
      properties: {
        rows: { type: "array", items: { type: "object" }, default: [{ a: -5, b: 3 }, { a: 10, b: -2 }] },
      },
    }, [{
      id: "chart",
      type: "dataChart",
      bind: "$.rows",
      label: "Signs",
      chartType: "bar",
      chartSeries: [{ field: "a", label: "A" }, { field: "b", label: "B" }],
    }]),
    { heading: "Main" },
    async (page, view) => {
      const chart = view.locator('[data-component="chart"]');
      const zero = Number(await chart.locator("line.baseline").getAttribute("y1"));
      const bars = await chart.locator("rect").evaluateAll((rects) =>
        rects.map((r) => ({ y: Number(r.getAttribute("y")), height: Number(r.getAttribute("height")) }))
      );
      // Series A (-5, 10), then series B (3, -2): negatives hang from the baseline, positives stand on it.
      const [aNeg, aPos, bPos, bNeg] = bars;
      for (const bar of bars) assert.ok(bar.height > 0, JSON.stringify(bars));
      assert.deepEqual([aNeg.y, bNeg.y], [zero, zero]);
      assert.deepEqual([aPos.y + aPos.height, bPos.y + bPos.height], [zero, zero]);
      assert.ok(Math.abs(aNeg.height / aPos.height - 0.5) < 1e-9, "heights are to scale");
      await screenshot(page, "renderer-negative-bars");
    },
  ));

Deno.test("the renderer: a view's onOpen runs each time it shows; tabs and wizard layouts show one part at a time", () =>
  withEmbeddedSpec(
    {
      id: "layouts",
      schema: { type: "object", properties: { name: { type: "string" }, age: { type: "number" } } },
      viewDefinition: {
        defaultView: "main",
        views: [
          {
            id: "main",
            label: "Main",
            layout: "tabs",
            onOpen: { mutations: "{'$.opens': ($exists(opens) ? opens : 0) + 1}" },
            components: [
              { id: "intro", type: "staticText", text: "Welcome" },
              {
                id: "who",
                type: "tabItem",
                label: "Who",
                components: [{ id: "name", type: "textField", bind: "$.name", label: "Name" }],
              },
              {
                id: "ages",
                type: "group",
                label: "Age",
                components: [{ id: "age", type: "numericField", bind: "$.age", label: "Age" }],
              },
              {
                id: "more",
                type: "card",
                label: "More",
                components: [{
                  id: "go",
                  type: "menu",
                  label: "Go",
                  menuItems: [{ label: "Sign up", targetView: "signup" }],
                }],
              },
            ],
          },
          {
            id: "signup",
            label: "Sign up",
            layout: "wizard",
            components: [
              {
                id: "s1",
                type: "group",
                label: "Your name",
                components: [{ id: "n", type: "textField", bind: "$.name", label: "Name" }],
              },
              {
                id: "s2",
                type: "fieldSet",
                legend: "Your age",
                components: [{ id: "a", type: "numericField", bind: "$.age", label: "Age" }],
              },
              {
                id: "s3",
                type: "card",
                label: "Finish",
                components: [{ id: "done", type: "button", text: "Done", onClick: { navigate: "main" } }],
              },
              { id: "cancel", type: "button", text: "Cancel", onClick: { navigate: "main" } },
            ],
          },
        ],
      },
    },
    { heading: "Main" },
    async (page, view) => {
      await untilState(page, "layouts", (s) => s.opens === 1);
      await view.getByRole("tab", { name: "Who", selected: true }).waitFor();
      assert.deepEqual(await view.getByRole("tab").allInnerTexts(), ["Who", "Age", "More"]);
      await view.getByLabel("Name").waitFor();
      assert.equal(await view.getByLabel("Age").count(), 0, "one tab at a time");
      // A component that is not a tab stays where it is, above the tabs.
      await view.getByText("Welcome").waitFor();
      await view.getByRole("tab", { name: "Age" }).click();
      // The tab panel is labelled by its tab too: the field is the spin button.
      const age = view.getByRole("spinbutton", { name: "Age" });
      await age.fill("41");
      await age.press("Enter");
      assert.equal(await view.getByLabel("Name").count(), 0);
      await assertAccessible(page, "svc-model");
      await screenshot(page, "renderer-tabs-view");

      await view.getByRole("tab", { name: "More" }).click();
      await view.getByRole("button", { name: "Sign up" }).click();
      await view.getByRole("heading", { name: "Sign up" }).waitFor();
      await view.getByText("Step 1 of 3", { exact: true }).waitFor();
      assert.equal(await view.getByRole("button", { name: "Back" }).isDisabled(), true);
      await enter(view, "Name", "Ada");
      assert.equal(await view.getByLabel("Age").count(), 0, "one step at a time");
      await view.getByRole("button", { name: "Next" }).click();
      await view.getByText("Step 2 of 3", { exact: true }).waitFor();
      await view.getByRole("region", { name: "Step 2 of 3: Your age" }).waitFor();
      await view.getByRole("button", { name: "Cancel" }).waitFor();
      assert.equal(await view.getByRole("spinbutton", { name: "Age" }).inputValue(), "41");
      assert.equal(await view.getByLabel("Name").count(), 0);
      await assertAccessible(page, "svc-model");
      await screenshot(page, "renderer-wizard-view");
      await view.getByRole("button", { name: "Back" }).click();
      await view.getByText("Step 1 of 3", { exact: true }).waitFor();
      await view.getByRole("button", { name: "Next" }).click();
      await view.getByRole("button", { name: "Next" }).click();
      assert.equal(await view.getByRole("button", { name: "Next" }).isDisabled(), true);
      await view.getByRole("button", { name: "Done" }).click();
      await view.getByRole("heading", { name: "Main" }).waitFor();
      await untilState(page, "layouts", (s) => s.opens === 2 && s.name === "Ada" && s.age === 41);
    },
  ));

Deno.test("the renderer: two views whose onOpen navigates to each other stop after one round", () =>
  withEmbeddedSpec(
    {
      id: "ping",
      schema: { type: "object" },
      viewDefinition: {
        defaultView: "a",
        views: [
          {
            id: "a",
            label: "Ping",
            onOpen: { mutations: "{'$.a': ($exists(a) ? a : 0) + 1}", navigate: "b" },
          },
          {
            id: "b",
            label: "Pong",
            onOpen: { mutations: "{'$.b': ($exists(b) ? b : 0) + 1}", navigate: "a" },
          },
        ],
      },
    },
    { heading: "Ping" },
    async (page, view) => {
      await page.waitForTimeout(1000);
      assert.deepEqual(await stateOf(page, "ping"), { a: 1, b: 1 });
      assert.equal(await view.getByRole("heading", { name: "Ping" }).count(), 1);
    },
  ));

Deno.test("the renderer: a wizard's Next and its last step's buttons go on only once the step's fields are complete", () =>
  withEmbeddedSpec(
    {
      id: "steps",
      schema: {
        type: "object",
        properties: {
          name: { type: "string" },
          nick: { type: "string" },
          age: { type: "number", minimum: 0 },
          pets: { type: "number", default: 20 },
          email: { type: "string" },
        },
      },
      metaDerivations: [
        { path: "$.name", property: "required", expr: "true" },
        { path: "$.email", property: "required", expr: "true" },
        // Required but not relevant: hidden, so it holds nobody.
        { path: "$.nick", property: "required", expr: "true" },
        { path: "$.nick", property: "relevant", expr: "false" },
      ],
      constraints: [{
        id: "age",
        path: "$.age",
        expr: "$not($exists(age)) or age <= 120",
        message: "Nobody is that old",
        policy: "rollback",
      }],
      viewDefinition: {
        defaultView: "signup",
        views: [{
          id: "signup",
          label: "Sign up",
          layout: "wizard",
          components: [
            {
              id: "you",
              type: "group",
              label: "You",
              components: [
                { id: "name", type: "textField", bind: "$.name", label: "Name" },
                { id: "nick", type: "textField", bind: "$.nick", label: "Nickname" },
              ],
            },
            {
              id: "numbers",
              type: "group",
              label: "Numbers",
              components: [
                { id: "age", type: "numericField", bind: "$.age", label: "Age" },
                { id: "pets", type: "numericStepper", bind: "$.pets", label: "Pets", min: 0, max: 10 },
              ],
            },
            {
              id: "finish",
              type: "card",
              label: "Finish",
              components: [
                { id: "email", type: "emailField", bind: "$.email", label: "Email" },
                { id: "done", type: "button", text: "Done", onClick: { mutations: "{'$.done': true}" } },
              ],
            },
          ],
        }],
      },
    },
    { heading: "Sign up" },
    async (page, view) => {
      const next = view.getByRole("button", { name: "Next" });
      const step = (n: number) => view.getByText(`Step ${n} of 3`, { exact: true }).waitFor();
      const messages = () => view.locator(".messages").allInnerTexts();
      await next.click();
      await view.getByText("is required").waitFor();
      await step(1);
      assert.deepEqual(await messages(), ["is required"], "the hidden required field holds nobody");
      await screenshot(page, "renderer-wizard-required");

      // Typed, not entered: Next waits for the write its click set off.
      await view.getByLabel("Name").fill("Ada");
      await next.click();
      await step(2);

      await enter(view, "Age", "-3");
      await view.getByText("must be >= 0").waitFor();
      await next.click();
      await page.waitForTimeout(300);
      await step(2);
      await enter(view, "Age", "200");
      await view.getByText("Nobody is that old").waitFor();
      await next.click();
      await page.waitForTimeout(300);
      await step(2);
      await enter(view, "Age", "41");
      await view.getByText("Nobody is that old").waitFor({ state: "detached" });
      // The stepper's default, 20, is over its max.
      await next.click();
      await view.getByText("must be <= 10").waitFor();
      await step(2);
      await screenshot(page, "renderer-wizard-max");
      // Back is always allowed.
      await view.getByRole("button", { name: "Back" }).click();
      await step(1);
      await next.click();
      await step(2);
      await enter(view, "Pets", "3");
      await view.getByText("must be <= 10").waitFor({ state: "detached" });
      await next.click();
      await step(3);

      await view.getByRole("button", { name: "Done" }).click();
      await view.getByText("is required").waitFor();
      assert.equal((await stateOf(page, "steps") as Record<string, unknown>).done, undefined);
      await enter(view, "Email", "ada@example.org");
      await view.getByRole("button", { name: "Done" }).click();
      await untilState(
        page,
        "steps",
        (s) => s.done === true && s.name === "Ada" && s.age === 41 && s.pets === 3,
      );
      assert.deepEqual(await messages(), []);
      await assertAccessible(page, "svc-model");
    },
  ));

Deno.test("the renderer: a press on a wizard's Next lands though the field it leaves commits and loses its message meanwhile", () =>
  withEmbeddedSpec(
    {
      id: "press",
      schema: { type: "object", properties: { name: { type: "string" }, city: { type: "string" } } },
      metaDerivations: [{ path: "$.name", property: "required", expr: "true" }],
      viewDefinition: {
        defaultView: "signup",
        views: [{
          id: "signup",
          label: "Sign up",
          layout: "wizard",
          components: [
            {
              id: "you",
              type: "group",
              label: "You",
              components: [{ id: "name", type: "textField", bind: "$.name", label: "Name" }],
            },
            {
              id: "where",
              type: "group",
              label: "Where",
              components: [{ id: "city", type: "textField", bind: "$.city", label: "City" }],
            },
          ],
        }],
      },
    },
    { heading: "Sign up" },
    async (page, view) => {
      const next = view.getByRole("button", { name: "Next" });
      await next.click();
      await view.getByText("is required").waitFor();
      await view.getByLabel("Name").fill("Ada");
      const committed = page.evaluate(() =>
        new Promise<void>((resolve) =>
          document.addEventListener("svc-commit", () => resolve(), { once: true })
        )
      );
      // A slow hand (or a loaded machine): the press blurs Name, whose write commits and renders before
      // the release. Next must not move out from under the pointer meanwhile.
      await next.hover();
      await page.mouse.down();
      await committed;
      await page.evaluate(() =>
        new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))
      );
      await page.mouse.up();
      await view.getByText("Step 2 of 2", { exact: true }).waitFor();
      assert.equal((await stateOf(page, "press") as Record<string, unknown>).name, "Ada");
      assert.deepEqual(await view.locator(".messages").allInnerTexts(), []);
    },
  ));

Deno.test("the renderer: a view's onClose runs when a person leaves it for another view or the element leaves the page", () =>
  withEmbeddedSpec(
    {
      id: "leaving",
      schema: { type: "object" },
      viewDefinition: {
        defaultView: "a",
        views: [
          {
            id: "a",
            label: "First",
            onOpen: { mutations: "{'$.aOpens': ($exists(aOpens) ? aOpens : 0) + 1}" },
            onClose: { mutations: "{'$.aCloses': ($exists(aCloses) ? aCloses : 0) + 1}" },
            components: [{ id: "go", type: "menu", menuItems: [{ label: "To second", targetView: "b" }] }],
          },
          {
            id: "b",
            label: "Second",
            // Its navigate is not followed: the person is on the way to another view already.
            onClose: { mutations: "{'$.bCloses': ($exists(bCloses) ? bCloses : 0) + 1}", navigate: "c" },
            components: [{ id: "back", type: "button", text: "Back to first", onClick: { navigate: "a" } }],
          },
          { id: "c", label: "Third", components: [] },
        ],
      },
    },
    { heading: "First" },
    async (page, view) => {
      const counts = async () => {
        const s = await stateOf(page, "leaving") as Record<string, unknown>;
        return [s.aOpens, s.aCloses, s.bCloses];
      };
      await untilState(page, "leaving", (s) => s.aOpens === 1);
      await view.getByRole("button", { name: "To second" }).click();
      await view.getByRole("heading", { name: "Second" }).waitFor();
      await untilState(page, "leaving", (s) => s.aCloses === 1);
      await view.getByRole("button", { name: "Back to first" }).click();
      await untilState(page, "leaving", (s) => s.bCloses === 1 && s.aOpens === 2);
      await page.waitForTimeout(300);
      assert.equal(await view.getByRole("heading", { name: "First" }).count(), 1);
      assert.deepEqual(await counts(), [2, 1, 1]);

      // Moved in the page: not closed.
      await page.evaluate(() => document.body.append(document.querySelector("svc-model")!));
      await page.waitForTimeout(300);
      assert.deepEqual(await counts(), [2, 1, 1]);
      // Removed: closed; put back: opened again.
      await page.evaluate(() => {
        const model = document.querySelector("svc-model")!;
        (globalThis as unknown as { removed: Element }).removed = model;
        model.remove();
      });
      await untilState(page, "leaving", (s) => s.aCloses === 2);
      await page.evaluate(() =>
        document.body.append((globalThis as unknown as { removed: Element }).removed)
      );
      await untilState(page, "leaving", (s) => s.aOpens === 3);
      assert.deepEqual(await counts(), [3, 2, 1]);
    },
  ));

Deno.test("the renderer: an element switched to another model closes the view left on its own model and reads the new spec", () => {
  /** A model `id` whose button writes its own constant; its view counts its closes. */
  const counter = (id: string, word: string) => ({
    id,
    schema: { type: "object" },
    constants: { word },
    viewDefinition: {
      defaultView: "main",
      views: [{
        id: "main",
        label: `Model ${id}`,
        onClose: { mutations: "{'$.closes': ($exists(closes) ? closes : 0) + 1}" },
        components: [{
          id: "say",
          type: "button",
          text: "Say",
          onClick: { mutations: "{'$.said': $const.word}" },
        }],
      }],
    },
  });
  return withEmbeddedSpec(counter("first", "one"), { heading: "Model first" }, async (page, view) => {
    await page.evaluate((json) => {
      (document.querySelector("svc-model") as unknown as { spec: unknown }).spec = JSON.parse(json);
    }, JSON.stringify(counter("second", "two")));
    await view.getByRole("heading", { name: "Model second" }).waitFor();
    await untilState(page, "first", (s) => s.closes === 1);
    await view.getByRole("button", { name: "Say" }).click();
    const second = await untilState(page, "second", (s) => s.said !== undefined);
    assert.equal(second.said, "two", "the handler reads the shown model's constants");
    assert.equal(second.closes, undefined);
  });
});

Deno.test("the renderer: a refused choice goes back to the model's value, its reason a warning that holds no wizard step", () =>
  withEmbeddedSpec(
    {
      id: "choices",
      schema: {
        type: "object",
        properties: {
          email: { type: "string" },
          news: { type: "boolean" },
          plan: { type: "string" },
          size: { type: "string", enum: ["S", "M"] },
          level: { type: "integer", maximum: 5, default: 2 },
          note: { type: "string" },
        },
      },
      constraints: [
        {
          id: "news",
          path: "$.news",
          expr: "$not(news = true and $not($exists(email)))",
          message: "Give an email first",
          policy: "rollback",
        },
        {
          id: "plan",
          path: "$.plan",
          expr: "$not(plan = 'pro' and $not(news = true))",
          message: "Pro comes with the newsletter",
          policy: "rollback",
        },
      ],
      viewDefinition: {
        defaultView: "order",
        views: [{
          id: "order",
          label: "Order",
          layout: "wizard",
          components: [
            {
              id: "pick",
              type: "group",
              label: "Choices",
              components: [
                { id: "news", type: "checkboxField", bind: "$.news", label: "Newsletter" },
                {
                  id: "plan",
                  type: "radioField",
                  bind: "$.plan",
                  label: "Plan",
                  options: [{ value: "free", label: "Free" }, { value: "pro", label: "Pro" }],
                },
                {
                  id: "size",
                  type: "selectField",
                  bind: "$.size",
                  label: "Size",
                  options: ["S", "M", "L"].map((value) => ({ value, label: value })),
                },
                { id: "level", type: "sliderField", bind: "$.level", label: "Level", min: 0, max: 10 },
              ],
            },
            {
              id: "last",
              type: "group",
              label: "Last",
              components: [{ id: "note", type: "textField", bind: "$.note", label: "Note" }],
            },
          ],
        }],
      },
    },
    { heading: "Order" },
    async (page, view) => {
      const step = (n: number) => view.getByText(`Step ${n} of 2`, { exact: true }).waitFor();
      const shown = (id: string) =>
        view.locator(`[data-component="${id}"] .messages li`).evaluateAll((items) =>
          items.map((li) => `${li.className}: ${li.textContent}`)
        );
      /** Next goes on past the refused choice; Back comes back for the next one. */
      const nextGoesOn = async () => {
        await view.getByRole("button", { name: "Next" }).click();
        await step(2);
        await view.getByRole("button", { name: "Back" }).click();
        await step(1);
      };
      const news = view.getByLabel("Newsletter");
      await news.click();
      await view.getByText("Give an email first").waitFor();
      assert.equal(await news.isChecked(), false, "the refused tick goes back");
      // Ticked again, refused again: still a warning, nothing to clear.
      await news.click();
      await page.waitForTimeout(300);
      assert.equal(await news.isChecked(), false);
      assert.deepEqual(await shown("news"), ["warning: Give an email first"]);
      await screenshot(page, "renderer-refused-choice");
      await nextGoesOn();

      await view.getByLabel("Pro").click();
      await view.getByText("Pro comes with the newsletter").waitFor();
      assert.equal(await view.getByLabel("Pro").isChecked(), false, "the refused radio goes back");
      assert.deepEqual(await shown("plan"), ["warning: Pro comes with the newsletter"]);
      await nextGoesOn();

      const size = view.getByLabel("Size");
      await size.selectOption({ label: "L" });
      await view.locator('[data-component="size"] .messages li').first().waitFor();
      assert.equal(await size.inputValue(), "", "the refused option goes back to none");
      assert.equal(await size.getAttribute("aria-invalid"), "false");
      assert.ok((await shown("size")).every((m) => m.startsWith("warning: ")), String(await shown("size")));
      await screenshot(page, "renderer-refused-select");
      await nextGoesOn();

      // A slider moved past the schema's maximum goes back to the model's value too.
      const level = view.getByLabel("Level");
      await level.evaluate((input: HTMLInputElement) => {
        input.value = "8";
        input.dispatchEvent(new Event("change", { bubbles: true }));
      });
      await view.locator('[data-component="level"] .messages li').first().waitFor();
      assert.equal(await level.inputValue(), "2", "the refused position goes back");
      assert.ok((await shown("level")).every((m) => m.startsWith("warning: ")), String(await shown("level")));
      await nextGoesOn();
      assert.deepEqual(await stateOf(page, "choices"), { level: 2 });
    },
  ));

Deno.test('the renderer: a wizard\'s "is required" goes once the field is required no more or hidden, unwritten', () =>
  withEmbeddedSpec(
    {
      id: "relax",
      schema: {
        type: "object",
        properties: {
          kind: { type: "string", default: "person" },
          first: { type: "string" },
          call: { type: "boolean", default: true },
          phone: { type: "string" },
          note: { type: "string" },
        },
      },
      metaDerivations: [
        { path: "$.first", property: "required", expr: "kind = 'person'" },
        { path: "$.phone", property: "required", expr: "true" },
        { path: "$.phone", property: "relevant", expr: "call = true" },
      ],
      viewDefinition: {
        defaultView: "contact",
        views: [{
          id: "contact",
          label: "Contact",
          layout: "wizard",
          components: [
            {
              id: "who",
              type: "group",
              label: "Who",
              components: [
                {
                  id: "kind",
                  type: "radioField",
                  bind: "$.kind",
                  label: "Kind",
                  options: [{ value: "person", label: "Person" }, { value: "company", label: "Company" }],
                },
                { id: "first", type: "textField", bind: "$.first", label: "First name" },
                { id: "phone", type: "phoneNumberField", bind: "$.phone", label: "Phone" },
              ],
            },
            {
              id: "last",
              type: "group",
              label: "Last",
              components: [{ id: "note", type: "textField", bind: "$.note", label: "Note" }],
            },
          ],
        }],
      },
    },
    { heading: "Contact" },
    async (page, view) => {
      const required = (id: string) => view.locator(`[data-component="${id}"] .messages`);
      /** The addresses the element holds messages for (those of hidden fields too). */
      const held = () =>
        view.evaluate((
          element,
        ) => [...(element as unknown as { messages: Map<string, unknown> }).messages.keys()]);
      await view.getByRole("button", { name: "Next" }).click();
      await required("first").getByText("is required").waitFor();
      await required("phone").getByText("is required").waitFor();
      await screenshot(page, "renderer-wizard-required-two");

      // Written through the view: the delta of the write makes the first name optional.
      await view.getByLabel("Company").click();
      await required("first").waitFor({ state: "detached" });
      assert.deepEqual(await held(), ["$.phone"]);
      await screenshot(page, "renderer-wizard-required-relaxed");

      // Another writer hides the phone (a reload of the view): its message goes, and does not come back with it.
      await page.evaluate(async () => {
        const embed = await import("/svc-embed.js");
        await embed.mutate("relax", { "$.call": false });
      });
      await view.getByLabel("Phone").waitFor({ state: "detached" });
      assert.deepEqual(await held(), []);
      await page.evaluate(async () => {
        const embed = await import("/svc-embed.js");
        await embed.mutate("relax", { "$.call": true });
      });
      await view.getByLabel("Phone").waitFor();
      assert.deepEqual(await held(), []);
      assert.equal(await required("phone").count(), 0);
    },
  ));
