/**
 * Example spec: ticket tiers with limited capacity and a buyer's order against them.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Event ticketing: tier availability and ranking, early-bird pricing, order limits and fees. */
export const EVENT_TICKETING: ModelSpec = {
  _name: "Event ticketing",
  _description:
    "An event sells tickets in tiers of limited capacity. Each tier shows what is left, whether it " +
    "sold out and its popularity rank. An order picks tickets from the tiers: lines ordered on or before the " +
    "early-bird deadline get a discount, a per-ticket service fee and an optional mailing fee are added, and " +
    "no line may ask for more tickets than its tier has left. Submitting the order asks the caller to " +
    "reserve the seats.",
  id: "event-ticketing",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      event: {
        type: "object",
        properties: {
          name: { type: "string" },
          date: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
          earlyBirdUntil: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
          venueCapacity: { type: "integer", minimum: 1 },
        },
      },
      tiers: {
        type: "array",
        items: {
          type: "object",
          properties: {
            code: { type: "string", pattern: "^[A-Z]{2,6}$" },
            name: { type: "string" },
            price: { type: "number", minimum: 0 },
            capacity: { type: "integer", minimum: 0 },
            sold: { type: "integer", minimum: 0 },
            remaining: { type: "integer", readOnly: true },
            soldOut: { type: "boolean", readOnly: true },
            popularityRank: { type: "integer", readOnly: true },
          },
        },
      },
      order: {
        type: "object",
        properties: {
          buyerEmail: { type: "string", pattern: "^[^@\\s]+@[^@\\s]+$" },
          orderDate: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
          delivery: { type: "string", enum: ["eticket", "willCall", "mail"] },
          deliveryAddress: { type: "string" },
          status: { type: "string", enum: ["cart", "submitted"] },
          lines: {
            type: "array",
            items: {
              type: "object",
              properties: {
                tierCode: { type: "string" },
                quantity: { type: "integer", minimum: 1 },
                unitPrice: { type: "number", readOnly: true },
                lineTotal: { type: "number", readOnly: true },
              },
            },
          },
          earlyBird: { type: "boolean", readOnly: true },
          ticketCount: { type: "integer", readOnly: true },
          subtotal: { type: "number", readOnly: true },
          serviceFee: { type: "number", readOnly: true },
          deliveryFee: { type: "number", readOnly: true },
          total: { type: "number", readOnly: true },
          daysBeforeEvent: { type: "integer", readOnly: true },
        },
      },
      ticketsLeft: { type: "integer", readOnly: true },
    },
  },
  constants: {
    earlyBirdDiscountPercent: 15,
    serviceFeePerTicket: 2.5,
    mailingFee: 6,
    maxTicketsPerOrder: 8,
    mailingCutoffDays: 7,
  },
  defaultValues: [
    { path: "$", expr: "{'order': {'delivery': 'eticket', 'status': 'cart'}}" },
    { path: "$.tiers[*]", expr: "{'sold': 0}", description: "A new tier has sold nothing." },
    { path: "$.order.lines[*]", expr: "{'quantity': 1}" },
  ],
  derivations: [
    { path: "$.tiers[*].remaining", expr: "$parent.capacity - $parent.sold" },
    { path: "$.tiers[*].soldOut", expr: "$parent.remaining <= 0" },
    {
      path: "$.tiers[*].popularityRank",
      expr: "$count(tiers[sold > $parent.sold]) + 1",
      description: "1 for the best-selling tier; ties share a rank. Inside the filter, `sold` is each " +
        "tier's field and $parent the tier being ranked.",
    },
    { path: "$.ticketsLeft", expr: "$sum([tiers.remaining])" },
    {
      path: "$.order.earlyBird",
      expr:
        "$exists(order.orderDate) and $exists(event.earlyBirdUntil) and order.orderDate <= event.earlyBirdUntil",
      description: "ISO dates (YYYY-MM-DD) compare correctly as strings.",
    },
    {
      path: "$.order.lines[*].unitPrice",
      expr: "($price := tiers[code = $parent.tierCode].price; " +
        "order.earlyBird ? $round($price * (100 - $const.earlyBirdDiscountPercent) / 100, 2) : $price)",
    },
    { path: "$.order.lines[*].lineTotal", expr: "$round($parent.unitPrice * $parent.quantity, 2)" },
    { path: "$.order.ticketCount", expr: "$sum([order.lines.quantity])" },
    { path: "$.order.subtotal", expr: "$round($sum([order.lines.lineTotal]), 2)" },
    { path: "$.order.serviceFee", expr: "$round(order.ticketCount * $const.serviceFeePerTicket, 2)" },
    { path: "$.order.deliveryFee", expr: "order.delivery = 'mail' ? $const.mailingFee : 0" },
    { path: "$.order.total", expr: "$round(order.subtotal + order.serviceFee + order.deliveryFee, 2)" },
    {
      path: "$.order.daysBeforeEvent",
      expr:
        "order.orderDate and event.date ? ($toMillis(event.date) - $toMillis(order.orderDate)) / 86400000",
    },
  ],
  metaDerivations: [
    {
      path: "$.order.lines[*].quantity",
      property: "maximum",
      expr: "$min([tiers[code = $parent.tierCode].remaining, $const.maxTicketsPerOrder])",
      description: "No more than the tier has left, and never more than the per-order limit.",
    },
    {
      path: "$.order.lines[*].tierCode",
      property: "enum",
      expr: "[tiers[remaining > 0].code]",
      description: "Only tiers with tickets left can be ordered.",
    },
    { path: "$.order.deliveryAddress", property: "relevant", expr: "order.delivery = 'mail'" },
    { path: "$.order.deliveryAddress", property: "required", expr: "order.delivery = 'mail'" },
    { path: "$.order.lines[*].quantity", property: "readOnly", expr: "order.status = 'submitted'" },
  ],
  constraints: [
    {
      id: "enough-tickets",
      path: "$.order.lines[*]",
      expr: "$parent.quantity <= tiers[code = $parent.tierCode].remaining",
      message: "Not enough tickets left in this tier",
      policy: "rollback",
    },
    {
      id: "tiers-fit-venue",
      expr: "$sum([tiers.capacity]) <= event.venueCapacity",
      message: "The tiers hold more tickets than the venue",
      policy: "rollback",
    },
    {
      id: "order-size",
      expr: "order.ticketCount <= $const.maxTicketsPerOrder",
      message: "Orders over the ticket limit are reviewed by the box office",
      policy: "flag",
    },
    {
      id: "mail-in-time",
      expr: "$not(order.delivery = 'mail') or order.daysBeforeEvent >= $const.mailingCutoffDays",
      message: "Mailed tickets may not arrive in time; choose e-tickets or will-call",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "reserve-seats",
      executor: "caller",
      trigger: "order.status = 'submitted'",
      emit: "tickets.reserve",
      payload: {
        buyer: "order.buyerEmail",
        lines: "[order.lines.{'tier': tierCode, 'quantity': quantity}]",
        total: "order.total",
      },
      description: "Asks the caller to hold the seats and take payment.",
    },
  ],
  tests: [
    {
      description: "tiers report what is left and rank by sales",
      given: {
        "$.event.venueCapacity": 500,
        "$.tiers[0]": { code: "GA", name: "General admission", price: 40, capacity: 300, sold: 120 },
        "$.tiers[1]": { code: "VIP", name: "VIP", price: 150, capacity: 50, sold: 50 },
        "$.tiers[2]": { code: "BAL", name: "Balcony", price: 60, capacity: 100 },
      },
      expect: {
        "$.tiers[0].remaining": 180,
        "$.tiers[1].soldOut": true,
        "$.tiers[2].sold": 0,
        "$.tiers[0].popularityRank": 1,
        "$.tiers[1].popularityRank": 2,
        "$.tiers[2].popularityRank": 3,
        "$.ticketsLeft": 280,
      },
    },
    {
      description: "an early-bird order gets the discount plus fees",
      given: {
        "$.event": { date: "2024-09-20", earlyBirdUntil: "2024-06-30", venueCapacity: 400 },
        "$.tiers[0]": { code: "GA", price: 40, capacity: 300 },
        "$.tiers[1]": { code: "VIP", price: 150, capacity: 50, sold: 45 },
        "$.order.orderDate": "2024-06-30",
        "$.order.lines[0]": { tierCode: "GA", quantity: 3 },
        "$.order.lines[1]": { tierCode: "VIP", quantity: 2 },
      },
      expect: {
        "$.order.earlyBird": true,
        "$.order.lines[0].unitPrice": 34,
        "$.order.lines[1].lineTotal": 255,
        "$.order.ticketCount": 5,
        "$.order.subtotal": 357,
        "$.order.serviceFee": 12.5,
        "$.order.total": 369.5,
        "$.order.daysBeforeEvent": 82,
      },
    },
    {
      description: "mailing costs extra and needs an address",
      given: {
        "$.tiers[0]": { code: "GA", price: 40, capacity: 300 },
        "$.order.orderDate": "2024-07-01",
        "$.order.lines[0]": { tierCode: "GA" },
        "$.order.delivery": "mail",
      },
      expect: {
        "$.order.lines[0].quantity": 1,
        "$.order.deliveryFee": 6,
        "$.order.total": 48.5,
        "$.order.earlyBird": false,
        "$.order.deliveryAddress": { $meta: { relevant: true, required: true } },
      },
    },
    {
      description: "sold-out tiers leave the choice of tiers",
      given: {
        "$.tiers[0]": { code: "GA", price: 40, capacity: 10, sold: 10 },
        "$.tiers[1]": { code: "BAL", price: 55, capacity: 20, sold: 17 },
        "$.order.lines[0]": { tierCode: "BAL", quantity: 2 },
      },
      expect: {
        "$.order.lines[0].tierCode": { $meta: { enum: ["BAL"] } },
        "$.order.lines[0].quantity": { $meta: { maximum: 3 } },
        "$.order.lines[0].lineTotal": 110,
      },
    },
  ],
  viewDefinition: {
    defaultView: "buy",
    views: [
      {
        id: "buy",
        label: "Buy tickets",
        layout: "grid",
        columns: 2,
        components: [
          {
            id: "availability",
            type: "card",
            label: "Availability",
            components: [
              {
                id: "tiersTable",
                type: "dataTable",
                bind: "$.tiers",
                pageSize: 10,
                tableColumns: [
                  { field: "name", header: "Tier" },
                  { field: "price", header: "Price", format: "currency", currency: "EUR" },
                  { field: "remaining", header: "Left", format: "integer" },
                  { field: "popularityRank", header: "Rank", format: "integer" },
                ],
              },
              {
                id: "salesChart",
                type: "dataChart",
                chartType: "pie",
                bind: "$.tiers",
                chartX: "code",
                chartSeries: [{ field: "sold", label: "Sold" }],
              },
              {
                id: "left",
                type: "badge",
                variant: "warning",
                visible: "ticketsLeft < 50",
                text: "$string(ticketsLeft) & ' tickets left'",
              },
            ],
          },
          {
            id: "orderCard",
            type: "card",
            label: "Your order",
            components: [
              { id: "email", type: "emailField", label: "Email", bind: "$.order.buyerEmail" },
              {
                id: "lines",
                type: "sectionList",
                bind: "$.order.lines",
                canAdd: true,
                canRemove: true,
                addLabel: "Add tickets",
                layout: "horizontal",
                components: [
                  {
                    id: "tier",
                    type: "selectField",
                    label: "Tier",
                    bind: "$.order.lines[*].tierCode",
                    optionsPath: "$.tiers[*].code",
                  },
                  {
                    id: "quantity",
                    type: "numericStepper",
                    label: "Tickets",
                    bind: "$.order.lines[*].quantity",
                  },
                  { id: "lineTotal", type: "label", bind: "$.order.lines[*].lineTotal", format: "currency" },
                ],
              },
              {
                id: "delivery",
                type: "radioField",
                label: "Delivery",
                bind: "$.order.delivery",
                options: [
                  { value: "eticket", label: "E-ticket" },
                  { value: "willCall", label: "Collect at the venue" },
                  { value: "mail", label: "By mail (+6.00)" },
                ],
              },
              {
                id: "address",
                type: "textAreaField",
                label: "Mailing address",
                bind: "$.order.deliveryAddress",
                rows: 3,
              },
              {
                id: "earlyBird",
                type: "callout",
                variant: "success",
                visible: "order.earlyBird = true",
                text:
                  "'Early-bird pricing: ' & $string($const.earlyBirdDiscountPercent) & '% off every ticket'",
              },
              {
                id: "summary",
                type: "keyValueList",
                items: [
                  { label: "Tickets", bind: "$.order.ticketCount" },
                  {
                    label: "Tickets subtotal",
                    bind: "$.order.subtotal",
                    format: "currency",
                    currency: "EUR",
                  },
                  { label: "Service fee", bind: "$.order.serviceFee", format: "currency", currency: "EUR" },
                  { label: "Delivery", bind: "$.order.deliveryFee", format: "currency", currency: "EUR" },
                  { label: "Total", bind: "$.order.total", format: "currency", currency: "EUR" },
                ],
              },
              {
                id: "submit",
                type: "button",
                text: "Reserve",
                variant: "primary",
                enabled: "order.status = 'cart' and order.ticketCount > 0",
                onClick: { mutations: "{'$.order.status': 'submitted'}" },
              },
            ],
          },
          {
            id: "why",
            type: "explainPanel",
            bind: "$.order.total",
            limit: 5,
            showConstraints: true,
            collapsed: true,
          },
        ],
      },
    ],
  },
};
