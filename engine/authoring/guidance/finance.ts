/**
 * Guidance topics about money: loans, growth, shares, proration, averages and currencies.
 *
 * @module
 */
import type { GuidanceTopic } from "./types.ts";

/** Loan payment and a per-month schedule from the closed-form balance. */
export const AMORTIZATION_SCHEDULE: GuidanceTopic = {
  id: "amortization-schedule",
  title: "Amortization schedule (annuity loan)",
  whenToUse:
    "A loan repaid in equal instalments: the instalment itself, and a table of interest, principal " +
    "and remaining balance per period for a chart or a dataTable.",
  fragment: {
    derivations: [
      {
        path: "$.loan.payment",
        expr: "($r := loan.annualRatePercent / 1200; $n := loan.months; " +
          "$r = 0 ? $round(loan.principal / $n, 2) : $round(loan.principal * $r / (1 - $power(1 + $r, -$n)), 2))",
        description: "Monthly instalment; a zero rate divides evenly.",
      },
      {
        path: "$.loan.schedule",
        expr: "($r := loan.annualRatePercent / 1200; $p := loan.principal; $m := loan.payment; " +
          "$balance := function($k) { $r = 0 ? $p - $m * $k : $p * $power(1 + $r, $k) - $m * ($power(1 + $r, $k) - 1) / $r }; " +
          "[$map([1..loan.months], function($k) { {" +
          "'month': $k, " +
          "'interest': $round($balance($k - 1) * $r, 2), " +
          "'principal': $round($m - $balance($k - 1) * $r, 2), " +
          "'balance': $round($max([0, $balance($k)]), 2)" +
          "} })])",
        description: "One row per month, from the closed-form balance after k payments.",
      },
      {
        path: "$.loan.totalInterest",
        expr: "$round(loan.payment * loan.months - loan.principal, 2)",
      },
    ],
  },
  sample: {
    input: { loan: { principal: 1000, annualRatePercent: 12, months: 3 } },
    expected: {
      "$.loan.payment": 340.02,
      "$.loan.schedule": [
        { month: 1, interest: 10, principal: 330.02, balance: 669.98 },
        { month: 2, interest: 6.7, principal: 333.32, balance: 336.66 },
        { month: 3, interest: 3.37, principal: 336.65, balance: 0.01 },
      ],
      "$.loan.totalInterest": 20.06,
    },
  },
  notes: [
    "`[1..loan.months]` builds the period numbers; `$map` turns each into a row. Wrap the result in `[...]` " +
    "so a one-month loan still yields an array.",
    "The payment is rounded to cents, so the last balance can be off by a cent: show it, or make the final " +
    "row absorb it (`$k = loan.months ? 0 : ...`).",
    "`$power(1 + $r, -$n)` needs the monthly rate as a fraction: percent / 100 / 12.",
    "A long schedule (360 rows) is fine to compute eagerly; mark it `evaluation: lazy` if it is only read " +
    "occasionally and its inputs change often.",
  ],
};

/** Future value of a balance with regular contributions, and a yearly series. */
export const COMPOUND_GROWTH: GuidanceTopic = {
  id: "compound-growth",
  title: "Compound growth with contributions",
  whenToUse: "Savings, investments or any quantity growing by a rate per period, optionally with a fixed " +
    "contribution each period: the final value and a per-year series for a chart.",
  fragment: {
    derivations: [
      {
        path: "$.plan.futureValue",
        expr: "($r := plan.annualRatePercent / 100; $n := plan.years; " +
          "$round(plan.initial * $power(1 + $r, $n) + ($r = 0 ? plan.yearlyContribution * $n : " +
          "plan.yearlyContribution * ($power(1 + $r, $n) - 1) / $r), 2))",
        description: "Contributions at the end of each year.",
      },
      {
        path: "$.plan.series",
        expr: "($r := plan.annualRatePercent / 100; " +
          "[$map([1..plan.years], function($y) { {'year': $y, 'value': $round(plan.initial * $power(1 + $r, $y) + " +
          "($r = 0 ? plan.yearlyContribution * $y : plan.yearlyContribution * ($power(1 + $r, $y) - 1) / $r), 2)} })])",
      },
      {
        path: "$.plan.totalContributed",
        expr: "plan.initial + plan.yearlyContribution * plan.years",
      },
    ],
  },
  sample: {
    input: { plan: { initial: 10000, yearlyContribution: 1200, annualRatePercent: 5, years: 3 } },
    expected: {
      "$.plan.futureValue": 15359.25,
      "$.plan.series": [
        { year: 1, value: 11700 },
        { year: 2, value: 13485 },
        { year: 3, value: 15359.25 },
      ],
      "$.plan.totalContributed": 13600,
    },
  },
  notes: [
    "Round only the value you show: each series point is computed from the closed form, not from the " +
    "previous rounded point, so rounding never accumulates.",
    "JSONata numbers are IEEE doubles: 1.05^3 is 1.1576250000000001. `$round(x, 2)` hides that, but it " +
    "rounds half to even: `$round(0.125, 2)` is 0.12.",
    "Monthly compounding: divide the rate by 12 and multiply the periods by 12.",
  ],
};

