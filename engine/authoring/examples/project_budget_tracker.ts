/**
 * Example spec: a project budget tracked by category against approved expenses.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Project budget with per-category utilisation, burn rate and a monthly spend series. */
export const PROJECT_BUDGET_TRACKER: ModelSpec = {
  _name: "Project budget tracker",
  _description: "Budget lines per category, expenses booked against them and approved by a manager. Each " +
    "category shows what it spent and its status; the project adds a contingency reserve, a daily burn rate " +
    "and a forecast at completion. The monthly spend series is a lazy derivation, computed when read. The " +
    "caller is told when approved spending exceeds the budget plus contingency.",
  id: "project-budget-tracker",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      project: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1 },
          startDate: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
          endDate: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
          contingencyPercent: { type: "number", minimum: 0, maximum: 30 },
        },
      },
      asOf: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
      categories: {
        type: "array",
        items: {
          type: "object",
          properties: {
            name: { type: "string", minLength: 1 },
            budget: { type: "number", minimum: 0 },
            spent: { type: "number", readOnly: true },
            remaining: { type: "number", readOnly: true },
            utilization: { type: "number", readOnly: true },
            status: { type: "string", readOnly: true },
          },
        },
      },
      expenses: {
        type: "array",
        items: {
          type: "object",
          properties: {
            date: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
            category: { type: "string" },
            description: { type: "string" },
            amount: { type: "number", exclusiveMinimum: 0 },
            approved: { type: "boolean" },
          },
        },
      },
      totalBudget: { type: "number", readOnly: true },
      contingency: { type: "number", readOnly: true },
      totalSpent: { type: "number", readOnly: true },
      pendingApproval: { type: "number", readOnly: true },
      remaining: { type: "number", readOnly: true },
      burnRatePerDay: { type: "number", readOnly: true },
      forecastAtCompletion: { type: "number", readOnly: true },
      spendByMonth: { type: "array", readOnly: true },
    },
  },
  constants: { atRiskPercent: 85 },
  defaultValues: [
    {
      path: "$",
      expr: "{'project': {'contingencyPercent': 10}}",
      description: "Projects reserve 10% contingency unless told otherwise.",
    },
    { path: "$.categories[*]", expr: "{'budget': 0}" },
    { path: "$.expenses[*]", expr: "{'approved': false}", description: "New expenses await approval." },
  ],
  derivations: [
    {
      path: "$.categories[*].spent",
      expr: "$round($sum([expenses[category = $parent.name and approved = true].amount]), 2)",
      description: "Approved spending booked against this category.",
    },
    { path: "$.categories[*].remaining", expr: "$round($parent.budget - $parent.spent, 2)" },
    {
      path: "$.categories[*].utilization",
      expr: "$parent.budget > 0 ? $round($parent.spent / $parent.budget * 100, 1) : 0",
      description: "Percent of the category budget spent.",
    },
    {
      path: "$.categories[*].status",
      expr:
        "$parent.utilization >= 100 ? 'over' : $parent.utilization >= $const.atRiskPercent ? 'at-risk' : " +
        "'on-track'",
    },
    { path: "$.totalBudget", expr: "$sum([categories.budget])" },
    { path: "$.contingency", expr: "$round(totalBudget * project.contingencyPercent / 100, 2)" },
    { path: "$.totalSpent", expr: "$round($sum([expenses[approved = true].amount]), 2)" },
    {
      path: "$.pendingApproval",
      expr: "$round($sum([expenses[$not(approved = true)].amount]), 2)",
      description: "Expenses not approved yet (a missing flag counts as not approved).",
    },
    { path: "$.remaining", expr: "$round(totalBudget + contingency - totalSpent, 2)" },
    {
      path: "$.burnRatePerDay",
      expr: "project.startDate and asOf >= project.startDate ? " +
        "$round(totalSpent / (($toMillis(asOf) - $toMillis(project.startDate)) / 86400000 + 1), 2)",
      description: "Approved spend per calendar day from the start date to the as-of date, both included.",
    },
    {
      path: "$.forecastAtCompletion",
      expr: "$exists(burnRatePerDay) and project.endDate ? " +
        "$round(burnRatePerDay * (($toMillis(project.endDate) - $toMillis(project.startDate)) / 86400000 + 1), 2)",
      description: "What the project costs if it keeps burning at the current rate until its end date.",
    },
    {
      path: "$.spendByMonth",
      evaluation: "lazy",
      expr: "$sort($each(expenses[approved = true]{$substring(date, 0, 7): $sum(amount)}, " +
        "function($amount, $month) {{'month': $month, 'amount': $round($amount, 2)}}), " +
        "function($a, $b) {$a.month > $b.month})",
      description: "Approved spend per month (YYYY-MM), oldest first; computed when read.",
    },
  ],
  metaDerivations: [
    {
      path: "$.expenses[*].category",
      property: "enum",
      expr: "[categories.name]",
      description: "An expense is booked against a declared category ([...] keeps one name a list).",
    },
    {
      path: "$.expenses[*].approved",
      property: "readOnly",
      expr: "$not($exists(project.name))",
      description: "Approvals wait until the project is named.",
    },
    { path: "$.project.endDate", property: "required", expr: "$exists(project.startDate)" },
  ],
  constraints: [
    {
      id: "unique-category-names",
      expr: "$count(categories) = $count($distinct(categories.name))",
      message: "Category names must be unique",
      policy: "rollback",
    },
    {
      id: "end-after-start",
      expr: "$not(project.startDate and project.endDate) or project.endDate >= project.startDate",
      message: "The project cannot end before it starts",
      policy: "rollback",
    },
    {
      id: "category-within-budget",
      path: "$.categories[*]",
      expr: "$parent.spent <= $parent.budget",
      message: "A category spent more than its budget",
      policy: "flag",
    },
    {
      id: "project-within-reserve",
      expr: "remaining >= 0",
      message: "Approved spending exceeds the budget including contingency",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "budget-exceeded",
      executor: "caller",
      trigger: "remaining < 0",
      emit: "budget.exceeded",
      payload: { project: "project.name", overBy: "-remaining", totalSpent: "totalSpent" },
      description: "Asks the caller to escalate once the reserve is used up.",
    },
  ],
  tests: [
    {
      description: "approved expenses count against their category; pending ones do not",
      given: {
        "$.categories[0]": { name: "Design", budget: 5000 },
        "$.categories[1]": { name: "Build", budget: 20000 },
        "$.expenses[0]": { date: "2024-02-03", category: "Design", amount: 4500, approved: true },
        "$.expenses[1]": { date: "2024-02-10", category: "Build", amount: 3000 },
      },
      expect: {
        "$.categories[0].spent": 4500,
        "$.categories[0].utilization": 90,
        "$.categories[0].status": "at-risk",
        "$.categories[1].spent": 0,
        "$.categories[1].status": "on-track",
        "$.totalBudget": 25000,
        "$.contingency": 2500,
        "$.pendingApproval": 3000,
        "$.remaining": 23000,
        "$.expenses[1].approved": false,
        "$.expenses[0].category": { $meta: { enum: ["Design", "Build"] } },
      },
    },
    {
      description: "burn rate and forecast use inclusive calendar days",
      given: {
        "$.project": {
          name: "Website",
          startDate: "2024-03-01",
          endDate: "2024-05-29",
          contingencyPercent: 0,
        },
        "$.asOf": "2024-03-10",
        "$.categories[0]": { name: "Build", budget: 10000 },
        "$.expenses[0]": { date: "2024-03-05", category: "Build", amount: 1500, approved: true },
      },
      expect: {
        "$.burnRatePerDay": 150,
        "$.forecastAtCompletion": 13500,
        "$.remaining": 8500,
      },
    },
    {
      description: "overspending a category marks it over (125.05% rounds half-to-even to 125)",
      given: {
        "$.categories[0]": { name: "Travel", budget: 1000 },
        "$.expenses[0]": { date: "2024-04-01", category: "Travel", amount: 800, approved: true },
        "$.expenses[1]": { date: "2024-04-15", category: "Travel", amount: 450.5, approved: true },
      },
      expect: {
        "$.categories[0].spent": 1250.5,
        "$.categories[0].remaining": -250.5,
        "$.categories[0].utilization": 125,
        "$.categories[0].status": "over",
        "$.remaining": -150.5,
      },
    },
    {
      description: "the lazy monthly series groups approved spend by month",
      given: {
        "$.expenses[0]": { date: "2024-02-20", amount: 100, approved: true },
        "$.expenses[1]": { date: "2024-01-05", amount: 40, approved: true },
        "$.expenses[2]": { date: "2024-02-01", amount: 60.25, approved: true },
        "$.expenses[3]": { date: "2024-03-01", amount: 999 },
      },
      expect: {
        "$.spendByMonth": [{ month: "2024-01", amount: 40 }, { month: "2024-02", amount: 160.25 }],
      },
    },
    {
      description: "a start date makes the end date required",
      given: { "$.project.startDate": "2024-01-01" },
      expect: { "$.project.endDate": { $meta: { required: true } }, "$.burnRatePerDay": null },
    },
  ],
  viewDefinition: {
    defaultView: "tracker",
    views: [
      {
        id: "tracker",
        label: "Project budget",
        layout: "tabs",
        components: [
          {
            id: "tabs",
            type: "tabs",
            components: [
              {
                id: "overviewTab",
                type: "tabItem",
                label: "Overview",
                components: [
                  {
                    id: "kpis",
                    type: "group",
                    layout: "horizontal",
                    components: [
                      {
                        id: "budgetTile",
                        type: "statTile",
                        label: "Budget",
                        bind: "$.totalBudget",
                        format: "currency",
                      },
                      {
                        id: "spentTile",
                        type: "metric",
                        label: "Spent",
                        bind: "$.totalSpent",
                        format: "currency",
                        caption: "$formatNumber(pendingApproval, '#,##0.00') & ' awaiting approval'",
                        trend: "$$.remaining < 0 ? 'up' : 'flat'",
                        variant: "primary",
                      },
                      {
                        id: "remainingTile",
                        type: "statTile",
                        label: "Remaining incl. contingency",
                        bind: "$.remaining",
                        format: "currency",
                      },
                    ],
                  },
                  {
                    id: "usedGauge",
                    type: "progressBar",
                    label: "Budget used (%)",
                    value: "totalBudget > 0 ? $round(totalSpent / totalBudget * 100, 1) : 0",
                    min: 0,
                    max: 100,
                    showValue: true,
                  },
                  {
                    id: "overAlert",
                    type: "callout",
                    variant: "danger",
                    visible: "remaining < 0",
                    text: "Spending exceeds the budget including contingency.",
                  },
                  {
                    id: "monthly",
                    type: "dataChart",
                    label: "Spend per month",
                    chartType: "bar",
                    bind: "$.spendByMonth",
                    chartX: "month",
                    chartSeries: [{ field: "amount", label: "Approved spend", color: "#3b82f6" }],
                  },
                  {
                    id: "forecast",
                    type: "summaryList",
                    columns: 2,
                    items: [
                      { label: "Burn rate per day", bind: "$.burnRatePerDay", format: "currency" },
                      { label: "Forecast at completion", bind: "$.forecastAtCompletion", format: "currency" },
                      { label: "Contingency", bind: "$.contingency", format: "currency" },
                      { label: "Status date", bind: "$.asOf" },
                    ],
                  },
                ],
              },
              {
                id: "categoriesTab",
                type: "tabItem",
                label: "Categories",
                components: [
                  {
                    id: "categoryList",
                    type: "sectionList",
                    bind: "$.categories",
                    canAdd: true,
                    canRemove: true,
                    addLabel: "Add category",
                    layout: "horizontal",
                    components: [
                      {
                        id: "categoryName",
                        type: "textField",
                        label: "Category",
                        bind: "$.categories[*].name",
                      },
                      {
                        id: "categoryBudget",
                        type: "currencyField",
                        label: "Budget",
                        bind: "$.categories[*].budget",
                      },
                      {
                        id: "categoryUse",
                        type: "gauge",
                        label: "Used",
                        bind: "$.categories[*].utilization",
                        min: 0,
                        max: 100,
                      },
                      {
                        id: "categoryStatus",
                        type: "badge",
                        bind: "$.categories[*].status",
                        variant: "secondary",
                      },
                    ],
                  },
                ],
              },
              {
                id: "expensesTab",
                type: "tabItem",
                label: "Expenses",
                components: [
                  {
                    id: "expenseList",
                    type: "sectionList",
                    bind: "$.expenses",
                    canAdd: true,
                    canRemove: true,
                    addLabel: "Book expense",
                    components: [
                      { id: "expenseDate", type: "dateField", label: "Date", bind: "$.expenses[*].date" },
                      {
                        id: "expenseCategory",
                        type: "autocompleteField",
                        label: "Category",
                        bind: "$.expenses[*].category",
                        optionsPath: "$.categories[*].name",
                      },
                      {
                        id: "expenseAmount",
                        type: "currencyField",
                        label: "Amount",
                        bind: "$.expenses[*].amount",
                      },
                      {
                        id: "expenseApproved",
                        type: "toggleField",
                        label: "Approved",
                        bind: "$.expenses[*].approved",
                      },
                    ],
                  },
                ],
              },
              {
                id: "settingsTab",
                type: "tabItem",
                label: "Settings",
                components: [
                  { id: "projectName", type: "textField", label: "Project", bind: "$.project.name" },
                  {
                    id: "dates",
                    type: "dateRangeField",
                    label: "Schedule",
                    bind: "$.project",
                    bindFrom: "$.project.startDate",
                    bindTo: "$.project.endDate",
                    fromLabel: "Start",
                    toLabel: "End",
                  },
                  { id: "asOf", type: "dateField", label: "Status date", bind: "$.asOf" },
                  {
                    id: "contingencySlider",
                    type: "sliderField",
                    label: "Contingency (%)",
                    bind: "$.project.contingencyPercent",
                    min: 0,
                    max: 30,
                    step: 1,
                  },
                  { id: "issues", type: "validationSummary", emptyText: "No budget issues" },
                ],
              },
            ],
          },
        ],
      },
    ],
  },
};
