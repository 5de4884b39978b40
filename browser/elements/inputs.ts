/**
 * Renderers of the input record kinds: basic input, text area, choice,
 * dependent selector, slider, date range and file upload. A text-like control
 * writes on `change` (leaving the field or Enter), a picker as soon as it
 * changes; read-only fields are `readonly`, disabled ones `disabled`. A
 * re-render does not replace what a person is typing (kept_edit.ts) except
 * with the value the model kept when it refused to remove it, and a
 * choice (check box, switch, radio, select, multi-select, rating, slider) always shows
 * the state: one whose write was refused goes back, the reason beside it as a
 * warning, since nothing refused stays in it (`live`: lit compares with the
 * control, not with what it last set). An entry outside the component's own
 * bounds (a stepper's `min`/`max`, a file upload's types, sizes and count) is
 * refused before anything is written (entry_bounds.ts), and a region
 * selector offers the regions of the country it `dependsOn`.
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import { live } from "lit/directives/live.js";
import type { EvaluatedComponent, Json } from "../../engine/mod.ts";
import { RATING_CHOICES } from "../../engine/model/view_definition/validate.ts";
import { countryOptions } from "./countries.ts";
import { dateTimeControlText, dateTimeOfControl, timeControlText, timeOfControl } from "./date_time.ts";
import { numberRefusals, regionOptions, uploadRefusals } from "./entry_bounds.ts";
import { field, fieldGroup, type FieldIds, messageList, nameOf } from "./field.ts";
import { keptEdit } from "./kept_edit.ts";
import type { ViewContext } from "./view_context.ts";

type Renderer = (c: EvaluatedComponent, ctx: ViewContext) => TemplateResult;

const NUMERIC = new Set(["numericField", "currencyField", "percentField", "sliderField", "numericStepper"]);
const INPUT_TYPES: Record<string, string> = {
  passwordField: "password",
  emailField: "email",
  phoneNumberField: "tel",
  dateField: "date",
  dateTimeField: "datetime-local",
  timeField: "time",
};

/**
 * The value a control's text stands for: none (`undefined`: the field's value is removed) when it is empty,
 * a number for numeric kinds, RFC 3339 for date-times and times (date_time.ts), else the text.
 */