/** A share of a total and a change between two values, in percent. */
export const PERCENTAGES: GuidanceTopic = {
  id: "percentages",
  title: "Percentages: share of total, change, discount",
  whenToUse: "A per-item share of a total, a percent change between two values, or applying a percent " +
    "discount or markup.",
  fragment: {
    derivations: [
      {
        path: "$.items[*].sharePercent",
        expr: "($total := $sum(items.amount); $total = 0 ? 0 : $round($parent.amount / $total * 100, 1))",
        description:
          "Per element: $parent is this item, `items` is still the whole list (the root is the context).",
      },
      {
        path: "$.changePercent",
        expr: "lastYear = 0 ? null : $round((thisYear - lastYear) / lastYear * 100, 1)",
      },
      { path: "$.discounted", expr: "$round(thisYear * (1 - discountPercent / 100), 2)" },
    ],
  },
  sample: {
    input: {
      items: [{ amount: 50 }, { amount: 30 }, { amount: 20 }],
      lastYear: 80,
      thisYear: 100,
      discountPercent: 12.5,
    },
    expected: {
      "$.items[0].sharePercent": 50,
      "$.items[2].sharePercent": 20,
      "$.changePercent": 25,
      "$.discounted": 87.5,
    },
  },
  notes: [
    "Decide whether the field holds 12.5 or 0.125 and name it so (`discountPercent` vs `discountRate`); " +
    "the view's `percent` format appends % without rescaling.",
    "Guard divisions: dividing by 0 yields Infinity, which the engine stores as null.",
    "A per-element derivation that reads an aggregate (`$sum(items.amount)`) is recomputed for every " +
    "element when any amount changes.",
  ],
};

/** A fee prorated by the days used in its period. */
export const PRORATION: GuidanceTopic = {
  id: "proration",
  title: "Proration by days",
  whenToUse: "Charging part of a period: a subscription starting mid-month, a refund for unused days, rent " +
    "for a partial month.",
  fragment: {
    derivations: [
      {
        path: "$.billing.daysInMonth",
        expr: "billing.startDate ? ($y := $number($substring(billing.startDate, 0, 4)); " +
          "$m := $number($substring(billing.startDate, 5, 2)); " +
          "$next := $m = 12 ? $string($y + 1) & '-01-01' : $string($y) & '-' & $formatInteger($m + 1, '00') & '-01'; " +
          "($toMillis($next) - $toMillis($substring(billing.startDate, 0, 8) & '01')) / 86400000)",
        description: "Days of the start date's month: from its 1st to the 1st of the next month. The guard " +
          "matters: derivations also run when the model is created, before any date is written.",
      },
      {
        path: "$.billing.daysUsed",
        expr: "billing.daysInMonth - $number($substring(billing.startDate, 8, 2)) + 1",
        description: "The start day itself counts.",
      },
      {
        path: "$.billing.firstCharge",
        expr: "$round(billing.monthlyFee * billing.daysUsed / billing.daysInMonth, 2)",
      },
    ],
  },
  sample: {
    input: { billing: { monthlyFee: 30, startDate: "2024-02-20" } },
    expected: { "$.billing.daysInMonth": 29, "$.billing.daysUsed": 10, "$.billing.firstCharge": 10.34 },
  },
  notes: [
    "Compute days from dates, never assume 30: February 2024 has 29 days.",
    "Decide whether the start day counts (here it does: 20..29 is 10 days) and test the boundary.",
    "Round the charge once, at the end.",
    "`$toMillis` throws on anything that is not an ISO 8601 timestamp; an evaluation error at creation " +
    "refuses the spec, and during a mutation rejects the mutation (422). Guard date arithmetic with a " +
    "condition on the input.",
  ],
};

