/**
 * One evaluated component to its template: hidden components render nothing,
 * a component whose expression failed shows its `error`, every known type
 * has its renderer, and an unknown type renders as a basic input
 * (SPEC.md: "An unknown `type` … evaluates as a basic input").
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import type { EvaluatedComponent, Json } from "../../engine/mod.ts";
import { CONTAINER_RENDERERS } from "./containers.ts";
import { DATA_RENDERERS } from "./data.ts";
import { DISPLAY_RENDERERS } from "./display.ts";
import { FALLBACK_INPUT, INPUT_RENDERERS } from "./inputs.ts";
import { PANEL_RENDERERS } from "./panels.ts";
import type { ViewContext } from "./view_context.ts";

/** Every renderer by component type. */
export const RENDERERS: Readonly<
  Record<string, (c: EvaluatedComponent, ctx: ViewContext) => TemplateResult>
> = {
  ...INPUT_RENDERERS,
  ...DISPLAY_RENDERERS,
  ...DATA_RENDERERS,
  ...PANEL_RENDERERS,
  ...CONTAINER_RENDERERS,
};

/** Renders a list of evaluated components. */
export function renderComponents(list: Json | undefined, ctx: ViewContext): TemplateResult {
  const components = Array.isArray(list) ? list as unknown as EvaluatedComponent[] : [];
  return html`${components.map((c) => renderComponent(c, ctx))}`;
}

/** Renders one evaluated component. */
export function renderComponent(c: EvaluatedComponent, ctx: ViewContext): TemplateResult | typeof nothing {
  if (c.visible === false) return nothing;
  const body = (RENDERERS[c.type] ?? FALLBACK_INPUT)(c, ctx);
  // An effect status's `error` is the effect's failure, which its chip shows.
  if (typeof c.error !== "string" || c.type === "effectStatus") return body;
  return html`${body}<p class="component-error" role="note">Could not evaluate ${c.id}: ${c.error}</p>`;
}
