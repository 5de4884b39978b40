/// <reference lib="dom" />
/**
 * The view renderer while another writer changes the model, in Chromium:
 * section list rows removed or moved by the other writer take their messages,
 * row keys and the person's edits along; a Remove pressed on a render from before such a
 * change removes the row the person saw, or nothing when it is gone, and a row's
 * button does nothing once its row is gone; a row's tab follows it; the answer to
 * a write under way when rows moved lands on the right rows, and one that lands after
 * the person went to another view, or the element to another model, leaves it alone
 * (its onChange runs on the model written); a refused write's message,
 * a rule's refused or flagged (and follows its row later), and a Remove racing another
 * writer's reload land on the right rows, a rule's not in a view the person went to; a
 * deleted model is not shown again by a load that was under way; an edit or a Remove the
 * model gets after another writer removed a row above lands on no other row (the person
 * is told), and two quick edits of a row both land; so does a row's handler (a button's, a
 * row field's onChange), and an edit or a button of a row that shows nothing else to tell
 * it by; a row this element wrote that another writer moved keeps its message and entry;
 * an edit below the person's own Remove under way lands on its row; a write's onChange
 * does not run once the person went to another view.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";
import { stateOf, withEmbeddedSpec } from "./embedded_spec.ts";
import { screenshot } from "./journey.ts";
import { keepOnly, linesOf, valuesOf } from "./lines_writer.ts";
import { LINES_LIST, linesSchema } from "./fixtures/lines_list.ts";

/** A model `others` whose view lists `lines` (a number `N`, a text `D`), rows a, b, c, d at first. */
const SPEC = {
  id: "others",
  schema: linesSchema(["a", "b", "c", "d"].map((d, i) => ({ n: i + 1, d }))),
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Main",
      components: [LINES_LIST],
    }],
  },
};

/** {@link SPEC} with tabs and a button navigating to another view in each row. */
const SPEC_WITH_TABS = {
  ...SPEC,
  viewDefinition: {
    defaultView: "main",
    views: [{
      ...SPEC.viewDefinition.views[0],
      components: [{
        ...SPEC.viewDefinition.views[0].components[0],
        components: [
          ...SPEC.viewDefinition.views[0].components[0].components,
          {
            id: "more",
            type: "tabs",
            label: "More",
            components: ["One", "Two"].map((label) => ({
              id: label.toLowerCase(),
              type: "tabItem",
              label,
              components: [{ id: `${label}Text`, type: "staticText", text: `Tab ${label}` }],
            })),
          },
          { id: "open", type: "button", text: "Open", onClick: { navigate: "other" } },
        ],
      }],
    }, {
      id: "other",
      label: "Other",
      components: [{ id: "note", type: "staticText", text: "The other view." }],
    }],
  },
};

/** The state of model `others` of {@link SPEC}. */
type State = { lines: { n: number; d: string }[] };

/**
 * Waits until model `id`'s state satisfies `holds` (Playwright's waitForFunction would not: it takes an async
 * predicate's promise for a truthy answer at once).
 */
