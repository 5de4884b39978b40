/**
 * Example spec: an invoice whose lines carry their own tax category.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Invoice with per-line tax categories, an invoice discount and a tax breakdown. */
export const INVOICE_TAX_LINES: ModelSpec = {
  _name: "Invoice with tax lines",
  _description: "Each line is priced net and taxed by its own category (standard, reduced, zero) after the " +
    "invoice-level discount; a tax breakdown groups the lines by category. Issuing locks the lines, sets the " +
    "due date from the payment terms and tells the caller. VAT-exempt customers need a VAT number, which is " +
    "shown only for them.",
  id: "invoice-tax-lines",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      invoiceNumber: { type: "string", pattern: "^INV-[0-9]{4,}$" },
      customer: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1 },
          vatExempt: { type: "boolean" },
          vatNumber: { type: "string" },
        },
      },
      currency: { type: "string", enum: ["EUR", "USD", "GBP"] },
      status: { type: "string", enum: ["draft", "issued", "paid"] },
      issueDate: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
      paymentTermsDays: { type: "integer", minimum: 0, maximum: 120 },
      discountPercent: { type: "number", minimum: 0, maximum: 100 },
      lines: {
        type: "array",
        items: {
          type: "object",
          properties: {
            description: { type: "string" },
            quantity: { type: "number", minimum: 0 },
            unitPrice: { type: "number", minimum: 0 },
            taxCategory: { type: "string", enum: ["standard", "reduced", "zero"] },
            net: { type: "number", readOnly: true },
            tax: { type: "number", readOnly: true },
            gross: { type: "number", readOnly: true },
          },
        },
      },
      lineCount: { type: "integer", readOnly: true },
      subtotal: { type: "number", readOnly: true },
      discountAmount: { type: "number", readOnly: true },
      taxTotal: { type: "number", readOnly: true },
      total: { type: "number", readOnly: true },
      taxBreakdown: { type: "object", readOnly: true },
      dueDate: { type: "string", readOnly: true },
    },
  },
  constants: {
    taxRates: [
      { category: "standard", rate: 0.2 },
      { category: "reduced", rate: 0.05 },
      { category: "zero", rate: 0 },
    ],
    creditLimit: 10000,
  },
  defaultValues: [
    {
      path: "$",
      expr: "{'currency': 'EUR', 'status': 'draft', 'paymentTermsDays': 30, 'discountPercent': 0}",
      description: "A new invoice is a EUR draft, payable in 30 days, without discount.",
    },
    {
      path: "$.lines[*]",
      expr: "{'quantity': 1, 'taxCategory': 'standard'}",
      description: "A new line is one unit at the standard rate.",
    },
  ],
  derivations: [
    {
      path: "$.lines[*].net",
      expr: "$round($parent.quantity * $parent.unitPrice * (1 - discountPercent / 100), 2)",
      description: "Line amount after the invoice discount, before tax.",
    },
    {
      path: "$.lines[*].tax",
      expr: "customer.vatExempt = true ? 0 : " +
        "$round($parent.net * $const.taxRates[category = $parent.taxCategory].rate, 2)",
      description: "Tax of the line at its category's rate; nothing for exempt customers.",
    },
    {
      path: "$.lines[*].gross",
      expr: "$parent.net + $parent.tax",
    },
    { path: "$.lineCount", expr: "$count(lines)" },
    {
      path: "$.subtotal",
      expr: "$round($sum([lines.($round(quantity * unitPrice, 2))]), 2)",
      description: "Sum of the lines before discount and tax ([...] makes it 0 without lines).",
    },
    { path: "$.discountAmount", expr: "$round(subtotal - $sum([lines.net]), 2)" },
    { path: "$.taxTotal", expr: "$round($sum([lines.tax]), 2)" },
    { path: "$.total", expr: "$round(subtotal - discountAmount + taxTotal, 2)" },
    {
      path: "$.taxBreakdown",
      expr: "lines{taxCategory: $round($sum(tax), 2)}",
      description: "Tax per category, e.g. {standard: 40, reduced: 1.5}; {} without lines.",
    },
    {
      path: "$.dueDate",
      expr:
        "issueDate ? $fromMillis($toMillis(issueDate) + paymentTermsDays * 86400000, '[Y0001]-[M01]-[D01]')",
      description: "Issue date plus the payment terms; absent until the invoice has an issue date.",
    },
  ],
  metaDerivations: [
    { path: "$.customer.vatNumber", property: "relevant", expr: "customer.vatExempt = true" },
    { path: "$.customer.vatNumber", property: "required", expr: "customer.vatExempt = true" },
    {
      path: "$.lines[*].unitPrice",
      property: "readOnly",
      expr: "status != 'draft'",
      description: "Issued invoices cannot be repriced.",
    },
    { path: "$.lines[*].quantity", property: "readOnly", expr: "status != 'draft'" },
    {
      path: "$.discountPercent",
      property: "maximum",
      expr: "subtotal >= 1000 ? 15 : 5",
      description: "Larger invoices may be discounted further.",
    },
  ],
  constraints: [
    {
      id: "issued-needs-lines",
      expr: "status = 'draft' or (lineCount > 0 and $exists(issueDate) and $exists(invoiceNumber))",
      message: "An invoice needs lines, an issue date and a number before it leaves draft",
      policy: "rollback",
    },
    {
      id: "line-has-description",
      path: "$.lines[*]",
      expr: "$exists($parent.description) and $parent.description != ''",
      message: "Every line needs a description",
      policy: "flag",
    },
    {
      id: "within-credit-limit",
      expr: "total <= $const.creditLimit",
      message: "The invoice exceeds the customer's credit limit",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "invoice-issued",
      executor: "caller",
      trigger: "status = 'issued'",
      emit: "invoice.issued",
      payload: {
        invoiceNumber: "invoiceNumber",
        customer: "customer.name",
        total: "total",
        currency: "currency",
        dueDate: "dueDate",
      },
      description: "Tells the caller to send the invoice once it is issued.",
    },
  ],
  tests: [
    {
      description: "lines are taxed by category and summed",
      given: {
        "$.lines[0]": { description: "Consulting", quantity: 10, unitPrice: 120 },
        "$.lines[1]": { description: "Book", quantity: 2, unitPrice: 15, taxCategory: "reduced" },
      },
      expect: {
        "$.lines[0].net": 1200,
        "$.lines[0].tax": 240,
        "$.lines[0].gross": 1440,
        "$.lines[1].tax": 1.5,
        "$.subtotal": 1230,
        "$.taxTotal": 241.5,
        "$.total": 1471.5,
        "$.taxBreakdown": { standard: 240, reduced: 1.5 },
        "$.lineCount": 2,
      },
    },
    {
      description: "the discount lowers every line before tax",
      given: {
        "$.lines[0]": { description: "Licence", quantity: 4, unitPrice: 250 },
        "$.discountPercent": 5,
      },
      expect: {
        "$.subtotal": 1000,
        "$.discountAmount": 50,
        "$.lines[0].net": 950,
        "$.taxTotal": 190,
        "$.total": 1140,
        "$.discountPercent": { $meta: { maximum: 15 } },
      },
    },
    {
      description: "exempt customers pay no tax and must give a VAT number",
      given: {
        "$.customer.vatExempt": true,
        "$.lines[0]": { description: "Audit", quantity: 1, unitPrice: 800 },
      },
      expect: {
        "$.taxTotal": 0,
        "$.total": 800,
        "$.customer.vatNumber": { $meta: { relevant: true, required: true } },
      },
    },
    {
      description: "new lines get defaults; an empty invoice totals zero",
      given: { "$.lines[0].description": "Setup fee", "$.lines[0].unitPrice": 50 },
      expect: {
        "$.lines[0].quantity": 1,
        "$.lines[0].taxCategory": "standard",
        "$.total": 60,
        "$.currency": "EUR",
        "$.dueDate": null,
      },
    },
    {
      description: "issuing locks the lines and sets the due date",
      given: {
        "$.invoiceNumber": "INV-0042",
        "$.issueDate": "2024-03-01",
        "$.lines[0]": { description: "Hosting", quantity: 12, unitPrice: 20 },
        "$.status": "issued",
      },
      expect: {
        "$.dueDate": "2024-03-31",
        "$.total": 288,
        "$.lines[0].unitPrice": { $meta: { readOnly: true } },
      },
    },
  ],
  viewDefinition: {
    renderer: "builtin",
    defaultView: "edit",
    views: [
      {
        id: "edit",
        label: "Invoice",
        layout: "vertical",
        components: [
          {
            id: "nav",
            type: "menu",
            orientation: "horizontal",
            menuItems: [{ label: "Edit", targetView: "edit" }, { label: "Summary", targetView: "summary" }],
          },
          {
            id: "header",
            type: "card",
            label: "Invoice",
            layout: "grid",
            columns: 3,
            components: [
              {
                id: "number",
                type: "textField",
                label: "Number",
                bind: "$.invoiceNumber",
                placeholder: "INV-0001",
              },
              { id: "issueDate", type: "dateField", label: "Issue date", bind: "$.issueDate" },
              {
                id: "terms",
                type: "numericStepper",
                label: "Payment terms (days)",
                bind: "$.paymentTermsDays",
                min: 0,
                max: 120,
                step: 15,
              },
              {
                id: "currency",
                type: "selectField",
                label: "Currency",
                bind: "$.currency",
                options: [
                  { value: "EUR", label: "Euro" },
                  { value: "USD", label: "US dollar" },
                  { value: "GBP", label: "Pound sterling" },
                ],
              },
            ],
          },
          {
            id: "customer",
            type: "fieldSet",
            legend: "Customer",
            components: [
              { id: "customerName", type: "textField", label: "Name", bind: "$.customer.name" },
              { id: "exempt", type: "checkboxField", label: "VAT exempt", bind: "$.customer.vatExempt" },
              {
                id: "vatNumber",
                type: "textField",
                label: "VAT number",
                bind: "$.customer.vatNumber",
                helperText: "Shown and required for exempt customers only",
              },
            ],
          },
          {
            id: "lines",
            type: "sectionList",
            label: "Lines",
            bind: "$.lines",
            canAdd: true,
            canRemove: true,
            addLabel: "Add line",
            layout: "horizontal",
            components: [
              {
                id: "lineDescription",
                type: "textField",
                label: "Description",
                bind: "$.lines[*].description",
              },
              { id: "lineQuantity", type: "numericField", label: "Qty", bind: "$.lines[*].quantity" },
              {
                id: "linePrice",
                type: "currencyField",
                label: "Unit price",
                bind: "$.lines[*].unitPrice",
                currency: "EUR",
              },
              {
                id: "lineCategory",
                type: "radioField",
                label: "Tax",
                bind: "$.lines[*].taxCategory",
                options: [
                  { value: "standard", label: "20%" },
                  { value: "reduced", label: "5%" },
                  { value: "zero", label: "0%" },
                ],
              },
              {
                id: "lineGross",
                type: "label",
                label: "Gross",
                bind: "$.lines[*].gross",
                format: "currency",
              },
            ],
          },
          { id: "discount", type: "percentField", label: "Discount", bind: "$.discountPercent" },
          {
            id: "creditAlert",
            type: "alert",
            variant: "warning",
            visible: "total > $const.creditLimit",
            text: "This invoice is over the customer's credit limit.",
          },
          {
            id: "totalTile",
            type: "statTile",
            label: "Total",
            bind: "$.total",
            format: "currency",
            currency: "EUR",
            caption: "$string(lineCount) & ' line(s), tax ' & $formatNumber(taxTotal, '#,##0.00')",
          },
          {
            id: "issue",
            type: "button",
            text: "Issue invoice",
            variant: "primary",
            enabled: "status = 'draft' and lineCount > 0",
            onClick: { mutations: "{'$.status': 'issued'}", navigate: "summary" },
          },
        ],
      },
      {
        id: "summary",
        label: "Invoice summary",
        components: [
          { id: "statusBadge", type: "badge", text: "$uppercase(status)", variant: "primary" },
          {
            id: "linesTable",
            type: "dataTable",
            bind: "$.lines",
            tableColumns: [
              { field: "description", header: "Description" },
              { field: "quantity", header: "Qty", format: "number" },
              { field: "net", header: "Net", format: "currency", currency: "EUR" },
              { field: "tax", header: "Tax", format: "currency", currency: "EUR" },
              { field: "gross", header: "Gross", format: "currency", currency: "EUR" },
            ],
          },
          {
            id: "totals",
            type: "keyValueList",
            items: [
              { label: "Subtotal", bind: "$.subtotal", format: "currency", currency: "EUR" },
              { label: "Discount", bind: "$.discountAmount", format: "currency", currency: "EUR" },
              { label: "Tax", bind: "$.taxTotal", format: "currency", currency: "EUR" },
              { label: "Total", bind: "$.total", format: "currency", currency: "EUR" },
              { label: "Due", bind: "$.dueDate" },
            ],
          },
          { id: "breakdown", type: "jsonViewer", bind: "$.taxBreakdown", collapsed: false },
        ],
      },
    ],
  },
};
