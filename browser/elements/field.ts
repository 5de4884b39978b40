/**
 * The frame every input shares: its label (the control's accessible name),
 * a required marker, helper text and the field's messages right below it,
 * tied to the control with `aria-describedby` and `aria-invalid`.
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import type { EvaluatedComponent, Json } from "../../engine/mod.ts";
import type { HandlerRow, ViewContext } from "./view_context.ts";

/** Ids and state a control needs for its accessible description. */
export interface FieldIds {
  /** The control's id (the label's `for`). */
  id: string;
  /** `aria-describedby` value, or `nothing`. */
  describedBy: string | typeof nothing;
  /** Whether the field has an error message. */
  invalid: boolean;
}

/** The accessible name of a component: its label, else its placeholder, else its bound field's name. */
export function nameOf(c: EvaluatedComponent): string {
  if (typeof c.label === "string" && c.label) return c.label;
  if (typeof c.placeholder === "string" && c.placeholder) return c.placeholder;
  const bind = typeof c.bind === "string" ? c.bind : c.id;
  const name = bind.replace(/^\$\.?/, "").split(/[.[\]]/).filter(Boolean).at(-1) ?? c.id;
  // A field name read as words: `shipDate` -> `Ship date`.
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The ids of a component's control, description and messages. */
export function fieldIds(c: EvaluatedComponent, ctx: ViewContext): FieldIds {
  const id = ctx.domId(c.id);
  const messages = ctx.messages(c.bind as string | undefined);
  const described = [
    ...(c.helperText ? [`${id}-help`] : []),
    ...(messages.length ? [`${id}-msg`] : []),
  ];
  return {
    id,
    describedBy: described.length ? described.join(" ") : nothing,
    invalid: messages.some((m) => m.severity === "error"),
  };
}

/** The messages of an address, as a live region. */
export function messageList(
  ctx: ViewContext,
  address: Json | undefined,
  id: string,
): TemplateResult | typeof nothing {
  const messages = ctx.messages(typeof address === "string" ? address : undefined);
  if (!messages.length) return nothing;
  return html`
    <div class="messages" id=${id} role="alert">
      <ul>${messages.map((m) => html`<li class=${m.severity}>${m.text}</li>`)}</ul>
    </div>
  `;
}

/** Where a control running a handler is told what became of its action, and the message told there. */
export interface HandlerTold {
  /** The `at` of `ctx.runHandler`: in a section list row, the row and a member of it named after the control. */
  at?: HandlerRow;
  /** The messages at `at.place`, beside the control. */
  told: TemplateResult | typeof nothing;
  /** The control's `aria-describedby`: the messages' id while they show. */
  describedBy: string | typeof nothing;
}

/**
 * {@link HandlerTold} of a control of `c` (a button, an effect status's Retry): in a section list row, a member of
 * the row named after it, which no field binds, so the message follows the row when rows move (the row changed
 * meanwhile: its action did not run); outside the rows the form's messages tell.
 */
export function handlerTold(c: EvaluatedComponent, ctx: ViewContext): HandlerTold {
  if (ctx.row === undefined) return { told: nothing, describedBy: nothing };
  const place = `${ctx.row}['#${c.id.slice(c.id.lastIndexOf("]") + 1).replace(/^\./, "")}']`;
  const id = ctx.domId(c.id, "msg");
  const told = messageList(ctx, place, id);
  return { at: { row: ctx.row, place }, told, describedBy: told === nothing ? nothing : id };
}

/** A labelled field around `control`. */
export function field(
  c: EvaluatedComponent,
  ctx: ViewContext,
  control: (ids: FieldIds) => TemplateResult,
): TemplateResult {
  const ids = fieldIds(c, ctx);
  const marker = c.required ? html`<span class="req" aria-hidden="true">*</span>` : nothing;
  return html`<div class="field ${c.required ? "required" : ""}" data-component=${c.id}>
    <div class="label-row"><label for=${ids.id}>${nameOf(c)}</label>${marker}</div>
    ${control(ids)}
    ${c.helperText ? html`<div class="help" id=${`${ids.id}-help`}>${c.helperText}</div>` : nothing}
    ${messageList(ctx, c.bind, `${ids.id}-msg`)}
  </div>`;
}

/** A labelled group of controls (radio buttons, checkboxes, a date range) with a legend. */
export function fieldGroup(
  c: EvaluatedComponent,
  ctx: ViewContext,
  controls: (ids: FieldIds) => TemplateResult,
): TemplateResult {
  const ids = fieldIds(c, ctx);
  return html`
    <fieldset class="field group-field" data-component=${c.id} aria-describedby=${ids.describedBy}
      aria-required=${c.required ? "true" : nothing}>
        <legend>${nameOf(c)}${c.required
          ? html`<span class="req" aria-hidden="true"> *</span>`
          : nothing}</legend>
        ${controls(ids)}
        ${c.helperText ? html`<div class="help" id=${`${ids.id}-help`}>${c.helperText}</div>` : nothing}
        ${messageList(ctx, c.bind, `${ids.id}-msg`)}
      </fieldset>
  `;
}