async function untilState(page: Page, id: string, holds: (state: unknown) => boolean): Promise<void> {
  for (const end = Date.now() + 30_000; !holds(await stateOf(page, id));) {
    if (Date.now() > end) throw new Error(`model ${id}'s state never came`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Until the element's write is under way and its answer held ({@link holdAnswers}). */
async function untilAnswerHeld(page: Page): Promise<void> {
  await page.waitForFunction(() => (globalThis as unknown as { release?: () => void }).release);
}

/** Enters `value` in `field` and waits until its write is under way and held ({@link holdAnswers}). */
async function enterHeld(page: Page, field: Locator, value: string): Promise<void> {
  await field.fill(value);
  await field.press("Enter");
  await untilAnswerHeld(page);
}

/**
 * Releases the held answer and waits for the element's `event` (`svc-commit`, `svc-error`) and its render; fails
 * when the other one comes instead.
 */
async function releaseAnswer(view: Locator, event: string): Promise<void> {
  const came = await view.evaluate(async (element) => {
    const answered = new Promise<string>((resolve) => {
      for (const type of ["svc-commit", "svc-error"]) {
        element.addEventListener(type, () => resolve(type), { once: true });
      }
    });
    (globalThis as unknown as { release: () => void }).release();
    const type = await answered;
    await (element as unknown as { updateComplete: Promise<unknown> }).updateComplete;
    return type;
  });
  assert.equal(came, event, `the write's answer was ${came}`);
}

/**
 * Holds back the element's answers to `op` (`mutate`, `patch`, or any of a list) until the page calls `release()`; a refused
 * answer held is not reported as unhandled meanwhile. `request`: its requests are held instead (the model
 * gets the write only once released); `once`: only the next call is held; `skip`: that many calls go first.
 */
async function holdAnswers(
  view: Locator,
  op: string | string[],
  { request = false, once = false, skip = 0 } = {},
): Promise<void> {
  await view.evaluate(async (element, [held, request, once, skip]) => {
    const el = element as unknown as {
      invoker: { invoke(op: { name: string }, input: unknown): Promise<unknown> };
      updateComplete: Promise<unknown>;
    };
    const real = el.invoker;
    const page = globalThis as unknown as { release?: () => void };
    let [holds, skipped] = [true, 0];
    el.invoker = {
      invoke: (call, input) => {
        if (!held.includes(call.name) || !holds || skipped++ < skip) return real.invoke(call, input);
        holds = !once;
        if (request) return new Promise((resolve) => page.release = () => resolve(real.invoke(call, input)));
        const answer = real.invoke(call, input);
        answer.catch(() => {});
        return new Promise((resolve) => page.release = () => resolve(answer));
      },
    };
    await el.updateComplete;
  }, [[op].flat(), request, once, skip] as const);
}

/** Holds back the change events the element hears (other writers' changes) until the page calls `hear()`. */
async function holdFeed(view: Locator): Promise<void> {
  await view.evaluate(async (element) => {
    type Listener = (event: unknown) => void;
    const el = element as unknown as {
      feed: { subscribe(id: string, listener: Listener): () => void };
      updateComplete: Promise<unknown>;
    };
    const real = el.feed;
    const held: (() => void)[] = [];
    (globalThis as unknown as { hear: () => void }).hear = () => held.splice(0).forEach((hear) => hear());
    el.feed = {
      subscribe: (id, listener) => real.subscribe(id, (event) => held.push(() => listener(event))),
    };
    await el.updateComplete;
  });
}

/** Waits until the element holds a view of `count` rows (rendered or not). */
async function untilRowsHeld(page: Page, view: Locator, count: number): Promise<void> {
  await page.waitForFunction(
    ([el, count]) =>
      (el as unknown as { view: { components: { components: unknown[] }[] } }).view.components[0].components
        .length === count,
    [await view.elementHandle(), count] as const,
  );
}

Deno.test("the renderer: rows another writer removes or moves take their messages and the person's edits along", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    const rows = view.locator(".section-item");
    const messagesOf = async () =>
      await Promise.all((await rows.all()).map((row) => row.locator(".messages").allInnerTexts()));
    // Row c: a refused entry beside its message, and text being typed into its D.
    const n = view.getByLabel("N", { exact: true }).nth(2);
    await n.fill("-1");
    await n.press("Enter");
    await view.getByText("must be >= 0").waitFor();
    const d = view.getByLabel("D", { exact: true }).nth(2);
    await d.fill("cc");
    await keepOnly(page, "others", ["b", "c", "d"]);
    await rows.nth(3).waitFor({ state: "detached" });
    await screenshot(page, "renderer-others-row-removed");
    assert.deepEqual(await messagesOf(), [[], ["must be >= 0"], []], "the message moved up with row c");
    assert.deepEqual(await valuesOf(view, "N"), ["2", "-1", "4"]);
    assert.deepEqual(await valuesOf(view, "D"), ["b", "cc", "d"]);
    assert.equal(
      await view.getByLabel("D", { exact: true }).nth(1).evaluate((el) => el.matches(":focus")),
      true,
    );
    // The edit lands on its row.
    await view.getByLabel("D", { exact: true }).nth(1).press("Enter");
    await untilState(page, "others", (state) => (state as State).lines[1].d === "cc");
    assert.deepEqual(await linesOf(page, "others"), ["b", "cc", "d"]);

    // Another writer moves row c to the top: its message and refused entry go along.
    await keepOnly(page, "others", ["cc", "b", "d"]);
    await rows.nth(0).getByText("must be >= 0").waitFor();
    assert.deepEqual(await messagesOf(), [["must be >= 0"], [], []]);
    assert.deepEqual(await valuesOf(view, "N"), ["-1", "2", "4"]);
    assert.deepEqual(await valuesOf(view, "D"), ["cc", "b", "d"]);
  }));

Deno.test("the renderer: a Remove pressed on an earlier render removes the row shown there, or nothing once it is gone", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    const rows = view.locator(".section-item");
    // While the button is pressed the view does not render: another writer removes row a meanwhile.
    await view.getByRole("button", { name: "Remove lines 3" }).hover();
    await page.mouse.down();
    await keepOnly(page, "others", ["b", "c", "d"]);
    await untilRowsHeld(page, view, 3);
    assert.equal(await rows.count(), 4, "the render showing row c third is still up");
    await page.mouse.up();
    await rows.nth(2).waitFor({ state: "detached" });
    assert.deepEqual(await linesOf(page, "others"), ["b", "d"], "row c went, not row d");

    // Row b goes while its Remove is pressed: nothing is removed.
    await view.getByRole("button", { name: "Remove lines 1" }).hover();
    await page.mouse.down();
    await keepOnly(page, "others", ["d"]);
    await untilRowsHeld(page, view, 1);
    await page.mouse.up();
    await rows.nth(1).waitFor({ state: "detached" });
    await screenshot(page, "renderer-others-stale-remove");
    assert.deepEqual(await linesOf(page, "others"), ["d"]);
    assert.equal(await rows.count(), 1);
  }));

Deno.test("the renderer: a row's tab follows it when rows move; its button does nothing once it is gone", () =>
  withEmbeddedSpec(SPEC_WITH_TABS, { heading: "Main" }, async (page, view) => {
    const rows = view.locator(".section-item");
    const selected = () =>
      view.getByRole("tab", { name: "Two" }).evaluateAll((tabs) =>
        tabs.map((t) => t.getAttribute("aria-selected"))
      );
    // Row c shows its second tab; another writer removes row a.
    await view.getByRole("tab", { name: "Two" }).nth(2).click();
    await rows.nth(2).getByText("Tab Two").waitFor();
    await keepOnly(page, "others", ["b", "c", "d"]);
    await rows.nth(3).waitFor({ state: "detached" });
    await screenshot(page, "renderer-others-row-tab");
    assert.deepEqual(await selected(), ["false", "true", "false"], "row c, now second, still shows Two");

    // The person removes row b: row c keeps its tab as it moves up.
    await view.getByRole("button", { name: "Remove lines 1" }).click();
    await rows.nth(2).waitFor({ state: "detached" });
    assert.deepEqual(await selected(), ["true", "false"]);

    // Row c goes while its Open is pressed: the button does nothing.
    await view.getByRole("button", { name: "Open" }).nth(0).hover();
    await page.mouse.down();
    await keepOnly(page, "others", ["d"]);
    await untilRowsHeld(page, view, 1);
    await page.mouse.up();
    await rows.nth(1).waitFor({ state: "detached" });
    // A navigation sets the element's viewId at once: it is still the default view's (none).
    assert.equal(await view.evaluate((el) => (el as unknown as { viewId: string }).viewId), "");
    assert.deepEqual(await selected(), ["false"], "row c's tab went with it");
    // A current row's Open does open the other view.
    await view.getByRole("button", { name: "Open" }).nth(0).click();
    await view.getByText("The other view.").waitFor();
  }));