export function parseInput(type: string, text: string): Json | undefined {
  if (text.trim() === "") return undefined;
  if (type === "dateTimeField") return dateTimeOfControl(text);
  if (type === "timeField") return timeOfControl(text);
  if (!NUMERIC.has(type)) return text;
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

/** The text a single-line input shows for its value (date-times in local time, date_time.ts). */
function controlText(c: EvaluatedComponent): string {
  if (typeof c.value === "string" && c.type === "dateTimeField") return dateTimeControlText(c.value);
  if (typeof c.value === "string" && c.type === "timeField") return timeControlText(c.value);
  return text(c.value);
}

function text(value: Json | undefined): string {
  return value === null || value === undefined
    ? ""
    : typeof value === "object"
    ? JSON.stringify(value)
    : String(value);
}

/** Writes a field's value; `choice`: its control shows the state whatever was chosen (`live`). */
function write(c: EvaluatedComponent, ctx: ViewContext, value: Json | undefined, choice = false): void {
  if (typeof c.bind === "string") ctx.write(c.bind, value, c.onChange, choice);
}

const locked = (c: EvaluatedComponent) => c.enabled === false;

/**
 * Writes what a person typed, unless it is a number outside the component's `min` and `max` (a stepper's):
 * then nothing is written and the field, still showing it, says so, as a wizard's step check would.
 */
function enterText(c: EvaluatedComponent, ctx: ViewContext, typed: string): void {
  const value = parseInput(c.type, typed);
  const refused = numberRefusals(c, value);
  if (refused.length && typeof c.bind === "string") ctx.refuse(c.bind, refused, "error");
  else write(c, ctx, value);
}

/** A single-line input of a basic kind. */
const textInput: Renderer = (c, ctx) =>
  field(c, ctx, (ids) => {
    const numeric = NUMERIC.has(c.type);
    const unit = c.type === "currencyField" && typeof c.currency === "string"
      ? c.currency
      : c.type === "percentField"
      ? "%"
      : "";
    const input = html`
      <input id=${ids.id} type=${numeric ? "number" : INPUT_TYPES[c.type] ?? "text"}
        step=${numeric ? (c.step as number | undefined) ?? "any" : nothing}
        min=${(c.min as number | undefined) ?? nothing} max=${(c.max as number | undefined) ?? nothing}
        inputmode=${numeric ? "decimal" : nothing}
        autocomplete=${c.type === "passwordField" ? "new-password" : "off"}
        .value=${keptEdit(
          controlText(c),
          ctx.restores(c.bind),
        )} placeholder=${(c.placeholder as string | undefined) ?? nothing}
        title=${(c.tooltip as string | undefined) ?? nothing}
        ?readonly=${c.readOnly === true} ?disabled=${locked(c)} ?required=${c.required === true}
        aria-invalid=${ids.invalid ? "true" : "false"} aria-describedby=${ids.describedBy}
        @change=${(e: Event) => enterText(c, ctx, (e.target as HTMLInputElement).value)}>
    `;
    return unit
      ? html`<div class="with-unit">${input}<span class="unit" aria-hidden="true">${unit}</span></div>`
      : input;
  });

const checkbox: Renderer = (c, ctx) => {
  const id = ctx.domId(c.id);
  return html`<div class="field check ${c.type === "toggleField" ? "toggle" : ""}" data-component=${c.id}>
    <input id=${id} type="checkbox" role=${c.type === "toggleField" ? "switch" : nothing} .checked=${
    live(c.value === true)
  }
      ?disabled=${locked(c) || c.readOnly === true} title=${(c.tooltip as string | undefined) ?? nothing}
      aria-describedby=${c.helperText ? `${id}-help` : nothing}
      @change=${(e: Event) => write(c, ctx, (e.target as HTMLInputElement).checked, true)}>
    <label for=${id}>${nameOf(c)}</label>
    ${c.helperText ? html`<div class="help" id=${`${id}-help`}>${c.helperText}</div>` : nothing}
    ${messageList(ctx, c.bind, `${id}-msg`)}
  </div>`;
};

const textArea: Renderer = (c, ctx) =>
  field(c, ctx, (ids) =>
    html`
      <textarea id=${ids.id} rows=${(c.rows as number | undefined) ?? 4} .value=${keptEdit(
        text(c.value),
        ctx.restores(c.bind),
      )}
        placeholder=${(c.placeholder as string | undefined) ?? nothing} ?readonly=${c.readOnly === true}
        ?disabled=${locked(c)} aria-invalid=${ids.invalid ? "true" : "false"} aria-describedby=${ids
          .describedBy}
        @change=${(e: Event) =>
          write(c, ctx, parseInput(c.type, (e.target as HTMLTextAreaElement).value))}></textarea>
    `);

interface Option {
  value: Json;
  label: string;
}

function optionsOf(c: EvaluatedComponent): Option[] {
  if (c.type === "countrySelector") return countryOptions();
  const list = c.type === "countryRegionSelector"
    ? regionOptions(c)
    : Array.isArray(c.options)
    ? c.options
    : [];
  return list.map((o) =>
    o !== null && typeof o === "object" && !Array.isArray(o)
      ? { value: o.value ?? null, label: String(o.label ?? o.value) }
      : { value: o, label: String(o) }
  );
}

const select: Renderer = (c, ctx) =>
  field(c, ctx, (ids) => {
    const options = optionsOf(c);
    const current = text(c.value);
    const known = options.some((o) => text(o.value) === current);
    return html`
      <select id=${ids.id} .value=${live(current)} ?disabled=${locked(c) || c.readOnly === true}
        ?required=${c.required === true}
        aria-invalid=${ids.invalid ? "true" : "false"} aria-describedby=${ids.describedBy}
        @change=${(e: Event) => {
          const index = (e.target as HTMLSelectElement).selectedIndex - 1;
          // The placeholder (first) option removes the value.
          write(c, ctx, index >= 0 && index < options.length ? options[index].value : undefined, true);
        }}>
            <option value="" ?selected=${current === ""}>${c.placeholder ?? "—"}</option>
            ${options.map((o) =>
              html`<option .value=${text(o.value)} ?selected=${text(o.value) === current}>${o.label}</option>`
            )}
            ${!known && current ? html`<option selected .value=${current}>${current}</option>` : nothing}
          </select>
    `;
  });

const radios: Renderer = (c, ctx) =>
  fieldGroup(
    c,
    ctx,
    (ids: FieldIds) =>
      html`<div class="options">${
        optionsOf(c).map((o, i) =>
          html`<label class="option"><input type="radio" name=${ids.id} id=${`${ids.id}-${i}`}
          .checked=${live(text(o.value) === text(c.value))} ?disabled=${locked(c) || c.readOnly === true}
          @change=${() => write(c, ctx, o.value, true)}> ${o.label}</label>`
        )
      }</div>`,
  );

const multiSelect: Renderer = (c, ctx) =>
  fieldGroup(c, ctx, (ids) => {
    const chosen = Array.isArray(c.value) ? c.value.map(text) : [];
    const options = optionsOf(c);
    return html`<div class="options">${
      options.map((o, i) =>
        html`<label class="option"><input type="checkbox" id=${`${ids.id}-${i}`} .checked=${
          live(chosen.includes(text(o.value)))
        }
          ?disabled=${locked(c) || c.readOnly === true}
          @change=${(e: Event) => {
          const on = (e.target as HTMLInputElement).checked;
          const next = options.filter((p) => p === o ? on : chosen.includes(text(p.value))).map((p) =>
            p.value
          );
          write(c, ctx, next, true);
        }}> ${o.label}</label>`
      )
    }</div>`;
  });

/** Free text with suggestions (autocomplete, combo box); tags as a comma-separated list. */
const suggest: Renderer = (c, ctx) =>
  field(c, ctx, (ids) => {
    const tags = c.type === "tagsField";
    const value = tags && Array.isArray(c.value) ? c.value.map(text).join(", ") : text(c.value);
    const options = optionsOf(c);
    return html`
      <input id=${ids.id} type="text" list=${`${ids.id}-list`} .value=${keptEdit(value, ctx.restores(c.bind))}
        placeholder=${(c.placeholder as string | undefined) ?? (tags ? "a, b, c" : nothing)}
        ?readonly=${c.readOnly === true} ?disabled=${locked(c)} autocomplete="off"
        aria-invalid=${ids.invalid ? "true" : "false"} aria-describedby=${ids.describedBy}
        @change=${(e: Event) => {
          const typed = (e.target as HTMLInputElement).value;
          if (tags) return write(c, ctx, typed.split(",").map((t) => t.trim()).filter(Boolean));
          const match = options.find((o) => o.label === typed || text(o.value) === typed);
          write(c, ctx, match ? match.value : parseInput(c.type, typed));
        }}>
      <datalist id=${`${ids.id}-list`}>${options.map((o) =>
        html`<option .value=${o.label}></option>`
      )}</datalist>
    `;
  });

/** A region selector: a select of the chosen country's regions when it has options (even none of that country), else free text. */
const dependentSelector: Renderer = (c, ctx) =>
  Array.isArray(c.options) && c.options.length ? select(c, ctx) : textInput(c, ctx);

const slider: Renderer = (c, ctx) => {
  if (c.type === "numericStepper") return textInput(c, ctx);
  if (c.type === "ratingField") {
    const max = typeof c.max === "number" ? c.max : 5;
    const min = typeof c.min === "number" ? c.min : 1;
    // One radio a choice: a spec stored before validation capped them must not freeze the page.
    const count = Math.min(Math.max(0, Math.floor(max - min) + 1), RATING_CHOICES);
    const stars = Array.from({ length: count }, (_, i) => min + i);
    return fieldGroup(
      c,
      ctx,
      (ids) =>
        html`<div class="rating">${
          stars.map((n) =>
            html`<label class="star ${typeof c.value === "number" && n <= c.value ? "on" : ""}">
            <input type="radio" name=${ids.id} .checked=${live(c.value === n)} ?disabled=${
              locked(c) || c.readOnly === true
            }
              @change=${() => write(c, ctx, n, true)}><span>${n}</span></label>`
          )
        }</div>`,
    );
  }
  return field(
    c,
    ctx,
    (ids) =>
      html`<div class="slider"><input id=${ids.id} type="range" min=${(c.min as number | undefined) ?? 0}
      max=${(c.max as number | undefined) ?? 100} step=${(c.step as number | undefined) ?? 1}
      .value=${live(text(c.value))} ?disabled=${
        locked(c) || c.readOnly === true
      } aria-describedby=${ids.describedBy}
      @change=${(e: Event) => write(c, ctx, Number((e.target as HTMLInputElement).value), true)}>
      <output for=${ids.id}>${text(c.value)}</output></div>`,
  );
};

const dateRange: Renderer = (c, ctx) =>
  fieldGroup(c, ctx, (ids) =>
    html`<div class="range">${
      (["From", "To"] as const).map((end) => {
        const bind = c[`bind${end}`];
        const id = `${ids.id}-${end.toLowerCase()}`;
        return html`<div class="field"><label for=${id}>${c[`${end.toLowerCase()}Label`] ?? end}</label>
          <input id=${id} type="date" .value=${keptEdit(text(c[`value${end}`]), ctx.restores(bind))} min=${
          (c.minDate as string | undefined) ?? nothing
        }
            max=${(c.maxDate as string | undefined) ?? nothing} ?readonly=${c.readOnly === true} ?disabled=${
          locked(c)
        }
            @change=${(e: Event) =>
          typeof bind === "string" &&
          ctx.write(bind, parseInput(c.type, (e.target as HTMLInputElement).value), c.onChange)}>
          ${messageList(ctx, bind, `${id}-msg`)}</div>`;
      })
    }</div>`);

function describeBlob(value: Json | undefined): string {
  const refs = Array.isArray(value) ? value : value ? [value] : [];
  return refs.map((r) =>
    r && typeof r === "object" && !Array.isArray(r) ? `${r.$mediaType} (${r.$bytes} bytes)` : text(r)
  ).join(", ");
}

const fileUpload: Renderer = (c, ctx) =>
  field(c, ctx, (ids) =>
    html`
      <input id=${ids.id} type="file" accept=${(c.accept as string | undefined) ??
        (Array.isArray(c.allowedMediaTypes) ? c.allowedMediaTypes.join(",") : nothing)}
        ?multiple=${c.multiple === true} ?disabled=${locked(c) || c.readOnly === true} aria-describedby=${ids
          .describedBy}
        @change=${(e: Event) => {
          const input = e.target as HTMLInputElement;
          const files = [...(input.files ?? [])];
          if (!files.length || typeof c.bind !== "string") return;
          const refused = uploadRefusals(c, files);
          if (!refused.length) return ctx.upload(c.bind, files, c.multiple === true);
          // Nothing is stored: the field lets go of the files, as a refused choice goes back, the reason beside it.
          input.value = "";
          ctx.refuse(c.bind, refused, "warning");
        }}>
          ${c.value ? html`<div class="help">Stored: ${describeBlob(c.value)}</div>` : nothing}
    `);

/** Renderers of the input kinds by component type. */
export const INPUT_RENDERERS: Record<string, Renderer> = {
  textField: textInput,
  numericField: textInput,
  currencyField: textInput,
  percentField: textInput,
  passwordField: textInput,
  emailField: textInput,
  phoneNumberField: textInput,
  dateField: textInput,
  dateTimeField: textInput,
  timeField: textInput,
  checkboxField: checkbox,
  toggleField: checkbox,
  countrySelector: select,
  textAreaField: textArea,
  richTextField: textArea,
  selectField: select,
  radioField: radios,
  multiSelectField: multiSelect,
  autocompleteField: suggest,
  comboBox: suggest,
  tagsField: suggest,
  countryRegionSelector: dependentSelector,
  sliderField: slider,
  ratingField: slider,
  numericStepper: slider,
  dateRangeField: dateRange,
  fileUploadField: fileUpload,
};

/**
 * How an unknown type renders: a basic input for the bound value, a number box for a number, a checkbox for
 * a boolean, else a text box. A text box for a number would write what is typed as text, which an integer
 * field refuses: the person would see their 5 refused as "not an integer".
 */
export const FALLBACK_INPUT: Renderer = (c, ctx) =>
  typeof c.value === "boolean"
    ? checkbox(c, ctx)
    : textInput(typeof c.value === "number" ? { ...c, type: "numericField" } : c, ctx);
