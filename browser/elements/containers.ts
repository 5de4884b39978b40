/**
 * Renderers of the structural record kinds: containers (group, field set,
 * card, toolbar, button group, tabs and tab items, accordion, collapsible,
 * section item), the section list (add and remove as JSON Patch), buttons
 * and menus (menu, stepper, breadcrumb: navigation between views).
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import { repeat } from "lit/directives/repeat.js";
import { focusAddedRow } from "./added_row_focus.ts";
import { cssomStyle } from "./cssom_style.ts";
import type { EvaluatedComponent, EvaluatedView, Json } from "../../engine/mod.ts";
import { handlerTold, messageList, nameOf } from "./field.ts";
import { childrenOf, pointerOf, type ViewContext } from "./view_context.ts";

type Renderer = (c: EvaluatedComponent, ctx: ViewContext) => TemplateResult;

/** The CSS class and grid style of a `layout` and `columns`. */
export function layoutOf(
  c: { [member: string]: Json | undefined },
): { cls: string; style: Record<string, string> } {
  const layout = typeof c.layout === "string" ? c.layout : "vertical";
  const columns = typeof c.columns === "number" && c.columns > 0 ? c.columns : 2;
  return {
    cls: `layout-${layout}`,
    style: layout === "grid" ? { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` } : {},
  };
}

function body(c: EvaluatedComponent, ctx: ViewContext): TemplateResult {
  const { cls, style } = layoutOf(c);
  return html`<div class="body ${cls}" style=${cssomStyle(style)}>${ctx.render(c.components)}</div>`;
}

const box: Renderer = (c, ctx) => {
  const heading = c.legend ?? c.label;
  switch (c.type) {
    case "fieldSet":
      return html`<fieldset class="fieldset" data-component=${c.id}><legend>${heading ?? ""}</legend>${
        body(c, ctx)
      }</fieldset>`;
    case "card":
      return html`<section class="card" data-component=${c.id} aria-label=${heading ?? nothing}>
        ${heading ? html`<h3>${heading}</h3>` : nothing}${body(c, ctx)}</section>`;
    case "toolbar":
    case "buttonGroup":
      return html`
        <div class="${c.type}" role=${c.type === "toolbar" ? "toolbar" : "group"} data-component=${c.id}
          aria-label=${heading ?? nothing}>${ctx.render(c.components)}</div>
      `;
    case "accordion":
    case "collapsible":
      return html`<details class="collapsible" data-component=${c.id} ?open=${c.collapsed !== true}>
        <summary>${heading ?? c.id}</summary>${body(c, ctx)}</details>`;
    default:
      return html`
        <div class="group ${c.type}" data-component=${c.id} role=${heading ? "group" : nothing}
          aria-label=${heading ?? nothing}>${heading && c.type === "group"
            ? html`<h4>${heading}</h4>`
            : nothing}${body(c, ctx)}</div>
      `;
  }
};

/** A tab's or a step's name: its label, else its legend, else its bound field's name. */
const titleOf = (c: EvaluatedComponent) => String(c.label ?? c.legend ?? nameOf(c));

/** Tabs: each visible child is a tab showing its components. */
const tabs: Renderer = (c, ctx) => {
  const items = childrenOf(c).filter((t) => t.visible !== false);
  const key = `${c.id}:tab`;
  const selected = Math.min(ctx.uiState.get(key) ?? 0, Math.max(0, items.length - 1));
  const select = (i: number, focus: boolean) => {
    ctx.uiState.set(key, i);
    ctx.requestUpdate();
    if (focus) ctx.focus(ctx.domId(items[i].id, "tab"));
  };
  // The WAI-ARIA tabs pattern: arrows move to the next or previous tab (wrapping), Home and End to the ends.
  const onKey = (e: KeyboardEvent) => {
    const n = items.length;
    const next = e.key === "ArrowRight"
      ? (selected + 1) % n
      : e.key === "ArrowLeft"
      ? (selected - 1 + n) % n
      : e.key === "Home"
      ? 0
      : e.key === "End"
      ? n - 1
      : -1;
    if (next < 0 || !n) return;
    e.preventDefault();
    select(next, true);
  };
  return html`<div class="tabs" data-component=${c.id}>
    <div role="tablist" aria-label=${nameOf(c)} @keydown=${onKey}>${
    items.map((t, i) =>
      html`
        <button type="button" role="tab" id=${ctx.domId(t.id, "tab")} aria-selected=${i === selected
          ? "true"
          : "false"}
          aria-controls=${ctx.domId(t.id, "panel")} tabindex=${i === selected ? 0 : -1}
          @click=${() => select(i, false)}>${titleOf(t)}</button>
      `
    )
  }</div>
    ${
    items[selected]
      ? html`
        <div role="tabpanel" id=${ctx.domId(items[selected].id, "panel")} aria-labelledby=${ctx.domId(
          items[selected].id,
          "tab",
        )}
          tabindex="0">${body(items[selected], ctx)}</div>
      `
      : nothing
  }
  </div>`;
};

/**
 * A wizard (of a `wizard` view): each visible child is a step showing its components, one at a time,
 * the steps listed above it and Back and Next below; the step is local UI state. Next, and a button of the
 * last step (its finish), go on only when the step's fields are complete (step_check.ts), the finish when
 * every step's are (else it shows the first that is not); Back always goes.
 */
const wizard: Renderer = (c, ctx) => {
  const steps = childrenOf(c).filter((t) => t.visible !== false);
  const key = `${c.id}:step`;
  const at = Math.min(ctx.uiState.get(key) ?? 0, Math.max(0, steps.length - 1));
  const panel = ctx.domId(c.id, "step");
  const go = (i: number) => {
    ctx.uiState.set(key, i);
    ctx.requestUpdate();
    ctx.focus(panel);
  };
  const next = async () => {
    if (await ctx.checkStep(steps[at].id)) go(at + 1);
  };
  const finish = async (run: () => void) => {
    for (const [i, step] of steps.entries()) {
      if (await ctx.checkStep(step.id)) continue;
      if (i !== at) go(i);
      return;
    }
    run();
  };
  const last: ViewContext = at === steps.length - 1
    ? {
      ...ctx,
      runHandler: (handler, at) => void finish(() => ctx.runHandler(handler, at)),
    }
    : ctx;
  if (!steps.length) return html`<div class="wizard" data-component=${c.id}></div>`;
  return html`
    <div class="wizard" data-component=${c.id}>
      <ol class="wizard-steps" aria-label="Steps">${steps.map((t, i) =>
        html`<li class=${i < at ? "done" : ""} aria-current=${
          i === at ? "step" : nothing
        }><span class="step-no">${i + 1}</span>${titleOf(t)}</li>`
      )}</ol>
      <section class="wizard-step" id=${panel} tabindex="-1"
        aria-label=${`Step ${at + 1} of ${steps.length}: ${titleOf(steps[at])}`}>${body(
          steps[at],
          last,
        )}</section>
      <div class="wizard-nav">
        <button type="button" class="btn" ?disabled=${at === 0} @click=${() => go(at - 1)}>Back</button>
        <span>Step ${at + 1} of ${steps.length}</span>
        <button type="button" class="btn primary" ?disabled=${at === steps.length - 1} @click=${() =>
          void next()}>Next</button>
      </div>
    </div>
  `;
};

const sectionList: Renderer = (c, ctx) => {
  const items = childrenOf(c);
  const pointer = typeof c.bind === "string" ? pointerOf(c.bind) : null;
  const name = nameOf(c);
  const bind = String(c.bind ?? "");
  const { cls, style } = layoutOf(c);
  const keys = ctx.rowKeys(bind, items.length);
  // A row's handlers say which row they belong to (field.ts handlerTold): a render held while a button is
  // pressed may outlive it.
  const rowContext = (item: EvaluatedComponent): ViewContext => ({ ...ctx, row: String(item.bind) });
  // Focusable: the list takes the focus of a control whose row another writer removed (focus_keeper.ts).
  return html`<section class="section-list" data-component=${c.id} aria-label=${name} tabindex="-1">
    <h3>${name}</h3>
    ${items.length === 0 ? html`<p class="empty">None yet.</p>` : nothing}
    ${
    // Keyed rows: removing one moves the DOM of those below up with their data, so a control keeps what the
    // person entered there (an entry the model refused, beside its message, which moves up too).
    repeat(
      items,
      (_, i) => keys[i],
      (item, i) =>
        item.visible === false
          ? nothing
          : html`<div class="section-item" role="group" aria-label=${`${name} ${i + 1}`}>
        <div class="body ${cls}" style=${cssomStyle(style)}>${rowContext(item).render(item.components)}</div>
        ${
            c.canRemove && pointer !== null
              ? html`
                <button type="button" class="remove" aria-label=${`${
                  c.removeLabel ?? "Remove"
                } ${name.toLowerCase()} ${i + 1}`}
                  @click=${() => ctx.removeItem(bind, i)}>${c.removeLabel ??
                    "Remove"}</button>
              `
              : nothing
          }
      </div>`,
    )}
    ${messageList(ctx, c.bind, ctx.domId(c.id, "msg"))}
    ${
    c.canAdd && pointer !== null
      ? html`<button type="button" class="add" @click=${(e: Event) => {
        focusAddedRow(e.currentTarget as HTMLElement);
        ctx.patch([
          // A missing array is created empty first, so the element is created on its own and gets its defaults.
          ...(items.length ? [] : [{ op: "add" as const, path: pointer, value: [] }]),
          { op: "add", path: `${pointer}/-`, value: {} },
        ], bind);
      }}>${c.addLabel ?? `Add ${name.toLowerCase()}`}</button>`
      : nothing
  }
  </section>`;
};

const button: Renderer = (c, ctx) => {
  const { at, told, describedBy } = handlerTold(c, ctx);
  return html`
    <button type="button" class="btn ${c.variant ?? ""}" data-component=${c
      .id} ?disabled=${c.enabled === false}
      aria-describedby=${describedBy}
      @click=${() => ctx.runHandler(c.onClick, at)}>${c.text ?? c.label ?? c.id}</button>${told}
  `;
};

const menu: Renderer = (c, ctx) => {
  const items = (Array.isArray(c.menuItems) ? c.menuItems : []) as Record<string, Json>[];
  const vertical = c.orientation === "vertical";
  const list = c.type === "stepper" ? "ol" : "ul";
  const entries = items.map((item, i) => {
    const current = item.targetView === ctx.viewId;
    const target = typeof item.targetView === "string" ? item.targetView : null;
    return html`<li>${
      c.type === "stepper" ? html`<span class="step-no">${i + 1}</span>` : nothing
    }<button type="button"
      class="menu-item" aria-current=${current ? (c.type === "menu" ? "page" : "step") : nothing}
      ?disabled=${!target} @click=${() => target && ctx.navigate(target)}>${
      item.label ?? target
    }</button></li>`;
  });
  return html`<nav class="menu ${c.type} ${vertical ? "vertical" : ""}" data-component=${c.id} aria-label=${
    nameOf(c)
  }>
    ${list === "ol" ? html`<ol>${entries}</ol>` : html`<ul>${entries}</ul>`}
  </nav>`;
};

/** The top-level containers a `tabs` or `wizard` view makes its tabs or steps of. */
const PARTS = new Set(["tabItem", "group", "fieldSet", "card"]);

/**
 * The body of a view. A `tabs` or `wizard` view shows its top-level tab items, groups, field sets and cards
 * as tabs or steps, where the first of them stands; its other components (a menu, a button, a `tabs`
 * component of its own) stay around them. Without such containers it is a plain list.
 */
export function viewBody(view: EvaluatedView, ctx: ViewContext): TemplateResult {
  const layout = view.layout === "tabs" ? tabs : view.layout === "wizard" ? wizard : undefined;
  const first = view.components.findIndex((c) => PARTS.has(c.type));
  if (!layout || first < 0) return ctx.render(view.components as unknown as Json);
  const parts = view.components.filter((c) => PARTS.has(c.type));
  const rest = view.components.filter((c) => !PARTS.has(c.type));
  // No component has the empty id (validation refuses it): its DOM ids and UI state keys are the view's own.
  const widget = layout({
    id: "",
    type: view.layout,
    label: view.title,
    components: parts as unknown as Json,
  }, ctx);
  return html`${ctx.render(rest.slice(0, first) as unknown as Json)}${widget}${
    ctx.render(rest.slice(first) as unknown as Json)
  }`;
}

/** Renderers of the structural kinds by component type. */
export const CONTAINER_RENDERERS: Record<string, Renderer> = {
  group: box,
  fieldSet: box,
  card: box,
  toolbar: box,
  buttonGroup: box,
  tabs,
  tabItem: box,
  accordion: box,
  collapsible: box,
  sectionItem: box,
  sectionList,
  button,
  menu,
  stepper: menu,
  breadcrumb: menu,
};