Deno.test("the renderer: the answer to a write under way when another writer moved rows lands on its row", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // The element's writes are answered only when the test says so.
    await holdAnswers(view, "patch");
    // Row c's D is written (the model has it), and another writer removes row a before the answer comes.
    await enterHeld(page, view.getByLabel("D", { exact: true }).nth(2), "cc");
    await untilState(page, "others", (state) => (state as State).lines[2].d === "cc");
    await keepOnly(page, "others", ["b", "cc", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-commit");
    await screenshot(page, "renderer-others-answer-after-move");
    assert.deepEqual(
      await valuesOf(view, "D"),
      ["b", "cc", "d"],
      "the answer (of the rows before) does not bring row a back",
    );
    assert.deepEqual(
      await view.evaluate((el) =>
        (el as unknown as { view: { components: { components: { components: { value: unknown }[] }[] }[] } })
          .view.components[0].components.map((row) => row.components[1].value)
      ),
      ["b", "cc", "d"],
    );
  }));

Deno.test("the renderer: a load under way when the model is deleted does not show it again", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (_page, view) => {
    await view.evaluate(async (element) => {
      const el = element as unknown as {
        invoker: { invoke(op: { name: string }, input: unknown): Promise<unknown> };
        feed: unknown;
        updateComplete: Promise<unknown>;
      };
      const real = el.invoker;
      let hear: (event: unknown) => void = () => {};
      el.feed = { subscribe: (_id: string, listener: typeof hear) => (hear = listener, () => {}) };
      await el.updateComplete;
      let release = () => Promise.resolve();
      const asked = new Promise<void>((resolve) => {
        el.invoker = {
          invoke: (op, input) => {
            if (op.name !== "getView") return real.invoke(op, input);
            const answered = real.invoke(op, input);
            const held = new Promise((answer) => release = async () => answer(await answered));
            resolve();
            return held;
          },
        };
      });
      // Setting the invoker loads the view again: its getView waits, and the model is deleted meanwhile.
      await asked;
      hear({ kind: "deleted", modelId: "others" });
      await release();
      // The load's own continuation runs in microtasks: a task later it is done.
      await new Promise((resolve) => setTimeout(resolve, 0));
      await el.updateComplete;
    });
    assert.deepEqual(await view.getByRole("alert").allInnerTexts(), ["Model 'others' was deleted."]);
    assert.equal(await view.getByRole("heading", { name: "Main" }).count(), 0);
  }));

/** Two views each with a field of id `title`, bound to different rows. */
const SPEC_TWO_TITLES = {
  ...SPEC,
  viewDefinition: {
    defaultView: "main",
    views: [
      {
        id: "main",
        label: "Main",
        components: [{ id: "title", type: "textField", bind: "$.lines[0].d", label: "First" }],
      },
      {
        id: "other",
        label: "Other",
        components: [{ id: "title", type: "textField", bind: "$.lines[1].d", label: "Second" }],
      },
    ],
  },
};

Deno.test("the renderer: the answer to a write under way when the person moved to another view does not land there", () =>
  withEmbeddedSpec(SPEC_TWO_TITLES, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, "mutate");
    // Main's First (row a's D) is written; the person goes to the other view before the answer comes.
    await enterHeld(page, view.getByLabel("First", { exact: true }), "aa");
    await view.evaluate((el) => (el as unknown as { viewId: string }).viewId = "other");
    const second = view.getByLabel("Second", { exact: true });
    await second.waitFor();
    await releaseAnswer(view, "svc-commit");
    await screenshot(page, "renderer-others-answer-after-navigate");
    assert.equal(
      await second.inputValue(),
      "b",
      "the main view's answer does not fill the other view's field",
    );
    assert.deepEqual(
      await view.evaluate((el) =>
        (el as unknown as { view: { components: { value: unknown }[] } }).view.components.map((c) => c.value)
      ),
      ["b"],
    );
    assert.deepEqual(await linesOf(page, "others"), ["aa", "b", "c", "d"]);
  }));

Deno.test("the renderer: a refused write's message lands on its row when another writer moved rows meanwhile", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, "patch");
    // Row c's D is written too long (refused at row index 2); another writer removes row a before the answer.
    await enterHeld(page, view.getByLabel("D", { exact: true }).nth(2), "cccc");
    await keepOnly(page, "others", ["b", "c", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-error");
    await screenshot(page, "renderer-others-refused-after-move");
    // Each D field's message sits beside it, in the field's own wrapper.
    const messages = await view.getByLabel("D", { exact: true }).evaluateAll((inputs) =>
      inputs.map((input) => input.parentElement?.textContent ?? "")
    );
    assert.deepEqual(
      messages.map((text) => /more than 3/.test(text)),
      [false, true, false],
      "the message is on row c (now the second row), not on row d",
    );
  }));

Deno.test("the renderer: another writer's reload during the person's Remove moves the messages once", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // Row d holds a refused entry's message.
    const dField = view.getByLabel("D", { exact: true }).nth(3);
    await dField.fill("dddd");
    await dField.press("Enter");
    await view.getByText("more than 3").waitFor();
    await holdAnswers(view, "patch");
    // The person removes row a (the model has it); another writer removes row b before the answer comes.
    await view.getByRole("button", { name: "Remove" }).first().click();
    await untilAnswerHeld(page);
    await keepOnly(page, "others", ["c", "d"]);
    await untilRowsHeld(page, view, 2);
    await releaseAnswer(view, "svc-commit");
    await screenshot(page, "renderer-others-remove-during-reload");
    const messages = await view.getByLabel("D", { exact: true }).evaluateAll((inputs) =>
      inputs.map((input) => /more than 3/.test(input.parentElement?.textContent ?? ""))
    );
    assert.deepEqual(messages, [false, true], "the message stays on row d, not moved onto row c");
  }));

/**
 * {@link SPEC} with rules over the third row (`$.lines[2]`, by index as the model checks them): its N at most
 * 10 (refused otherwise), its D shorter than 3 characters (flagged otherwise); and a view `other` showing that
 * row's N and D.
 */
const SPEC_RULES = {
  ...SPEC,
  constraints: [
    {
      id: "thirdN",
      path: "$.lines[2].n",
      expr: "lines[2].n <= 10",
      message: "The third N is at most 10",
      policy: "rollback",
    },
    {
      id: "thirdD",
      path: "$.lines[2].d",
      expr: "$length(lines[2].d) < 3",
      message: "The third D is long",
      policy: "flag",
    },
  ],
  viewDefinition: {
    defaultView: "main",
    views: [SPEC.viewDefinition.views[0], {
      id: "other",
      label: "Other",
      components: [
        { id: "thirdN", type: "numericField", bind: "$.lines[2].n", label: "Third N" },
        { id: "thirdD", type: "textField", bind: "$.lines[2].d", label: "Third D" },
      ],
    }],
  },
};

