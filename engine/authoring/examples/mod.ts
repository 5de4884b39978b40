/**
 * The bundled example specs, served as `svc://examples/<name>` (the spec's id).
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";
import { EVENT_TICKETING } from "./event_ticketing.ts";
import { EXPENSE_REPORT } from "./expense_report.ts";
import { GYM_MEMBERSHIP_PRICING } from "./gym_membership_pricing.ts";
import { INVOICE_TAX_LINES } from "./invoice_tax_lines.ts";
import { LOAN_AMORTIZATION } from "./loan_amortization.ts";
import { PROJECT_BUDGET_TRACKER } from "./project_budget_tracker.ts";
import { RECIPE_SCALER } from "./recipe_scaler.ts";
import { SALARY_NET_PAY } from "./salary_net_pay.ts";
import { SAVINGS_PLAN } from "./savings_plan.ts";
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
  example(LOAN_AMORTIZATION),
  example(SALARY_NET_PAY),
  example(SAVINGS_PLAN),
  example(EXPENSE_REPORT),
];