/** An average weighted by a second field, safe when no weights are present. */
export const WEIGHTED_AVERAGE: GuidanceTopic = {
  id: "weighted-average",
  title: "Weighted average",
  whenToUse: "Grades weighted by credits, a price averaged by quantity, a score weighted by importance.",
  fragment: {
    derivations: [
      {
        path: "$.weightedScore",
        expr: "($w := $sum([criteria[$exists(score)].weight]); " +
          "$w = 0 ? null : $round($sum([criteria[$exists(score)].(score * weight)]) / $w, 2))",
        description: "Criteria without a score do not count, neither in the sum nor in the weights.",
      },
    ],
  },
  sample: {
    input: {
      criteria: [
        { name: "price", weight: 3, score: 8 },
        { name: "quality", weight: 2, score: 6 },
        { name: "support", weight: 1 },
      ],
    },
    expected: { "$.weightedScore": 7.2 },
  },
  notes: [
    "`criteria.(score * weight)` multiplies per element; `criteria.score * criteria.weight` fails as soon " +
    "as there are two elements (a list is not a number).",
    "`$average` ignores weights, and returns nothing (not 0) for an empty list.",
    "Returning null for no weights keeps the field present but empty; returning nothing removes it.",
  ],
};

/** Converting amounts with a rate table held in constants. */
export const CURRENCY_CONVERSION: GuidanceTopic = {
  id: "currency-conversion",
  title: "Currency conversion with a rate table",
  whenToUse: "Amounts entered in several currencies and reported in one, with rates held as constants " +
    "(or written by an effect that fetches them).",
  fragment: {
    constants: {
      ratesToEur: [{ code: "EUR", rate: 1 }, { code: "USD", rate: 0.92 }, { code: "GBP", rate: 1.17 }],
    },
    derivations: [
      {
        path: "$.expenses[*].amountEur",
        expr: "$round($parent.amount * $const.ratesToEur[code = $parent.currency].rate, 2)",
        description: "Inside the filter, `code` is the rate entry's field and $parent the expense.",
      },
      { path: "$.totalEur", expr: "$round($sum([expenses.amountEur]), 2)" },
    ],
    constraints: [
      {
        id: "known-currency",
        path: "$.expenses[*]",
        expr: "$parent.currency in $const.ratesToEur.code",
        message: "No exchange rate for this currency",
        policy: "flag",
      },
    ],
  },
  sample: {
    input: {
      expenses: [
        { amount: 100, currency: "USD" },
        { amount: 50, currency: "GBP" },
        { amount: 10, currency: "CHF" },
      ],
    },
    expected: {
      "$.expenses[0].amountEur": 92,
      "$.expenses[1].amountEur": 58.5,
      "$.expenses[2].amountEur": null,
      "$.totalEur": 150.5,
    },
    flagged: ["known-currency"],
  },
  notes: [
    "An unknown currency finds no rate: the multiplication yields nothing and the field is absent, which " +
    "the total then skips. Flag it (as here) or roll it back, rather than letting totals silently shrink.",
    "Rates that change belong in a base field written by a server effect's fold-back; constants are fixed " +
    "until the spec evolves.",
    "Prefer a filtered table (`$const.rates[code = ...]`) to `$lookup($const.rates, ...)`: both work, but " +
    "validation warns about every `$lookup(` because it can hide dependencies.",
  ],
};

/** Every finance topic, in menu order. */
export const FINANCE_TOPICS: readonly GuidanceTopic[] = [
  AMORTIZATION_SCHEDULE,
  COMPOUND_GROWTH,
  PERCENTAGES,
  PRORATION,
  WEIGHTED_AVERAGE,
  CURRENCY_CONVERSION,
];