/** Whether each field labelled `label` has `text` beside it (in the field's own wrapper). */
async function besideEach(view: Locator, label: string, text: string): Promise<boolean[]> {
  return await view.getByLabel(label, { exact: true }).evaluateAll(
    (inputs, text) => inputs.map((input) => (input.parentElement?.textContent ?? "").includes(text)),
    text,
  );
}

/** The rows of the view (section list items). */
const rowsOf = (view: Locator) => view.locator(".section-item");

/** A write to row c the third row's rule speaks of: refused (N 100) or committed and flagged (D "ccc"). */
interface RuleCase {
  label: string;
  value: string;
  /** The rule's message (and a part of it), and the element's event answering the write. */
  message: string;
  part: string;
  event: string;
  /** What the rows show after the write (row c's D as the write leaves it). */
  c: string;
  kind: string;
}

const REFUSED_RULE: RuleCase = {
  label: "N",
  value: "100",
  message: "The third N is at most 10",
  part: "at most 10",
  event: "svc-error",
  c: "c",
  kind: "refused",
};
const FLAGGED_RULE: RuleCase = {
  label: "D",
  value: "ccc",
  message: "The third D is long",
  part: "long",
  event: "svc-commit",
  c: "ccc",
  kind: "flagged",
};

/** Row c (third when the model checks it) is written through `rule`; another writer removes row a meanwhile. */
function ruleFollowsRow(rule: RuleCase) {
  return withEmbeddedSpec(SPEC_RULES, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, "patch");
    await enterHeld(page, view.getByLabel(rule.label, { exact: true }).nth(2), rule.value);
    await keepOnly(page, "others", ["b", rule.c, "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, rule.event);
    await screenshot(page, `renderer-others-rule-${rule.kind}-after-move`);
    assert.deepEqual(
      await besideEach(view, rule.label, rule.message),
      [false, true, false],
      "the rule's message is on row c (now second), not on row d (now third)",
    );
    // A later move takes it along: another writer puts row c first.
    await keepOnly(page, "others", [rule.c, "b", "d"]);
    await rowsOf(view).nth(0).getByText(rule.message).waitFor();
    assert.deepEqual(await besideEach(view, rule.label, rule.message), [true, false, false]);
  });
}

Deno.test("the renderer: a refused write's rule message lands on the row the model checked, and follows it", () =>
  ruleFollowsRow(REFUSED_RULE));

Deno.test("the renderer: a rule a write flagged warns on the row the model checked, and follows it", () =>
  ruleFollowsRow(FLAGGED_RULE));

/** Messages the element holds (of every field and the form). */
const messageCount = (view: Locator) =>
  view.evaluate((el) => (el as unknown as { messages: Map<string, unknown> }).messages.size);

/** Row c is written through `rule`; the person goes to the view showing the third row's field alone meanwhile. */
function ruleStaysInItsView(rule: RuleCase, screenshotName: string) {
  return withEmbeddedSpec(SPEC_RULES, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, "patch");
    await enterHeld(page, view.getByLabel(rule.label, { exact: true }).nth(2), rule.value);
    await view.evaluate((el) => (el as unknown as { viewId: string }).viewId = "other");
    const third = view.getByLabel(`Third ${rule.label}`, { exact: true });
    await third.waitFor();
    await releaseAnswer(view, rule.event);
    await screenshot(page, screenshotName);
    assert.equal(await third.inputValue(), rule.kind === "refused" ? "3" : rule.value);
    assert.deepEqual(
      await besideEach(view, `Third ${rule.label}`, rule.part),
      [false],
      "the main view's message",
    );
    assert.equal(await messageCount(view), 0);
  });
}

Deno.test("the renderer: the rule messages of a write answered after the person went to another view stay out of it", () =>
  ruleStaysInItsView(REFUSED_RULE, "renderer-others-rule-after-navigate"));

Deno.test("the renderer: a rule flagged by a write answered after the person went to another view stays out of it", () =>
  ruleStaysInItsView(FLAGGED_RULE, "renderer-others-flag-after-navigate"));

/** The model the element's next `event` (`svc-commit`, `svc-error`) names. */
function modelOfNext(view: Locator, event: string): Promise<unknown> {
  return view.evaluate(
    (el, event) =>
      new Promise((resolve) =>
        el.addEventListener(event, (e) => resolve((e as CustomEvent).detail.modelId), { once: true })
      ),
    event,
  );
}

/** Opens a second model of `spec` (default {@link SPEC_RULES}), `second`, and shows it in the element instead. */
async function showSecond(page: Page, view: Locator, spec: object = SPEC_RULES): Promise<void> {
  await page.evaluate(async (spec) => {
    const embed = await import("/svc-embed.js");
    await embed.open(spec);
  }, { ...spec, id: "second" });
  await view.evaluate((el) => (el as unknown as { modelId: string }).modelId = "second");
  await page.waitForFunction(
    (el) => (el as unknown as { view: { modelId: string } | null }).view?.modelId === "second",
    await view.elementHandle(),
  );
}

Deno.test("the renderer: the answer to a write under way when the element went to another model stays out of it", () =>
  withEmbeddedSpec(SPEC_RULES, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, "patch");
    // Row c's D becomes "ccc" in model others (flagged); the element shows model second, of the same views.
    await enterHeld(page, view.getByLabel("D", { exact: true }).nth(2), "ccc");
    await showSecond(page, view);
    const committed = modelOfNext(view, "svc-commit");
    await releaseAnswer(view, "svc-commit");
    await screenshot(page, "renderer-others-answer-after-model-switch");
    assert.equal(await committed, "others", "the commit is of the model written");
    assert.deepEqual(
      await valuesOf(view, "D"),
      ["a", "b", "c", "d"],
      "model others' answer does not fill model second's fields",
    );
    assert.deepEqual(await besideEach(view, "D", "The third D is long"), [false, false, false, false]);
  }));

