/**
 * Guidance topics about rules: eligibility with reasons, status fields and
 * fields that appear, become required or lock depending on others.
 *
 * @module
 */
import type { GuidanceTopic } from "./types.ts";

/** A decision with the list of reasons behind it. */
export const ELIGIBILITY_RULES: GuidanceTopic = {
  id: "eligibility-rules",
  title: "Eligibility rules with reasons",
  whenToUse:
    "Yes/no decisions over several criteria (loans, benefits, discounts, admissions) where the user " +
    "should see which rules failed, not just the verdict.",
  fragment: {
    constants: { minAge: 18, maxDebtToIncomePercent: 40 },
    derivations: [
      {
        path: "$.applicant.debtToIncomePercent",
        expr:
          "applicant.monthlyIncome > 0 ? $round(applicant.monthlyDebt / applicant.monthlyIncome * 100, 1)",
      },
      {
        path: "$.decision.reasons",
        expr: "[" +
          "$not(applicant.age >= $const.minAge) ? 'Applicant must be at least 18', " +
          "$not(applicant.debtToIncomePercent <= $const.maxDebtToIncomePercent) ? 'Debt exceeds 40% of income', " +
          "applicant.bankrupt = true ? 'Open bankruptcy'" +
          "]",
        description: "One message per failed rule; a rule that passes yields nothing and drops out of [...].",
      },
      { path: "$.decision.eligible", expr: "$count(decision.reasons) = 0" },
    ],
    constraints: [
      {
        id: "eligible-to-submit",
        expr: "$not(status = 'submitted') or decision.eligible",
        message: "Only eligible applications can be submitted",
        policy: "flag",
      },
    ],
  },
  sample: {
    input: {
      applicant: { age: 34, monthlyIncome: 3000, monthlyDebt: 1500 },
      status: "submitted",
    },
    expected: {
      "$.applicant.debtToIncomePercent": 50,
      "$.decision.reasons": ["Debt exceeds 40% of income"],
      "$.decision.eligible": false,
    },
    flagged: ["eligible-to-submit"],
  },
  notes: [
    "Write each rule so that missing data fails it: `$not(age >= 18)` is true when age is absent, while " +
    "`age < 18` yields nothing and would let the rule pass silently.",
    "Keep the reasons as data (a derived list) and the verdict as a one-liner over it; views can show the " +
    "list with a staticText `$join(decision.reasons, '\\n')` or a validationSummary.",
    "A `rollback` constraint refuses ineligible submissions outright; `flag` (as here) lets them through " +
    "and reports them in flaggedConstraints.",
  ],
};

/** A status label from thresholds held in a band table. */
export const STATUS_FIELDS: GuidanceTopic = {
  id: "status-fields",
  title: "Status fields from thresholds and workflows",
  whenToUse: "A label or traffic light derived from a number (stock level, SLA time, budget use), or a " +
    "workflow state that locks fields once reached.",
  fragment: {
    constants: {
      stockBands: [
        { from: 0, status: "out" },
        { from: 1, status: "low" },
        { from: 20, status: "ok" },
      ],
    },
    derivations: [
      {
        path: "$.products[*].stockStatus",
        expr: "$const.stockBands[from <= $parent.onHand][-1].status",
        description: "The last band whose lower bound the value reaches (bands sorted by `from`).",
      },
      {
        path: "$.health",
        expr:
          "$count(products[stockStatus = 'out']) > 0 ? 'red' : $count(products[stockStatus = 'low']) > 0 ? " +
          "'amber' : 'green'",
      },
    ],
    metaDerivations: [
      {
        path: "$.products[*].onHand",
        property: "readOnly",
        expr: "stocktake = 'closed'",
        description: "Counts lock once the stocktake is closed.",
      },
    ],
  },
  sample: {
    input: {
      products: [{ sku: "A", onHand: 0 }, { sku: "B", onHand: 7 }, { sku: "C", onHand: 45 }],
      stocktake: "closed",
    },
    expected: {
      "$.products[0].stockStatus": "out",
      "$.products[1].stockStatus": "low",
      "$.products[2].stockStatus": "ok",
      "$.health": "red",
      "$.products[1].onHand": { $meta: { readOnly: true } },
    },
  },
  notes: [
    "A band table in constants keeps thresholds out of the expression; nested ternaries work too but get " +
    "hard to read beyond three branches.",
    "`[-1]` picks the last match. Inside `$const.stockBands[...]`, `from` is the band's field and $parent " +
    "the product.",
    "Derived statuses are read-only. A workflow status the user moves (draft, submitted, approved) is a " +
    "base field with an `enum`; guard its transitions with constraints and lock other fields with " +
    "`readOnly` meta derivations.",
    "A meta readOnly is checked on the next write: it never blocks the mutation that closes the stocktake.",
  ],
};

/** Fields shown, required or bounded depending on other fields. */
export const CONDITIONAL_FIELDS: GuidanceTopic = {
  id: "conditional-fields",
  title: "Conditional fields: relevant, required, dynamic limits",
  whenToUse: "Forms where one answer decides which other fields appear, which become mandatory, and what " +
    "range a number may take.",
  fragment: {
    metaDerivations: [
      { path: "$.company.vatId", property: "relevant", expr: "customerType = 'business'" },
      { path: "$.company.vatId", property: "required", expr: "customerType = 'business'" },
      {
        path: "$.seats",
        property: "maximum",
        expr: "plan = 'team' ? 50 : plan = 'enterprise' ? 1000 : 1",
      },
      {
        path: "$.company.vatId",
        property: "pattern",
        expr: "country = 'DE' ? '^DE[0-9]{9}$' : '^[A-Z]{2}[0-9A-Z]{2,12}$'",
      },
    ],
    constraints: [
      {
        id: "business-has-vat-id",
        expr: "$not(customerType = 'business') or $exists(company.vatId)",
        message: "Business customers need a VAT id",
        policy: "flag",
      },
    ],
  },
  sample: {
    input: { customerType: "business", plan: "team", country: "DE" },
    expected: {
      "$.company.vatId": { $meta: { relevant: true, required: true, pattern: "^DE[0-9]{9}$" } },
      "$.seats": { $meta: { maximum: 50 } },
    },
    flagged: ["business-has-vat-id"],
  },
  notes: [
    "Meta values are stored under `<path>#<property>` in snake_case (`$.company.vatId#relevant`) and " +
    "overlaid on the field's effective schema; embedded tests assert them with {$meta: {...}} in camelCase.",
    "`relevant: false` only hides the bound view component: the value stays and still feeds derivations " +
    "and constraints. Clear it explicitly if hidden values must not count.",
    "Limits (minimum, maximum, pattern, enum, ...) and `required` apply to the next mutation, against the " +
    "values computed by the previous one; writing `plan` and `seats` together checks seats against the old " +
    "plan's limit. A constraint sees the new values at once: use one when both change together.",
    "`required: true` refuses writing null to the field or removing it; it does not force a value into an " +
    "empty form, which is what the constraint above reports.",
  ],
};

/** Every rules topic, in menu order. */
export const RULES_TOPICS: readonly GuidanceTopic[] = [ELIGIBILITY_RULES, STATUS_FIELDS, CONDITIONAL_FIELDS];
