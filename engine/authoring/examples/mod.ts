/**
 * The bundled example specs, served as `svc://examples/<name>` (the spec's id).
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";
import { EVENT_TICKETING } from "./event_ticketing.ts";
import { GYM_MEMBERSHIP_PRICING } from "./gym_membership_pricing.ts";
import { INVOICE_TAX_LINES } from "./invoice_tax_lines.ts";
import { PROJECT_BUDGET_TRACKER } from "./project_budget_tracker.ts";
import { RECIPE_SCALER } from "./recipe_scaler.ts";
import { SHIPPING_QUOTE } from "./shipping_quote.ts";

/** An example spec and the name it is served under. */
export interface Example {
  /** The spec's id, also the last segment of `svc://examples/<name>`. */
  name: string;
  /** The spec's `_name`. */
  title: string;
  /** The spec's `_description`. */
  description: string;
  spec: ModelSpec;
}

const example = (spec: ModelSpec): Example => ({
  name: spec.id,
  title: String(spec._name),
  description: String(spec._description),
  spec,
});

/** Every bundled example. */
export const EXAMPLES: readonly Example[] = [
  example(INVOICE_TAX_LINES),
  example(PROJECT_BUDGET_TRACKER),
  example(GYM_MEMBERSHIP_PRICING),
  example(RECIPE_SCALER),
  example(EVENT_TICKETING),
  example(SHIPPING_QUOTE),
];