Deno.test("the renderer: a refused write's messages stay out of the model the element went to meanwhile", () =>
  withEmbeddedSpec(SPEC_RULES, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, "patch");
    await enterHeld(page, view.getByLabel("N", { exact: true }).nth(2), "100");
    await showSecond(page, view);
    const refused = modelOfNext(view, "svc-error");
    await releaseAnswer(view, "svc-error");
    assert.equal(await refused, "others", "the refusal is of the model written");
    assert.deepEqual(await besideEach(view, "N", "at most 10"), [false, false, false, false]);
  }));

/** A model whose Name, once changed, notes `touched` (its onChange). */
const SPEC_ON_CHANGE = {
  id: "others",
  schema: { type: "object", properties: { name: { type: "string" }, touched: { type: "boolean" } } },
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      label: "Main",
      components: [{
        id: "name",
        type: "textField",
        bind: "$.name",
        label: "Name",
        onChange: { mutations: '{"$.touched": true}' },
      }],
    }],
  },
};

Deno.test("the renderer: the onChange of a write answered after the element went to another model runs on the model written", () =>
  withEmbeddedSpec(SPEC_ON_CHANGE, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, "mutate");
    await enterHeld(page, view.getByLabel("Name", { exact: true }), "Ada");
    await showSecond(page, view, SPEC_ON_CHANGE);
    await releaseAnswer(view, "svc-commit");
    await untilState(page, "others", (state) => (state as { touched?: boolean }).touched === true);
    assert.deepEqual(await stateOf(page, "second"), {}, "the model shown now is left alone");
  }));

/** The state of model `others` as each line's `[n, d]`. */
async function pairsOf(page: Page): Promise<unknown[]> {
  return ((await stateOf(page, "others")) as State).lines.map((line) => [line.n, line.d]);
}

Deno.test("the renderer: an edit that reaches the model after another writer removed a row above lands on no other row", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // The element's writes reach the model only when the test says so.
    await holdAnswers(view, ["mutate", "patch"], { request: true, once: true });
    // The person writes row c's N; another writer removes row a before the model gets the write.
    await enterHeld(page, view.getByLabel("N", { exact: true }).nth(2), "30");
    await keepOnly(page, "others", ["b", "c", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-error");
    await screenshot(page, "renderer-others-edit-row-changed");
    assert.deepEqual(await pairsOf(page), [[2, "b"], [3, "c"], [4, "d"]], "row d (now third) keeps its N");
    assert.deepEqual(await valuesOf(view, "N"), ["2", "30", "4"], "row c's N keeps what the person entered");
    assert.deepEqual(
      await besideEach(view, "N", "This row changed meanwhile"),
      [false, true, false],
      "the person is told on row c's N (now second)",
    );
    // The person writes it again: it lands on row c.
    const again = view.getByLabel("N", { exact: true }).nth(1);
    await again.fill("31");
    await again.press("Enter");
    await untilState(page, "others", (state) => (state as State).lines[1].n === 31);
    assert.deepEqual(await pairsOf(page), [[2, "b"], [31, "c"], [4, "d"]]);
    assert.deepEqual(await besideEach(view, "N", "changed meanwhile"), [false, false, false]);
  }));

Deno.test("the renderer: a Remove that reaches the model after another writer removed a row above removes no other row", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    await holdAnswers(view, ["mutate", "patch"], { request: true, once: true });
    // The person removes row c; another writer removes row a before the model gets the removal.
    await view.getByRole("button", { name: "Remove lines 3" }).click();
    await untilAnswerHeld(page);
    await keepOnly(page, "others", ["b", "c", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-error");
    await screenshot(page, "renderer-others-remove-row-changed");
    assert.deepEqual(await linesOf(page, "others"), ["b", "c", "d"], "row d (now third) is still there");
    assert.equal(await rowsOf(view).count(), 3);
    await view.getByRole("region", { name: "Lines" }).getByText("This row changed meanwhile").waitFor();
    // The person removes it again: row c goes.
    await view.getByRole("button", { name: "Remove lines 2" }).click();
    await untilState(page, "others", (state) => (state as State).lines.length === 2);
    assert.deepEqual(await linesOf(page, "others"), ["b", "d"]);
  }));

Deno.test("the renderer: two quick edits of a row both land (the first's answer still due)", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    const commits = () => view.evaluate((el) => (el as unknown as { commits?: number }).commits ?? 0);
    await view.evaluate((el) =>
      el.addEventListener("svc-commit", () => {
        const counted = el as unknown as { commits?: number };
        counted.commits = (counted.commits ?? 0) + 1;
      })
    );
    await holdAnswers(view, ["mutate", "patch"], { once: true });
    // Row c's N is written (the model has it, its answer is held), then its D.
    await enterHeld(page, view.getByLabel("N", { exact: true }).nth(2), "30");
    const d = view.getByLabel("D", { exact: true }).nth(2);
    await d.fill("cc");
    await d.press("Enter");
    await page.waitForFunction(
      (el) => (el as unknown as { commits?: number }).commits === 1,
      await view.elementHandle(),
    );
    await releaseAnswer(view, "svc-commit");
    await screenshot(page, "renderer-others-two-quick-edits");
    assert.equal(await commits(), 2);
    assert.deepEqual(await pairsOf(page), [[1, "a"], [2, "b"], [30, "cc"], [4, "d"]]);
    // The first answer, of before the second write, does not show row c's D of before.
    assert.deepEqual(await valuesOf(view, "D"), ["a", "b", "cc", "d"]);
    assert.deepEqual(await besideEach(view, "D", "changed meanwhile"), [false, false, false, false]);
  }));

