/**
 * Example spec: a monthly savings plan towards a goal, with a two-layer library.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Savings plan: compound growth of a deposit and monthly contributions, the goal, inflation. */
export const SAVINGS_PLAN: ModelSpec = {
  _name: "Savings plan",
  _description: "Projects a starting deposit plus a fixed monthly contribution at a yearly return, " +
    "compounded monthly: the balance at the end, what was paid in and what the return added, the end " +
    "balance in today's money after inflation, the month a savings goal is reached and the balance year " +
    "by year. Its library has two layers: compound-interest basics, and the plan's own functions built on " +
    "them.",
  id: "savings-plan",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      initialDeposit: { type: "number", minimum: 0 },
      monthlyContribution: { type: "number", minimum: 0 },
      annualReturnPercent: { type: "number", minimum: -10, maximum: 20 },
      years: { type: "integer", minimum: 1 },
      inflationPercent: { type: "number", minimum: 0, maximum: 20 },
      goal: { type: "number", minimum: 0 },
      finalBalance: { type: "number", readOnly: true },
      totalContributed: { type: "number", readOnly: true },
      returnEarned: { type: "number", readOnly: true },
      realFinalBalance: { type: "number", readOnly: true },
      monthsToGoal: { type: "integer", readOnly: true },
      goalProgressPercent: { type: "number", readOnly: true },
      yearly: { type: "array", readOnly: true, items: { type: "object" } },
    },
  },
  constants: { maxYears: 50, maxMonthly: 10000 },
  library: {
    description: "Compound growth with monthly contributions.",
    layers: [{
      define: `(
  $round2 := function($x) { $round($x, 2) };
  $futureValue := function($initial, $monthly, $ratePercent, $months) {(
    $r := $ratePercent / 1200;
    $grown := $power(1 + $r, $months);
    $r = 0 ? $initial + $monthly * $months : $initial * $grown + $monthly * ($grown - 1) / $r
  )};
  $todaysMoney := function($amount, $inflationPercent, $years) {
    $amount / $power(1 + $inflationPercent / 100, $years)
  };
  ["round2", "futureValue", "todaysMoney"]
)`,
      signatures: { futureValue: "<nnnn:n>", todaysMoney: "<nnn:n>" },
    }],
    define: `(
  $monthsToReach := function($initial, $monthly, $ratePercent, $goal, $limit) {(
    $reached := function($months) { $futureValue($initial, $monthly, $ratePercent, $months) >= $goal };
    $first := function($low, $high) {
      $low >= $high ? $low : (
        $middle := $floor(($low + $high) / 2);
        $reached($middle) ? $first($low, $middle) : $first($middle + 1, $high)
      )
    };
    $reached($limit) ? $first(0, $limit)
  )};
  $byYear := function($initial, $monthly, $ratePercent, $years) {
    [1..$years].{
      "year": $,
      "balance": $round2($futureValue($initial, $monthly, $ratePercent, $ * 12)),
      "contributed": $initial + $monthly * $ * 12
    }
  };
  ["monthsToReach", "byYear"]
)`,
  },
  defaultValues: [{
    path: "$",
    expr: "{'initialDeposit': 0, 'monthlyContribution': 100, 'annualReturnPercent': 4, 'years': 10, " +
      "'inflationPercent': 2}",
  }],
  derivations: [
    {
      path: "$.finalBalance",
      expr: "$round2($futureValue(initialDeposit, monthlyContribution, annualReturnPercent, years * 12))",
    },
    { path: "$.totalContributed", expr: "initialDeposit + monthlyContribution * years * 12" },
    { path: "$.returnEarned", expr: "$round2(finalBalance - totalContributed)" },
    {
      path: "$.realFinalBalance",
      expr: "$round2($todaysMoney(finalBalance, inflationPercent, years))",
      description: "The end balance in today's money.",
    },
    {
      path: "$.monthsToGoal",
      expr: "goal > 0 ? $monthsToReach(initialDeposit, monthlyContribution, annualReturnPercent, goal, " +
        "$const.maxYears * 12)",
      description: "Absent when the goal is out of reach within the longest plan.",
    },
    {
      path: "$.goalProgressPercent",
      expr: "goal > 0 ? $min([100, $round(finalBalance / goal * 100, 1)])",
    },
    {
      path: "$.yearly",
      expr: "[$byYear(initialDeposit, monthlyContribution, annualReturnPercent, years)]",
      evaluation: "lazy",
    },
  ],
  metaDerivations: [
    {
      path: "$.goal",
      property: "minimum",
      expr: "initialDeposit",
      description: "A goal below the starting deposit is reached before the plan starts.",
    },
    { path: "$.monthlyContribution", property: "maximum", expr: "$const.maxMonthly" },
    { path: "$.years", property: "maximum", expr: "$const.maxYears" },
  ],
  constraints: [
    {
      id: "horizon",
      expr: "$not(years > $const.maxYears)",
      message: "Plans run for at most 50 years",
      policy: "rollback",
    },
    {
      id: "goal-in-time",
      expr: "$not(goal > 0 and $not(monthsToGoal <= years * 12))",
      message: "The goal is not reached before the plan ends",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "goal-reached",
      executor: "caller",
      trigger: "goalProgressPercent >= 100",
      emit: "savings.goal-reached",
      payload: "{'months': monthsToGoal, 'balance': finalBalance}",
      description: "Tells the caller when the plan reaches its goal.",
    },
  ],
  tests: [
    {
      description: "200 a month at 5% for ten years on top of 1,000",
      given: {
        "$.initialDeposit": 1000,
        "$.monthlyContribution": 200,
        "$.annualReturnPercent": 5,
        "$.years": 10,
      },
      expect: {
        "$.finalBalance": 32703.47,
        "$.totalContributed": 25000,
        "$.returnEarned": 7703.47,
        "$.realFinalBalance": 26828.24,
        "$.monthsToGoal": null,
      },
    },
    {
      description: "no return: only what was paid in",
      given: {
        "$.initialDeposit": 500,
        "$.monthlyContribution": 100,
        "$.annualReturnPercent": 0,
        "$.years": 2,
        "$.inflationPercent": 0,
      },
      expect: {
        "$.finalBalance": 2900,
        "$.returnEarned": 0,
        "$.realFinalBalance": 2900,
        "$.yearly[1].balance": 2900,
      },
    },
    {
      description: "a goal reached in time",
      given: { "$.monthlyContribution": 300, "$.annualReturnPercent": 6, "$.years": 10, "$.goal": 30000 },
      expect: {
        "$.monthsToGoal": 82,
        "$.goalProgressPercent": 100,
        "$.yearly[0]": { year: 1, balance: 3700.67, contributed: 3600 },
      },
    },
    {
      description: "a goal too far for the plan",
      given: { "$.monthlyContribution": 100, "$.years": 5, "$.goal": 100000 },
      expect: { "$.monthsToGoal": 441, "$.goalProgressPercent": 6.6 },
    },
    {
      description: "limits follow the inputs",
      given: { "$.initialDeposit": 2500 },
      expect: {
        "$.goal": { $meta: { minimum: 2500 } },
        "$.monthlyContribution": { $meta: { maximum: 10000 } },
        "$.years": { $meta: { maximum: 50 } },
      },
    },
  ],
  viewDefinition: {
    defaultView: "plan",
    views: [
      {
        id: "plan",
        label: "Savings plan",
        components: [
          {
            id: "inputs",
            type: "fieldSet",
            legend: "Plan",
            layout: "horizontal",
            components: [
              { id: "initial", type: "currencyField", label: "Start with", bind: "$.initialDeposit" },
              { id: "monthly", type: "currencyField", label: "Each month", bind: "$.monthlyContribution" },
              {
                id: "return",
                type: "sliderField",
                label: "Return (% a year)",
                bind: "$.annualReturnPercent",
                min: -5,
                max: 12,
                step: 0.5,
              },
              {
                id: "years",
                type: "numericStepper",
                label: "Years",
                bind: "$.years",
                min: 1,
                max: 50,
                step: 1,
              },
              { id: "inflation", type: "percentField", label: "Inflation (%)", bind: "$.inflationPercent" },
              { id: "goal", type: "currencyField", label: "Goal", bind: "$.goal" },
            ],
          },
          {
            id: "outcome",
            type: "group",
            layout: "horizontal",
            components: [
              {
                id: "final",
                type: "statTile",
                label: "At the end",
                bind: "$.finalBalance",
                format: "currency",
                currency: "EUR",
                caption: "'of which return ' & $formatNumber(returnEarned, '#,##0.00')",
              },
              {
                id: "real",
                type: "statTile",
                label: "In today's money",
                bind: "$.realFinalBalance",
                format: "currency",
                currency: "EUR",
              },
              {
                id: "progress",
                type: "progressBar",
                label: "Goal reached (%)",
                bind: "$.goalProgressPercent",
                min: 0,
                max: 100,
                showValue: true,
                visible: "goal > 0",
              },
            ],
          },
          {
            id: "late",
            type: "alert",
            variant: "warning",
            text: "$exists(monthsToGoal) ? 'The goal takes ' & $string(monthsToGoal) & ' months' : " +
              "'The goal is out of reach'",
            visible: "goal > 0 and $not(monthsToGoal <= years * 12)",
          },
          {
            id: "growth",
            type: "dataChart",
            label: "Balance by year",
            chartType: "line",
            bind: "$.yearly",
            chartX: "year",
            chartSeries: [
              { field: "balance", label: "Balance" },
              { field: "contributed", label: "Paid in" },
            ],
          },
          {
            id: "table",
            type: "dataTable",
            bind: "$.yearly",
            pageSize: 10,
            tableColumns: [
              { field: "year", header: "Year", format: "integer" },
              { field: "contributed", header: "Paid in", format: "currency", currency: "EUR" },
              { field: "balance", header: "Balance", format: "currency", currency: "EUR" },
            ],
          },
        ],
      },
    ],
  },
};
