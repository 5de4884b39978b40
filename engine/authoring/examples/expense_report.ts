/**
 * Example spec: a travel expense report in several currencies, with library functions called per line.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Travel expenses: currency conversion per line, capped lodging, receipts, per diem, the balance due. */
export const EXPENSE_REPORT: ModelSpec = {
  _name: "Travel expense report",
  _description: "Converts each expense of a trip to euros at the report's rates, decides what is " +
    "reimbursed (lodging up to a nightly cap, meals covered by the per diem, other costs above 25 EUR " +
    "only with a receipt), adds the destination's per diem for every day of the trip and subtracts the " +
    "advance. Library functions do the conversion, the day count and the per diem, called per line from " +
    "derivations, a meta derivation and a constraint.",
  id: "expense-report",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      employee: { type: "string" },
      country: { type: "string", enum: ["DE", "FR", "GB", "US", "JP"] },
      tripStart: { type: "string", format: "date" },
      tripEnd: { type: "string", format: "date" },
      advance: { type: "number", minimum: 0 },
      lines: {
        type: "array",
        items: {
          type: "object",
          properties: {
            date: { type: "string", format: "date" },
            category: { type: "string", enum: ["travel", "lodging", "meals", "other"] },
            description: { type: "string" },
            amount: { type: "number", minimum: 0 },
            currency: { type: "string", enum: ["EUR", "USD", "GBP", "CHF", "JPY"] },
            receipt: { type: "boolean" },
            amountEur: { type: "number", readOnly: true },
            reimbursable: { type: "number", readOnly: true },
          },
        },
      },
      days: { type: "integer", readOnly: true },
      perDiem: { type: "number", readOnly: true },
      totalEur: { type: "number", readOnly: true },
      reimbursableTotal: { type: "number", readOnly: true },
      balanceDue: { type: "number", readOnly: true },
      byCategory: { type: "array", readOnly: true, items: { type: "object" } },
    },
  },
  constants: {
    eurPer: { EUR: 1, USD: 0.92, GBP: 1.17, CHF: 1.04, JPY: 0.0061 },
    perDiemEur: { DE: 28, FR: 32, GB: 35, US: 40, JP: 36 },
    lodgingCapEur: 180,
    receiptAboveEur: 25,
  },
  library: {
    description: "Conversion at the report's rates, trip days, the per diem.",
    define: `(
  $round2 := function($x) { $round($x, 2) };
  $toEur := function($amount, $currency) { $round2($amount * $lookup($const.eurPer, $currency)) };
  $tripDays := function($from, $to) { $floor(($toMillis($to) - $toMillis($from)) / 86400000) + 1 };
  $perDiem := function($days, $country) { $days * $lookup($const.perDiemEur, $country) };
  $needsReceipt := function($line) { $line.category != "meals" and $line.amountEur > $const.receiptAboveEur };
  ["round2", "toEur", "tripDays", "perDiem", "needsReceipt"]
)`,
    signatures: { toEur: "<ns:n>", tripDays: "<ss:n>" },
    requiresConstants: ["eurPer", "perDiemEur", "receiptAboveEur"],
  },
  defaultValues: [
    { path: "$", expr: "{'advance': 0, 'country': 'DE'}" },
    { path: "$.lines[*]", expr: "{'category': 'other', 'currency': 'EUR', 'receipt': false}" },
  ],
  derivations: [
    { path: "$.lines[*].amountEur", expr: "$toEur($parent.amount, $parent.currency)" },
    {
      path: "$.lines[*].reimbursable",
      expr: "$parent.category = 'lodging' ? $min([$parent.amountEur, $const.lodgingCapEur]) : " +
        "$parent.category = 'meals' ? 0 : $needsReceipt($parent) and $not($parent.receipt) ? 0 : " +
        "$parent.amountEur",
      description: "Lodging up to the cap; meals are covered by the per diem; a receipt above 25 EUR.",
    },
    {
      path: "$.days",
      expr: "$exists(tripStart) and $exists(tripEnd) ? $tripDays(tripStart, tripEnd)",
    },
    { path: "$.perDiem", expr: "$exists(days) ? $perDiem(days, country)" },
    { path: "$.totalEur", expr: "$round2($sum([lines.amountEur]))" },
    { path: "$.reimbursableTotal", expr: "$round2($sum([lines.reimbursable, perDiem]))" },
    { path: "$.balanceDue", expr: "$round2(reimbursableTotal - advance)" },
    {
      path: "$.byCategory",
      expr: "[lines{category: $sum(amountEur)} ~> $each(function($amount, $category) " +
        "{ {'category': $category, 'amount': $round2($amount)} })]",
      evaluation: "lazy",
    },
  ],
  metaDerivations: [
    {
      path: "$.lines[*].receipt",
      property: "required",
      expr: "$needsReceipt($parent)",
      description: "Above 25 EUR, everything but meals needs a receipt.",
    },
    { path: "$.lines[*].description", property: "required", expr: "$parent.category = 'other'" },
  ],
  constraints: [
    {
      id: "trip-dates",
      expr: "$not(tripEnd < tripStart)",
      message: "The trip cannot end before it starts",
      policy: "rollback",
    },
    {
      id: "line-in-trip",
      path: "$.lines[*]",
      expr: "$not($exists($parent.date) and $exists($$.tripStart) and $exists($$.tripEnd) and " +
        "($parent.date < $$.tripStart or $parent.date > $$.tripEnd))",
      message: "An expense must fall within the trip",
      policy: "rollback",
    },
    {
      id: "receipt-missing",
      path: "$.lines[*]",
      expr: "$not($needsReceipt($parent) and $not($parent.receipt))",
      message: "No receipt: this expense is not reimbursed",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "due",
      executor: "caller",
      trigger: "$count(lines) > 0",
      emit: "expenses.updated",
      payload: { employee: "employee", due: "balanceDue" },
      description: "Tells the caller what is due after every change to the report.",
    },
  ],
  tests: [
    {
      description: "three days in France in three currencies",
      given: {
        "$.country": "FR",
        "$.tripStart": "2025-05-05",
        "$.tripEnd": "2025-05-07",
        "$.advance": 100,
        "$.lines[0]": {
          date: "2025-05-05",
          category: "lodging",
          amount: 150,
          currency: "GBP",
          receipt: true,
        },
        "$.lines[1]": { date: "2025-05-05", category: "travel", amount: 80, currency: "USD", receipt: true },
        "$.lines[2]": { date: "2025-05-06", category: "meals", amount: 45 },
      },
      expect: {
        "$.days": 3,
        "$.perDiem": 96,
        "$.lines[0].amountEur": 175.5,
        "$.lines[1].amountEur": 73.6,
        "$.lines[2].reimbursable": 0,
        "$.totalEur": 294.1,
        "$.reimbursableTotal": 345.1,
        "$.balanceDue": 245.1,
        "$.byCategory": [
          { category: "lodging", amount: 175.5 },
          { category: "travel", amount: 73.6 },
          { category: "meals", amount: 45 },
        ],
      },
    },
    {
      description: "lodging is reimbursed up to the nightly cap",
      given: { "$.lines[0]": { category: "lodging", amount: 250, receipt: true } },
      expect: { "$.lines[0].amountEur": 250, "$.lines[0].reimbursable": 180, "$.reimbursableTotal": 180 },
    },
    {
      description: "no receipt above 25 EUR: flagged and not reimbursed",
      given: { "$.lines[0]": { category: "other", description: "printing", amount: 40, currency: "CHF" } },
      expect: {
        "$.lines[0].amountEur": 41.6,
        "$.lines[0].reimbursable": 0,
        "$.lines[0].receipt": { $meta: { required: true } },
        "$.balanceDue": 0,
      },
    },
    {
      description: "small amounts need no receipt",
      given: { "$.lines[0]": { category: "travel", amount: 3000, currency: "JPY" } },
      expect: {
        "$.lines[0].amountEur": 18.3,
        "$.lines[0].reimbursable": 18.3,
        "$.lines[0].receipt": { $meta: { required: false } },
        "$.lines[0].description": { $meta: { required: false } },
      },
    },
    {
      description: "a week in Japan earns the per diem alone",
      given: { "$.country": "JP", "$.tripStart": "2025-09-01", "$.tripEnd": "2025-09-07", "$.advance": 300 },
      expect: { "$.days": 7, "$.perDiem": 252, "$.balanceDue": -48, "$.totalEur": 0 },
    },
  ],
  viewDefinition: {
    defaultView: "report",
    views: [
      {
        id: "report",
        label: "Travel expenses",
        components: [
          {
            id: "trip",
            type: "card",
            label: "Trip",
            layout: "horizontal",
            components: [
              { id: "employee", type: "textField", label: "Employee", bind: "$.employee" },
              {
                id: "country",
                type: "selectField",
                label: "Destination",
                bind: "$.country",
                options: [
                  { value: "DE", label: "Germany" },
                  { value: "FR", label: "France" },
                  { value: "GB", label: "United Kingdom" },
                  { value: "US", label: "United States" },
                  { value: "JP", label: "Japan" },
                ],
              },
              {
                id: "dates",
                type: "dateRangeField",
                label: "Dates",
                bindFrom: "$.tripStart",
                bindTo: "$.tripEnd",
              },
              { id: "advance", type: "currencyField", label: "Advance", bind: "$.advance", currency: "EUR" },
            ],
          },
          {
            id: "lines",
            type: "sectionList",
            label: "Expenses",
            bind: "$.lines",
            canAdd: true,
            canRemove: true,
            addLabel: "Add expense",
            components: [
              { id: "date", type: "dateField", label: "Date", bind: "$.lines[*].date" },
              {
                id: "category",
                type: "selectField",
                label: "Category",
                bind: "$.lines[*].category",
                options: [
                  { value: "travel", label: "Travel" },
                  { value: "lodging", label: "Lodging" },
                  { value: "meals", label: "Meals" },
                  { value: "other", label: "Other" },
                ],
              },
              { id: "description", type: "textField", label: "What", bind: "$.lines[*].description" },
              { id: "amount", type: "numericField", label: "Amount", bind: "$.lines[*].amount" },
              {
                id: "currency",
                type: "selectField",
                label: "Currency",
                bind: "$.lines[*].currency",
                options: [
                  { value: "EUR", label: "EUR" },
                  { value: "USD", label: "USD" },
                  { value: "GBP", label: "GBP" },
                  { value: "CHF", label: "CHF" },
                  { value: "JPY", label: "JPY" },
                ],
              },
              { id: "receipt", type: "checkboxField", label: "Receipt", bind: "$.lines[*].receipt" },
              {
                id: "eur",
                type: "label",
                label: "In EUR",
                text: "$formatNumber($parent.amountEur, '#,##0.00') & ' EUR'",
              },
              {
                id: "noReceipt",
                type: "badge",
                variant: "warning",
                text: "'Needs a receipt'",
                visible: "$needsReceipt($parent) and $not($parent.receipt)",
              },
            ],
          },
          {
            id: "summary",
            type: "summaryList",
            columns: 2,
            items: [
              { label: "Days", bind: "$.days" },
              { label: "Per diem", bind: "$.perDiem", format: "currency", currency: "EUR" },
              { label: "Spent", bind: "$.totalEur", format: "currency", currency: "EUR" },
              { label: "Reimbursed", bind: "$.reimbursableTotal", format: "currency", currency: "EUR" },
            ],
          },
          {
            id: "due",
            type: "statTile",
            label: "Balance due",
            bind: "$.balanceDue",
            format: "currency",
            currency: "EUR",
            caption: "balanceDue < 0 ? 'to be paid back' : 'to be paid out'",
          },
          {
            id: "categories",
            type: "dataChart",
            label: "Spent by category",
            chartType: "bar",
            bind: "$.byCategory",
            chartX: "category",
            chartSeries: [{ field: "amount", label: "EUR" }],
          },
        ],
      },
    ],
  },
};