Deno.test("the renderer: an edit the model refuses as its row changed, before the element heard of the change, shows on its row", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    await holdFeed(view);
    await holdAnswers(view, ["mutate", "patch"], { request: true, once: true });
    // Row c's D is written; another writer removes row a, and the element hears of it only later.
    await enterHeld(page, view.getByLabel("D", { exact: true }).nth(2), "cc");
    await keepOnly(page, "others", ["b", "c", "d"]);
    assert.equal(await rowsOf(view).count(), 4, "the element has not heard of the removal");
    await releaseAnswer(view, "svc-error");
    await screenshot(page, "renderer-others-edit-row-changed-unheard");
    assert.deepEqual(await pairsOf(page), [[2, "b"], [3, "c"], [4, "d"]], "row d (now third) keeps its D");
    // The refusal read the view again: the rows follow the removal, the message is on row c.
    assert.equal(await rowsOf(view).count(), 3);
    assert.deepEqual(await besideEach(view, "D", "This row changed meanwhile"), [false, true, false]);
    assert.deepEqual(await valuesOf(view, "D"), ["b", "cc", "d"], "row c's D keeps what the person entered");
    // The change event, heard late, changes nothing more (the refresh it asks for is awaited here).
    await view.evaluate(async (element) => {
      const el = element as unknown as { reload(): Promise<void>; updateComplete: Promise<unknown> };
      (globalThis as unknown as { hear: () => void }).hear();
      await el.reload();
      await el.updateComplete;
    });
    assert.deepEqual(await besideEach(view, "D", "This row changed meanwhile"), [false, true, false]);
  }));

/** Whether each button named `name` is described by a message holding `text` (the message beside it). */
async function toldBeside(view: Locator, name: string, text: string): Promise<boolean[]> {
  return await view.getByRole("button", { name, exact: true }).evaluateAll(
    (buttons, text) =>
      buttons.map((button) => {
        const id = button.getAttribute("aria-describedby");
        const root = button.getRootNode() as ShadowRoot;
        return id !== null && (root.getElementById(id)?.textContent ?? "").includes(text);
      }),
    text,
  );
}

/**
 * {@link SPEC} whose rows have a button "Add one" that adds one to the third row's N, and whose D, once changed,
 * sets the third row's N to 0 (a row's handler names its row by index, as its author knew it: the tests use
 * the third row's).
 */
const SPEC_ROW_HANDLERS = {
  ...SPEC,
  viewDefinition: {
    defaultView: "main",
    views: [{
      ...SPEC.viewDefinition.views[0],
      components: [{
        ...LINES_LIST,
        components: [
          LINES_LIST.components[0],
          { ...LINES_LIST.components[1], onChange: { mutations: "{'$.lines[2].n': 0}" } },
          {
            id: "addOne",
            type: "button",
            text: "Add one",
            onClick: { mutations: "{'$.lines[2].n': lines[2].n + 1}" },
          },
        ],
      }],
    }],
  },
};

