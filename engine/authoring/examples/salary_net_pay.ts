/**
 * Example spec: net pay from a gross salary, with progressive income tax bands computed by a library.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Net salary: pension, capped social contributions, banded income tax, net per pay period. */
export const SALARY_NET_PAY: ModelSpec = {
  _name: "Net salary calculator",
  _description: "Turns a gross annual salary into net pay: a pension contribution, social contributions " +
    "up to a ceiling, an allowance per child, then income tax over progressive bands (each band's share " +
    "shown), the net amount per pay period, the effective and the marginal tax rate. The band arithmetic " +
    "is a library function, called by several derivations with the tax table from the constants.",
  id: "salary-net-pay",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      employee: { type: "string" },
      grossAnnual: { type: "number", minimum: 0 },
      pensionPercent: { type: "number", minimum: 0 },
      periodsPerYear: { type: "integer", enum: [12, 13, 14] },
      children: { type: "integer", minimum: 0 },
      pensionContribution: { type: "number", readOnly: true },
      socialContributions: { type: "number", readOnly: true },
      taxableIncome: { type: "number", readOnly: true },
      bands: { type: "array", readOnly: true, items: { type: "object" } },
      incomeTax: { type: "number", readOnly: true },
      netAnnual: { type: "number", readOnly: true },
      netPerPeriod: { type: "number", readOnly: true },
      effectiveTaxRate: { type: "number", readOnly: true },
      marginalRatePercent: { type: "number", readOnly: true },
      split: { type: "array", readOnly: true, items: { type: "object" } },
    },
  },
  constants: {
    taxBands: [
      { upTo: 11000, rate: 0 },
      { upTo: 30000, rate: 0.2 },
      { upTo: 80000, rate: 0.35 },
      { upTo: 1000000000, rate: 0.45 },
    ],
    socialRate: 0.08,
    socialCeiling: 90000,
    childAllowance: 1500,
    maxPensionPercent: 15,
    minimumAnnual: 12000,
  },
  library: {
    description: "Progressive tax over a table of bands, and pay-period arithmetic.",
    define: `(
  $round2 := function($x) { $round($x, 2) };
  $bandBreakdown := function($income, $table) {
    $map($table, function($band, $i) {(
      $from := $i = 0 ? 0 : $table[$i - 1].upTo;
      $taxed := $max([0, $min([$income, $band.upTo]) - $from]);
      {"from": $from, "upTo": $band.upTo, "rate": $band.rate, "taxed": $round2($taxed),
        "tax": $round2($taxed * $band.rate)}
    )})
  };
  $bandTax := function($income, $table) { $round2($sum($bandBreakdown($income, $table).tax)) };
  $marginalRate := function($income, $table) { $table[upTo >= $income][0].rate };
  $perPeriod := function($annual, $periods) { $round2($annual / $periods) };
  ["round2", "bandBreakdown", "bandTax", "marginalRate", "perPeriod"]
)`,
    signatures: { bandTax: "<na:n>", perPeriod: "<nn:n>" },
  },
  defaultValues: [{ path: "$", expr: "{'pensionPercent': 5, 'periodsPerYear': 12, 'children': 0}" }],
  derivations: [
    {
      path: "$.pensionContribution",
      expr: "$exists(grossAnnual) ? $round2(grossAnnual * pensionPercent / 100)",
    },
    {
      path: "$.socialContributions",
      expr: "$exists(grossAnnual) ? $round2($min([grossAnnual, $const.socialCeiling]) * $const.socialRate)",
      description: "Contributions stop at the ceiling.",
    },
    {
      path: "$.taxableIncome",
      expr: "$exists(grossAnnual) ? $max([0, grossAnnual - pensionContribution - socialContributions - " +
        "children * $const.childAllowance])",
    },
    {
      path: "$.bands",
      expr: "$exists(taxableIncome) ? [$bandBreakdown(taxableIncome, $const.taxBands)[taxed > 0]]",
      description: "Only the bands the income reaches.",
    },
    { path: "$.incomeTax", expr: "$exists(taxableIncome) ? $bandTax(taxableIncome, $const.taxBands)" },
    {
      path: "$.netAnnual",
      expr: "$round2(grossAnnual - pensionContribution - socialContributions - incomeTax)",
    },
    { path: "$.netPerPeriod", expr: "$exists(netAnnual) ? $perPeriod(netAnnual, periodsPerYear)" },
    {
      path: "$.effectiveTaxRate",
      expr: "grossAnnual > 0 ? $round2(incomeTax / grossAnnual * 100) : 0",
      description: "Income tax as a share of the gross, in percent.",
    },
    {
      path: "$.marginalRatePercent",
      expr: "$exists(taxableIncome) ? $marginalRate(taxableIncome, $const.taxBands) * 100",
      description: "The rate the next euro earned is taxed at.",
    },
    {
      path: "$.split",
      expr: "$exists(netAnnual) ? [{'part': 'Net pay', 'amount': netAnnual}, " +
        "{'part': 'Income tax', 'amount': incomeTax}, {'part': 'Social', 'amount': socialContributions}, " +
        "{'part': 'Pension', 'amount': pensionContribution}]",
      evaluation: "lazy",
    },
  ],
  metaDerivations: [
    { path: "$.pensionPercent", property: "maximum", expr: "$const.maxPensionPercent" },
    {
      path: "$.children",
      property: "relevant",
      expr: "$exists(grossAnnual)",
      description: "The child allowance only matters once there is a salary.",
    },
  ],
  constraints: [
    {
      id: "statutory-minimum",
      expr: "$not(grossAnnual > 0 and grossAnnual < $const.minimumAnnual)",
      message: "The gross salary is below the statutory minimum of 12,000 a year",
      policy: "rollback",
    },
    {
      id: "high-tax-share",
      expr: "$not(effectiveTaxRate > 30)",
      message: "More than 30% of the gross goes to income tax",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "payslip",
      executor: "caller",
      trigger: "$exists(netPerPeriod)",
      emit: "salary.computed",
      payload: { employee: "employee", net: "netPerPeriod", periods: "periodsPerYear" },
      description: "Hands the caller the net pay per period whenever it changes.",
    },
  ],
  tests: [
    {
      description: "a 50,000 salary over twelve payments",
      given: { "$.grossAnnual": 50000 },
      expect: {
        "$.pensionContribution": 2500,
        "$.socialContributions": 4000,
        "$.taxableIncome": 43500,
        "$.incomeTax": 8525,
        "$.netAnnual": 34975,
        "$.netPerPeriod": 2914.58,
        "$.effectiveTaxRate": 17.05,
        "$.marginalRatePercent": 35,
        "$.bands": [
          { from: 0, upTo: 11000, rate: 0, taxed: 11000, tax: 0 },
          { from: 11000, upTo: 30000, rate: 0.2, taxed: 19000, tax: 3800 },
          { from: 30000, upTo: 80000, rate: 0.35, taxed: 13500, tax: 4725 },
        ],
      },
    },
    {
      description: "two children and fourteen payments",
      given: { "$.grossAnnual": 50000, "$.children": 2, "$.periodsPerYear": 14 },
      expect: {
        "$.taxableIncome": 40500,
        "$.incomeTax": 7475,
        "$.netAnnual": 36025,
        "$.netPerPeriod": 2573.21,
      },
    },
    {
      description: "contributions stop at the ceiling; the top band applies",
      given: { "$.grossAnnual": 150000, "$.pensionPercent": 0 },
      expect: {
        "$.socialContributions": 7200,
        "$.incomeTax": 49560,
        "$.netAnnual": 93240,
        "$.effectiveTaxRate": 33.04,
        "$.marginalRatePercent": 45,
      },
    },
    {
      description: "a low salary barely reaches the first taxed band",
      given: { "$.grossAnnual": 12000, "$.pensionPercent": 0 },
      expect: {
        "$.taxableIncome": 11040,
        "$.incomeTax": 8,
        "$.netPerPeriod": 919.33,
        "$.marginalRatePercent": 20,
      },
    },
    {
      description: "limits and relevance",
      given: { "$.employee": "Ana" },
      expect: {
        "$.pensionPercent": { $meta: { maximum: 15 } },
        "$.children": { $meta: { relevant: false } },
        "$.netAnnual": null,
      },
    },
  ],
  viewDefinition: {
    defaultView: "salary",
    views: [
      {
        id: "salary",
        label: "Net salary",
        components: [
          {
            id: "inputs",
            type: "card",
            label: "Salary",
            components: [
              { id: "employee", type: "textField", label: "Employee", bind: "$.employee" },
              {
                id: "gross",
                type: "currencyField",
                label: "Gross a year",
                bind: "$.grossAnnual",
                currency: "EUR",
              },
              {
                id: "pension",
                type: "sliderField",
                label: "Pension (% of gross)",
                bind: "$.pensionPercent",
                min: 0,
                max: 15,
                step: 0.5,
              },
              {
                id: "periods",
                type: "radioField",
                label: "Payments a year",
                bind: "$.periodsPerYear",
                options: [
                  { value: 12, label: "12" },
                  { value: 13, label: "13" },
                  { value: 14, label: "14" },
                ],
              },
              {
                id: "children",
                type: "numericStepper",
                label: "Children",
                bind: "$.children",
                min: 0,
                max: 10,
                step: 1,
              },
            ],
          },
          {
            id: "result",
            type: "group",
            layout: "horizontal",
            components: [
              {
                id: "net",
                type: "statTile",
                label: "Net per payment",
                bind: "$.netPerPeriod",
                format: "currency",
                currency: "EUR",
                caption: "$exists(periodsPerYear) ? $string(periodsPerYear) & ' payments a year' : ''",
              },
              {
                id: "effective",
                type: "gauge",
                label: "Income tax share (%)",
                bind: "$.effectiveTaxRate",
                min: 0,
                max: 50,
                format: "number",
              },
              {
                id: "marginal",
                type: "badge",
                variant: "info",
                text: "'Marginal rate ' & $string(marginalRatePercent) & '%'",
                visible: "$exists(marginalRatePercent)",
              },
            ],
          },
          {
            id: "bands",
            type: "dataTable",
            label: "Income tax by band",
            bind: "$.bands",
            tableColumns: [
              { field: "from", header: "From", format: "currency", currency: "EUR" },
              { field: "upTo", header: "Up to", format: "currency", currency: "EUR" },
              { field: "rate", header: "Rate", format: "percent" },
              { field: "tax", header: "Tax", format: "currency", currency: "EUR" },
            ],
          },
          {
            id: "split",
            type: "dataChart",
            label: "Where the gross goes",
            chartType: "pie",
            bind: "$.split",
            chartX: "part",
            chartSeries: [{ field: "amount", label: "Amount" }],
          },
          {
            id: "annual",
            type: "keyValueList",
            columns: 2,
            items: [
              { label: "Pension", bind: "$.pensionContribution", format: "currency", currency: "EUR" },
              {
                label: "Social contributions",
                bind: "$.socialContributions",
                format: "currency",
                currency: "EUR",
              },
              { label: "Taxable income", bind: "$.taxableIncome", format: "currency", currency: "EUR" },
              { label: "Income tax", bind: "$.incomeTax", format: "currency", currency: "EUR" },
              { label: "Net a year", bind: "$.netAnnual", format: "currency", currency: "EUR" },
            ],
          },
        ],
      },
    ],
  },
};
