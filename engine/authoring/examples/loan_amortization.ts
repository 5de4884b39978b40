/**
 * Example spec: a loan's annuity payment and amortisation schedule, computed by a library.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Loan amortisation: the payment, the payoff with extra payments, the schedule and the interest saved. */
export const LOAN_AMORTIZATION: ModelSpec = {
  _name: "Loan amortisation",
  _description: "Computes the monthly annuity payment of a loan and, with an optional extra monthly " +
    "payment, the payoff month, the interest paid and the interest the extra payment saves; the first " +
    "year's schedule rows and the balance at each year's end feed a table and a chart. The annuity " +
    "arithmetic lives in the spec's library, shared by the derivations and the view.",
  id: "loan-amortization",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      principal: { type: "number", minimum: 0 },
      annualRatePercent: { type: "number", minimum: 0, maximum: 30 },
      years: { type: "integer", minimum: 1, maximum: 40 },
      extraMonthly: { type: "number", minimum: 0 },
      startDate: { type: "string", format: "date" },
      monthlyPayment: { type: "number", readOnly: true },
      payoffMonths: { type: "integer", readOnly: true },
      payoffDate: { type: "string", readOnly: true },
      totalInterest: { type: "number", readOnly: true },
      totalPaid: { type: "number", readOnly: true },
      interestSaved: { type: "number", readOnly: true },
      firstYear: { type: "array", readOnly: true, items: { type: "object" } },
      yearEndBalances: { type: "array", readOnly: true, items: { type: "object" } },
    },
  },
  constants: { maxPrincipal: 5000000, maxRatePercent: 30 },
  library: {
    description: "Annuity arithmetic in closed form: the payment, the balance after any month, the payoff " +
      "month (a binary search over the balance), the interest, schedule rows and calendar months.",
    define: `(
  $round2 := function($x) { $round($x, 2) };
  $payment := function($principal, $ratePercent, $months) {(
    $r := $ratePercent / 1200;
    $r = 0 ? $principal / $months : $principal * $r / (1 - $power(1 + $r, -$months))
  )};
  $balance := function($principal, $ratePercent, $pay, $month) {(
    $r := $ratePercent / 1200;
    $grown := $power(1 + $r, $month);
    $r = 0 ? $principal - $pay * $month : $principal * $grown - $pay * ($grown - 1) / $r
  )};
  $payoffMonths := function($principal, $ratePercent, $pay, $max) {(
    $search := function($low, $high) {
      $low >= $high ? $low : (
        $middle := $floor(($low + $high) / 2);
        $balance($principal, $ratePercent, $pay, $middle) < 1 ? $search($low, $middle) : $search($middle + 1, $high)
      )
    };
    $search(1, $max)
  )};
  $lastPayment := function($principal, $ratePercent, $pay, $months) {
    $balance($principal, $ratePercent, $pay, $months - 1) * (1 + $ratePercent / 1200)
  };
  $interestPaid := function($principal, $ratePercent, $pay, $months) {
    $pay * ($months - 1) + $lastPayment($principal, $ratePercent, $pay, $months) - $principal
  };
  $schedule := function($principal, $ratePercent, $pay, $months, $count) {
    [1..$min([$count, $months])].(
      $before := $balance($principal, $ratePercent, $pay, $ - 1);
      $interest := $before * $ratePercent / 1200;
      $paid := $ = $months ? $before : $pay - $interest;
      {"month": $, "interest": $round2($interest), "principal": $round2($paid), "balance": $round2($before - $paid)}
    )
  };
  $yearEnds := function($principal, $ratePercent, $pay, $months) {
    [1..$ceil($months / 12)].{
      "year": $,
      "balance": $ * 12 >= $months ? 0 : $round2($balance($principal, $ratePercent, $pay, $ * 12))
    }
  };
  $addMonths := function($date, $months) {(
    $m := $number($substring($date, 5, 2)) - 1 + $months;
    $string($number($substring($date, 0, 4)) + $floor($m / 12)) & "-" & $pad($string($m % 12 + 1), -2, "0")
  )};
  ["round2", "payment", "payoffMonths", "interestPaid", "schedule", "yearEnds", "addMonths"]
)`,
    signatures: { payment: "<nnn:n>", addMonths: "<sn:s>" },
  },
  defaultValues: [{ path: "$", expr: "{'annualRatePercent': 5, 'years': 25, 'extraMonthly': 0}" }],
  derivations: [
    {
      path: "$.monthlyPayment",
      expr:
        "$exists(principal) and principal > 0 ? $round2($payment(principal, annualRatePercent, years * 12))",
      description: "The annuity payment that clears the loan in exactly `years`.",
    },
    {
      path: "$.payoffMonths",
      expr: "$exists(monthlyPayment) ? $payoffMonths(principal, annualRatePercent, monthlyPayment + " +
        "extraMonthly, years * 12)",
      description: "The month whose payment clears the loan (the last payment settles what is left).",
    },
    {
      path: "$.payoffDate",
      expr: "$exists(startDate) and payoffMonths > 0 ? $addMonths(startDate, payoffMonths - 1)",
      description: "The calendar month of the last payment (the first is due in the start month).",
    },
    {
      path: "$.totalInterest",
      expr: "$exists(payoffMonths) ? $round2($interestPaid(principal, annualRatePercent, monthlyPayment + " +
        "extraMonthly, payoffMonths))",
    },
    { path: "$.totalPaid", expr: "$round2(principal + totalInterest)" },
    {
      path: "$.interestSaved",
      expr: "$exists(totalInterest) ? $round2($interestPaid(principal, annualRatePercent, monthlyPayment, " +
        "years * 12) - totalInterest)",
      description: "Against the same loan without the extra payment.",
      evaluation: "lazy",
    },
    {
      path: "$.firstYear",
      expr:
        "$exists(payoffMonths) ? [$schedule(principal, annualRatePercent, monthlyPayment + extraMonthly, " +
        "payoffMonths, 12)]",
    },
    {
      path: "$.yearEndBalances",
      expr:
        "$exists(payoffMonths) ? [$yearEnds(principal, annualRatePercent, monthlyPayment + extraMonthly, " +
        "payoffMonths)]",
    },
  ],
  metaDerivations: [
    {
      path: "$.extraMonthly",
      property: "maximum",
      expr: "principal",
      description: "An extra payment never exceeds the amount borrowed.",
    },
    { path: "$.extraMonthly", property: "relevant", expr: "$exists(monthlyPayment)" },
    { path: "$.annualRatePercent", property: "maximum", expr: "$const.maxRatePercent" },
  ],
  constraints: [
    {
      id: "principal-offered",
      expr: "$not(principal > $const.maxPrincipal)",
      message: "Loans above 5,000,000 are not offered",
      policy: "rollback",
    },
    {
      id: "interest-heavy",
      expr: "$not(totalInterest > principal)",
      message: "The interest exceeds the amount borrowed",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "quoted",
      executor: "caller",
      trigger: "$exists(monthlyPayment)",
      emit: "loan.quoted",
      payload: { payment: "monthlyPayment", months: "payoffMonths", interest: "totalInterest" },
      description: "Hands the caller the quote whenever it changes.",
    },
  ],
  tests: [
    {
      description: "a 30-year mortgage at 6%",
      given: { "$.principal": 200000, "$.annualRatePercent": 6, "$.years": 30 },
      expect: {
        "$.monthlyPayment": 1199.1,
        "$.payoffMonths": 360,
        "$.totalInterest": 231677.06,
        "$.totalPaid": 431677.06,
        "$.interestSaved": 0,
        "$.firstYear[11]": { month: 12, interest: 988.77, principal: 210.33, balance: 197543.99 },
        "$.firstYear[0]": { month: 1, interest: 1000, principal: 199.1, balance: 199800.9 },
        "$.yearEndBalances[0]": { year: 1, balance: 197543.99 },
      },
    },
    {
      description: "an extra 200 a month pays off years earlier and saves interest",
      given: {
        "$.principal": 200000,
        "$.annualRatePercent": 6,
        "$.years": 30,
        "$.extraMonthly": 200,
        "$.startDate": "2025-03-01",
      },
      expect: {
        "$.monthlyPayment": 1199.1,
        "$.payoffMonths": 252,
        "$.payoffDate": "2046-02",
        "$.totalInterest": 151876.14,
        "$.interestSaved": 79800.92,
      },
    },
    {
      description: "no interest: equal instalments",
      given: { "$.principal": 12000, "$.annualRatePercent": 0, "$.years": 1, "$.startDate": "2025-11-15" },
      expect: {
        "$.monthlyPayment": 1000,
        "$.payoffMonths": 12,
        "$.payoffDate": "2026-10",
        "$.totalInterest": 0,
        "$.yearEndBalances": [{ year: 1, balance: 0 }],
      },
    },
    {
      description: "limits follow the loan",
      given: { "$.principal": 8000, "$.years": 2 },
      expect: {
        "$.extraMonthly": { $meta: { maximum: 8000, relevant: true } },
        "$.annualRatePercent": { $meta: { maximum: 30 } },
        "$.monthlyPayment": 350.97,
      },
    },
    {
      description: "nothing borrowed, nothing computed",
      given: { "$.years": 10 },
      expect: { "$.monthlyPayment": null, "$.extraMonthly": { $meta: { relevant: false } } },
    },
  ],
  viewDefinition: {
    defaultView: "loan",
    views: [
      {
        id: "loan",
        label: "Loan amortisation",
        components: [
          {
            id: "terms",
            type: "card",
            label: "Loan",
            layout: "horizontal",
            components: [
              {
                id: "principal",
                type: "currencyField",
                label: "Amount",
                bind: "$.principal",
                currency: "EUR",
              },
              {
                id: "rate",
                type: "sliderField",
                label: "Interest (% a year)",
                bind: "$.annualRatePercent",
                min: 0,
                max: 15,
                step: 0.1,
              },
              {
                id: "years",
                type: "numericStepper",
                label: "Years",
                bind: "$.years",
                min: 1,
                max: 40,
                step: 1,
              },
              { id: "extra", type: "currencyField", label: "Extra each month", bind: "$.extraMonthly" },
              { id: "start", type: "dateField", label: "First payment", bind: "$.startDate" },
            ],
          },
          {
            id: "result",
            type: "group",
            layout: "horizontal",
            components: [
              {
                id: "payment",
                type: "statTile",
                label: "Monthly payment",
                bind: "$.monthlyPayment",
                format: "currency",
                currency: "EUR",
              },
              {
                id: "months",
                type: "statTile",
                label: "Paid off after (months)",
                bind: "$.payoffMonths",
                caption: "$exists(payoffDate) ? 'last payment ' & payoffDate : ''",
              },
              {
                id: "saved",
                type: "statTile",
                label: "Interest saved",
                bind: "$.interestSaved",
                format: "currency",
                currency: "EUR",
                visible: "extraMonthly > 0",
              },
            ],
          },
          {
            id: "heavy",
            type: "badge",
            variant: "warning",
            text: "'Interest is ' & $string($round2(totalInterest / principal * 100)) & '% of the amount'",
            visible: "totalInterest > principal",
          },
          {
            id: "totals",
            type: "keyValueList",
            items: [
              { label: "Total interest", bind: "$.totalInterest", format: "currency", currency: "EUR" },
              { label: "Total paid", bind: "$.totalPaid", format: "currency", currency: "EUR" },
            ],
          },
          {
            id: "schedule",
            type: "dataTable",
            label: "First year",
            bind: "$.firstYear",
            pageSize: 12,
            tableColumns: [
              { field: "month", header: "Month", format: "integer" },
              { field: "interest", header: "Interest", format: "currency", currency: "EUR" },
              { field: "principal", header: "Principal", format: "currency", currency: "EUR" },
              { field: "balance", header: "Balance", format: "currency", currency: "EUR" },
            ],
          },
          {
            id: "balances",
            type: "dataChart",
            label: "Balance at each year's end",
            chartType: "line",
            bind: "$.yearEndBalances",
            chartX: "year",
            chartSeries: [{ field: "balance", label: "Balance" }],
          },
        ],
      },
    ],
  },
};