Deno.test("the renderer: a row's button whose write reaches the model after another writer removed a row above writes no other row", () =>
  withEmbeddedSpec(SPEC_ROW_HANDLERS, { heading: "Main" }, async (page, view) => {
    const addOne = view.getByRole("button", { name: "Add one", exact: true });
    // Row c's button adds one to its N.
    await addOne.nth(2).click();
    await untilState(page, "others", (state) => (state as State).lines[2].n === 4);
    // Again, and another writer removes row a before the model gets the write.
    await holdAnswers(view, ["mutate", "patch"], { request: true, once: true });
    await addOne.nth(2).click();
    await untilAnswerHeld(page);
    await keepOnly(page, "others", ["b", "c", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-error");
    await screenshot(page, "renderer-others-row-button-changed");
    assert.deepEqual(await pairsOf(page), [[2, "b"], [4, "c"], [4, "d"]], "row d (now third) keeps its N");
    assert.deepEqual(
      await toldBeside(view, "Add one", "This row changed meanwhile: its action did not run."),
      [false, true, false],
      "the person is told beside row c's button (now second)",
    );
  }));

/** {@link SPEC} whose rows show an effect status `st` with a Retry that adds one to the third row's N. */
const SPEC_ROW_RETRY = {
  ...SPEC,
  viewDefinition: {
    defaultView: "main",
    views: [{
      ...SPEC.viewDefinition.views[0],
      components: [{
        ...LINES_LIST,
        components: [...LINES_LIST.components, {
          id: "st",
          type: "effectStatus",
          bind: "$.lines[*].st",
          label: "Status",
          showRetry: true,
          onRetry: { mutations: "{'$.lines[2].n': lines[2].n + 1}" },
        }],
      }],
    }],
  },
};

Deno.test("the renderer: a row's effect status Retry whose write reaches the model after another writer removed a row above says so beside it", () =>
  withEmbeddedSpec(SPEC_ROW_RETRY, { heading: "Main" }, async (page, view) => {
    const retry = view.getByRole("button", { name: "Retry", exact: true });
    // Row c's Retry, held until another writer removed row a: it names the third row, row d's now.
    await holdAnswers(view, ["mutate", "patch"], { request: true, once: true });
    await retry.nth(2).click();
    await untilAnswerHeld(page);
    await keepOnly(page, "others", ["b", "c", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-error");
    await view.getByText("its action did not run").waitFor();
    await screenshot(page, "renderer-others-row-retry-changed");
    assert.deepEqual(await pairsOf(page), [[2, "b"], [3, "c"], [4, "d"]], "row d (now third) keeps its N");
    assert.deepEqual(
      await toldBeside(view, "Retry", "This row changed meanwhile: its action did not run."),
      [false, true, false],
      "the person is told beside row c's Retry (now second)",
    );
  }));

Deno.test("the renderer: a row field's onChange whose write reaches the model after another writer removed a row above writes no other row", () =>
  withEmbeddedSpec(SPEC_ROW_HANDLERS, { heading: "Main" }, async (page, view) => {
    // Row c's D is written; its onChange's write is held until another writer removed row a.
    await holdAnswers(view, ["mutate", "patch"], { request: true, once: true, skip: 1 });
    await enterHeld(page, view.getByLabel("D", { exact: true }).nth(2), "cc");
    await keepOnly(page, "others", ["b", "cc", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-error");
    await screenshot(page, "renderer-others-row-on-change-changed");
    assert.deepEqual(await pairsOf(page), [[2, "b"], [3, "cc"], [4, "d"]], "row d (now third) keeps its N");
    assert.deepEqual(
      await besideEach(view, "D", "its action did not run"),
      [false, true, false],
      "the person is told beside row c's D (now second)",
    );
  }));

Deno.test("the renderer: a row field's onChange does not run once another writer moved its row during the field's write", () =>
  withEmbeddedSpec(SPEC_ROW_HANDLERS, { heading: "Main" }, async (page, view) => {
    // Row c's D is written (the model has it, its answer is held); another writer removes row a meanwhile.
    await holdAnswers(view, "patch", { once: true });
    await enterHeld(page, view.getByLabel("D", { exact: true }).nth(2), "cc");
    await keepOnly(page, "others", ["b", "cc", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-commit");
    // Its onChange names the third row, row d's now: it does not run.
    await view.getByText("its action did not run").waitFor();
    assert.deepEqual(await pairsOf(page), [[2, "b"], [3, "cc"], [4, "d"]], "row d (now third) keeps its N");
    assert.deepEqual(await besideEach(view, "D", "its action did not run"), [false, true, false]);
  }));

Deno.test("the renderer: an edit below the person's own Remove under way lands on its row", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // The person removes row b (the model has it, its answer is held), then writes row c's N.
    await holdAnswers(view, "patch", { once: true });
    await view.getByRole("button", { name: "Remove lines 2" }).click();
    await untilAnswerHeld(page);
    const n = view.getByLabel("N", { exact: true }).nth(2);
    await n.fill("30");
    await n.press("Enter");
    await releaseAnswer(view, "svc-commit");
    assert.deepEqual(await besideEach(view, "N", "changed meanwhile"), [false, false, false]);
    await untilState(page, "others", (state) => (state as State).lines[1]?.n === 30);
    await screenshot(page, "renderer-others-edit-below-own-remove");
    assert.deepEqual(await pairsOf(page), [[1, "a"], [30, "c"], [4, "d"]]);
    assert.deepEqual(await valuesOf(view, "N"), ["1", "30", "4"]);
    assert.deepEqual(await besideEach(view, "N", "changed meanwhile"), [false, false, false]);

    // A Remove below one under way waits for it too: the person removes row a, then row d.
    await holdAnswers(view, "patch", { once: true });
    await view.getByRole("button", { name: "Remove lines 1" }).click();
    await untilAnswerHeld(page);
    await view.getByRole("button", { name: "Remove lines 3" }).click();
    await releaseAnswer(view, "svc-commit");
    await untilState(page, "others", (state) => (state as State).lines.length === 1);
    assert.deepEqual(await pairsOf(page), [[30, "c"]]);
  }));

Deno.test("the renderer: a row's button pressed while the person's Remove above is under way does not run on another row", () =>
  withEmbeddedSpec(SPEC_ROW_HANDLERS, { heading: "Main" }, async (page, view) => {
    // The person removes row b (its answer held), then presses row c's button, whose mutations name the third row.
    await holdAnswers(view, "patch", { once: true });
    await view.getByRole("button", { name: "Remove lines 2" }).click();
    await untilAnswerHeld(page);
    await view.getByRole("button", { name: "Add one", exact: true }).nth(2).click();
    await releaseAnswer(view, "svc-commit");
    await view.getByText("its action did not run").waitFor();
    await screenshot(page, "renderer-others-row-button-below-own-remove");
    assert.deepEqual(await pairsOf(page), [[1, "a"], [3, "c"], [4, "d"]], "row d (now third) keeps its N");
    assert.deepEqual(await toldBeside(view, "Add one", "its action did not run"), [false, true, false]);
  }));

/** A model whose Name, once changed, notes `touched` and goes to view `summary` (its onChange); and a view `other`. */
const SPEC_ON_CHANGE_GOES = {
  ...SPEC_ON_CHANGE,
  viewDefinition: {
    defaultView: "main",
    views: [
      {
        ...SPEC_ON_CHANGE.viewDefinition.views[0],
        components: [{
          ...SPEC_ON_CHANGE.viewDefinition.views[0].components[0],
          onChange: { mutations: '{"$.touched": true}', navigate: "summary" },
        }],
      },
      ...["other", "summary"].map((id) => ({
        id,
        label: id,
        components: [{ id: "note", type: "staticText", text: `The ${id} view.` }],
      })),
    ],
  },
};

Deno.test("the renderer: the onChange of a write answered after the person went to another view does not run", () =>
  withEmbeddedSpec(SPEC_ON_CHANGE_GOES, { heading: "Main" }, async (page, view) => {
    // The element's calls are noted (below its held answers) from the write's commit on.
    await view.evaluate(async (element) => {
      const el = element as unknown as {
        invoker: { invoke(op: { name: string }, input: unknown): Promise<unknown> };
        updateComplete: Promise<unknown>;
        calls?: string[];
      };
      const real = el.invoker;
      el.invoker = {
        invoke: (op, input) => {
          el.calls?.push(op.name);
          return real.invoke(op, input);
        },
      };
      element.addEventListener("svc-commit", () => el.calls ??= [], { once: true });
      await el.updateComplete;
    });
    await holdAnswers(view, "mutate");
    await enterHeld(page, view.getByLabel("Name", { exact: true }), "Ada");
    await view.evaluate((el) => (el as unknown as { viewId: string }).viewId = "other");
    await view.getByText("The other view.").waitFor();
    await releaseAnswer(view, "svc-commit");
    // Its handler would have asked for the state at once (its mutations are evaluated over it).
    assert.deepEqual(await view.evaluate((el) => (el as unknown as { calls: string[] }).calls), []);
    await screenshot(page, "renderer-others-on-change-after-navigate");
    assert.equal(await view.evaluate((el) => (el as unknown as { viewId: string }).viewId), "other");
    assert.deepEqual(await stateOf(page, "others"), { name: "Ada" });
  }));

/** Another writer (the page's own code) removes the first row of the list `$[list]` of model `others`. */
function dropFirst(page: Page, list: string): Promise<void> {
  return page.evaluate(async (list) => {
    const embed = await import("/svc-embed.js");
    const service = await embed.createModelService();
    const state = await service.getState("others") as Record<string, unknown[]>;
    await embed.mutate("others", { [`$.${list}`]: state[list].slice(1) });
  }, list);
}

/** A model `others` whose view lists `list` (rows `rows`, of `items`) with `fields` per row. */
function listSpec(list: string, items: object, rows: unknown[], fields: object[]) {
  return {
    id: "others",
    schema: { type: "object", properties: { [list]: { type: "array", default: rows, items } } },
    viewDefinition: {
      defaultView: "main",
      views: [{
        id: "main",
        label: "Main",
        components: [{ id: list, type: "sectionList", bind: `$.${list}`, label: "Rows", components: fields }],
      }],
    },
  };
}

/** A text field labelled `label` bound at `bind`. */
const text = (label: string, bind: string) => ({ id: label.toLowerCase(), type: "textField", bind, label });

/** The items of {@link SPEC}'s lines, `n` also null, with an `extra` object holding a `note`. */
const LINE_ITEMS = {
  type: "object",
  properties: {
    n: { type: ["number", "null"] },
    d: { type: "string" },
    extra: { type: "object", properties: { note: { type: "string" } } },
  },
};
const LINES = ["a", "b", "c", "d"].map((d, i) => ({ n: i + 1, d }));

/** A row the values it shows do not tell apart from the row below: how it shows, and the field written. */
const UNTOLD_ROWS: { kind: string; spec: object; list: string; label: string }[] = [
  {
    kind: "plain-values",
    spec: listSpec("words", { type: "string" }, ["a", "b", "c", "d"], [text("Word", "$.words[*]")]),
    list: "words",
    label: "Word",
  },
  {
    kind: "only-the-field",
    spec: listSpec("lines", LINE_ITEMS, LINES, [text("D", "$.lines[*].d")]),
    list: "lines",
    label: "D",
  },
  {
    kind: "null-values",
    spec: listSpec("lines", LINE_ITEMS, LINES.map((line) => ({ ...line, n: null })), [
      { id: "n", type: "numericField", bind: "$.lines[*].n", label: "N" },
      text("D", "$.lines[*].d"),
    ]),
    list: "lines",
    label: "D",
  },
  {
    kind: "container-not-shown",
    spec: listSpec("lines", LINE_ITEMS, LINES, [
      { id: "n", type: "numericField", bind: "$.lines[*].n", label: "N" },
      text("D", "$.lines[*].d"),
      text("Note", "$.lines[*].extra.note"),
    ]),
    list: "lines",
    label: "Note",
  },
];

for (const { kind, spec, list, label } of UNTOLD_ROWS) {
  Deno.test(`the renderer: an edit of a row that shows nothing else to tell it by (${kind}) lands on no other row`, () =>
    withEmbeddedSpec(spec, { heading: "Main" }, async (page, view) => {
      const before = (await stateOf(page, "others") as Record<string, unknown[]>)[list];
      await holdAnswers(view, ["mutate", "patch"], { request: true, once: true });
      // The person writes the third row's field; another writer removes the first row before the model gets it.
      await enterHeld(page, view.getByLabel(label, { exact: true }).nth(2), "x");
      await dropFirst(page, list);
      await untilRowsHeld(page, view, 3);
      await releaseAnswer(view, "svc-error");
      await screenshot(page, `renderer-others-untold-${kind}`);
      assert.deepEqual(
        (await stateOf(page, "others") as Record<string, unknown[]>)[list],
        before.slice(1),
        "the row now third keeps its values",
      );
      assert.deepEqual(await besideEach(view, label, "This row changed meanwhile"), [false, true, false]);
      // Written again, it lands on its row.
      const again = view.getByLabel(label, { exact: true }).nth(1);
      await again.fill("y");
      await again.press("Enter");
      await untilState(page, "others", (state) => JSON.stringify(state).includes('"y"'));
      assert.equal(
        JSON.stringify((await stateOf(page, "others") as Record<string, unknown[]>)[list][1]).includes('"y"'),
        true,
      );
      assert.deepEqual(await besideEach(view, label, "changed meanwhile"), [false, false, false]);
    }));
}

Deno.test("the renderer: a row's button in a row that shows nothing else to tell it by writes no other row", () =>
  withEmbeddedSpec(
    listSpec("words", { type: "string" }, ["a", "b", "c", "d"], [
      text("Word", "$.words[*]"),
      {
        id: "shout",
        type: "button",
        text: "Shout",
        onClick: { mutations: "{'$.words[2]': $uppercase(words[2])}" },
      },
    ]),
    { heading: "Main" },
    async (page, view) => {
      // Row c's button writes the row it names; another writer removes row a before the model gets the write.
      await holdAnswers(view, ["mutate", "patch"], { request: true, once: true });
      await view.getByRole("button", { name: "Shout", exact: true }).nth(2).click();
      await untilAnswerHeld(page);
      await dropFirst(page, "words");
      await untilRowsHeld(page, view, 3);
      await releaseAnswer(view, "svc-error");
      await screenshot(page, "renderer-others-untold-row-button");
      assert.deepEqual(
        await stateOf(page, "others"),
        { words: ["b", "c", "d"] },
        "row d (now third) keeps its value",
      );
      assert.deepEqual(await toldBeside(view, "Shout", "its action did not run"), [false, true, false]);
    },
  ));

Deno.test("the renderer: a row this element wrote that another writer moved meanwhile keeps its message and entry", () =>
  withEmbeddedSpec(SPEC, { heading: "Main" }, async (page, view) => {
    // Row c holds a refused entry beside its message.
    const n = view.getByLabel("N", { exact: true }).nth(2);
    await n.fill("-1");
    await n.press("Enter");
    await view.getByText("must be >= 0").waitFor();
    // Row c's D is written (the model has it); another writer puts row c first and removes row a before the answer.
    await holdAnswers(view, "patch");
    await enterHeld(page, view.getByLabel("D", { exact: true }).nth(2), "cc");
    await untilState(page, "others", (state) => (state as State).lines[2].d === "cc");
    await keepOnly(page, "others", ["cc", "b", "d"]);
    await untilRowsHeld(page, view, 3);
    await releaseAnswer(view, "svc-commit");
    await screenshot(page, "renderer-others-own-row-moved");
    assert.deepEqual(await besideEach(view, "N", "must be >= 0"), [true, false, false], "row c (now first)");
    assert.deepEqual(await valuesOf(view, "N"), ["-1", "2", "4"]);
    assert.deepEqual(await valuesOf(view, "D"), ["cc", "b", "d"]);
  }));
