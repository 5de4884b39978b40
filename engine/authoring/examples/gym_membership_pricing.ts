/**
 * Example spec: pricing a gym membership from a plan, add-ons, concessions and promotions.
 *
 * @module
 */
import type { ModelSpec } from "../../model/types.ts";

/** Gym membership quote: plan table lookups, eligibility, promo codes and a prorated first month. */
export const GYM_MEMBERSHIP_PRICING: ModelSpec = {
  _name: "Gym membership pricing",
  _description:
    "A membership quote built from a plan, optional add-ons, a student or senior concession and " +
    "a promo code, billed monthly or annually (annual pays ten months for twelve). The first invoice " +
    "prorates the start month and adds the joining fee, which annual members do not pay. Concessions are " +
    "checked against the member's age on the start date; basic plans bill monthly only.",
  id: "gym-membership-pricing",
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      member: {
        type: "object",
        properties: {
          name: { type: "string", minLength: 1 },
          email: { type: "string", pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$" },
          birthDate: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
          studentId: { type: "string", minLength: 4 },
        },
      },
      plan: { type: "string", enum: ["basic", "plus", "premium"] },
      billing: { type: "string", enum: ["monthly", "annual"] },
      addOns: {
        type: "array",
        uniqueItems: true,
        items: { type: "string", enum: ["towel", "locker", "classes", "sauna"] },
      },
      concession: { type: "string", enum: ["none", "student", "senior"] },
      promoCode: { type: "string", maxLength: 12 },
      startDate: { type: "string", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
      age: { type: "integer", readOnly: true },
      basePrice: { type: "number", readOnly: true },
      addOnTotal: { type: "number", readOnly: true },
      discountPercent: { type: "number", readOnly: true },
      monthlyPrice: { type: "number", readOnly: true },
      billedAmount: { type: "number", readOnly: true },
      annualCost: { type: "number", readOnly: true },
      daysInStartMonth: { type: "integer", readOnly: true },
      firstInvoice: { type: "number", readOnly: true },
    },
  },
  constants: {
    plans: [
      { id: "basic", monthly: 29 },
      { id: "plus", monthly: 45 },
      { id: "premium", monthly: 69 },
    ],
    addOns: [
      { id: "towel", monthly: 4 },
      { id: "locker", monthly: 6 },
      { id: "classes", monthly: 15 },
      { id: "sauna", monthly: 9 },
    ],
    concessions: { student: 20, senior: 15 },
    promos: [
      { code: "SPRING10", percent: 10 },
      { code: "FRIEND5", percent: 5 },
    ],
    joiningFee: 49,
    annualMonthsCharged: 10,
  },
  defaultValues: [
    {
      path: "$",
      expr: "{'billing': 'monthly', 'concession': 'none', 'addOns': []}",
      description: "Quotes start monthly, without concession or add-ons.",
    },
  ],
  derivations: [
    {
      path: "$.age",
      expr: "member.birthDate and startDate ? " +
        "$floor(($toMillis(startDate) - $toMillis(member.birthDate)) / (365.25 * 86400000))",
      description: "Whole years on the start date.",
    },
    {
      path: "$.basePrice",
      expr: "$const.plans[id = $$.plan].monthly",
      description: "Inside the filter, bare names are the plan entry's fields: the root's plan is $$.plan.",
    },
    { path: "$.addOnTotal", expr: "$sum([$const.addOns[id in $$.addOns].monthly])" },
    {
      path: "$.discountPercent",
      expr: "(concession = 'student' ? $const.concessions.student : concession = 'senior' ? " +
        "$const.concessions.senior : 0) + $sum([$const.promos[code = $uppercase($$.promoCode)].percent])",
      description: "Concession plus promotion, in percent.",
    },
    {
      path: "$.monthlyPrice",
      expr: "$round((basePrice + addOnTotal) * (1 - discountPercent / 100), 2)",
    },
    {
      path: "$.billedAmount",
      expr: "billing = 'annual' ? $round(monthlyPrice * $const.annualMonthsCharged, 2) : monthlyPrice",
      description: "What each bill charges: a month, or a year at the annual rate.",
    },
    { path: "$.annualCost", expr: "billing = 'annual' ? billedAmount : $round(monthlyPrice * 12, 2)" },
    {
      path: "$.daysInStartMonth",
      expr: "startDate ? (" +
        "$y := $number($substring(startDate, 0, 4)); " +
        "$m := $number($substring(startDate, 5, 2)); " +
        "$next := $m = 12 ? ($string($y + 1) & '-01-01') : ($string($y) & '-' & $formatInteger($m + 1, '00') & '-01'); " +
        "($toMillis($next) - $toMillis($substring(startDate, 0, 8) & '01')) / 86400000)",
      description: "Calendar days of the start month (from the 1st of the next month).",
    },
    {
      path: "$.firstInvoice",
      expr: "billing = 'annual' ? billedAmount : " +
        "$round(monthlyPrice * (daysInStartMonth - $number($substring(startDate, 8, 2)) + 1) / daysInStartMonth, 2) " +
        "+ $const.joiningFee",
      description:
        "Annual: the year, no joining fee. Monthly: the rest of the start month, prorated by day, " +
        "plus the joining fee.",
    },
  ],
  metaDerivations: [
    { path: "$.member.studentId", property: "relevant", expr: "concession = 'student'" },
    { path: "$.member.studentId", property: "required", expr: "concession = 'student'" },
    {
      path: "$.billing",
      property: "enum",
      expr: "plan ? (plan = 'basic' ? ['monthly'] : ['monthly', 'annual'])",
      description: "Basic plans bill monthly only (no limit until a plan is chosen).",
    },
  ],
  constraints: [
    {
      id: "senior-age",
      expr: "$not(concession = 'senior') or age >= 65",
      message: "The senior concession needs a member aged 65 or over on the start date",
      policy: "rollback",
    },
    {
      id: "student-has-id",
      expr: "$not(concession = 'student') or $exists(member.studentId)",
      message: "The student concession needs a student id",
      policy: "rollback",
    },
    {
      id: "known-promo",
      expr: "$not($exists(promoCode)) or $uppercase(promoCode) in $const.promos.code",
      message: "The promo code is not recognised and was ignored",
      policy: "flag",
    },
  ],
  effects: [
    {
      id: "quote-ready",
      executor: "caller",
      trigger: "$exists(member.email) and $exists(monthlyPrice)",
      emit: "membership.quote",
      payload: "{'to': member.email, 'plan': plan, 'billing': billing, 'billed': billedAmount, " +
        "'firstInvoice': firstInvoice}",
      description: "Asks the caller to email the quote whenever it changes and can be sent.",
    },
  ],
  tests: [
    {
      description: "plus plan with add-ons, monthly, starting mid-month",
      given: { "$.plan": "plus", "$.addOns": ["towel", "sauna"], "$.startDate": "2024-04-16" },
      expect: {
        "$.basePrice": 45,
        "$.addOnTotal": 13,
        "$.monthlyPrice": 58,
        "$.daysInStartMonth": 30,
        "$.firstInvoice": 78,
        "$.annualCost": 696,
      },
    },
    {
      description: "annual billing charges ten months and waives the joining fee",
      given: { "$.plan": "premium", "$.billing": "annual", "$.startDate": "2024-02-10" },
      expect: { "$.billedAmount": 690, "$.firstInvoice": 690, "$.annualCost": 690, "$.daysInStartMonth": 29 },
    },
    {
      description: "student concession and a promo code add up",
      given: {
        "$.plan": "basic",
        "$.concession": "student",
        "$.member.studentId": "S-20931",
        "$.promoCode": "spring10",
        "$.startDate": "2024-12-01",
      },
      expect: {
        "$.discountPercent": 30,
        "$.monthlyPrice": 20.3,
        "$.daysInStartMonth": 31,
        "$.firstInvoice": 69.3,
        "$.member.studentId": { $meta: { relevant: true, required: true } },
        "$.billing": { $meta: { enum: ["monthly"] } },
      },
    },
    {
      description: "seniors are eligible from 65 on the start date",
      given: {
        "$.plan": "plus",
        "$.member.birthDate": "1958-06-30",
        "$.startDate": "2024-07-01",
        "$.concession": "senior",
      },
      expect: { "$.age": 66, "$.discountPercent": 15, "$.monthlyPrice": 38.25 },
    },
    {
      description: "an unknown promo code gives no discount",
      given: { "$.plan": "basic", "$.promoCode": "BOGUS" },
      expect: {
        "$.discountPercent": 0,
        "$.monthlyPrice": 29,
        "$.member.studentId": { $meta: { relevant: false } },
      },
    },
  ],
  viewDefinition: {
    defaultView: "choosePlan",
    views: [
      {
        id: "choosePlan",
        label: "1. Choose a plan",
        layout: "wizard",
        components: [
          {
            id: "steps",
            type: "stepper",
            menuItems: [
              { label: "Plan", targetView: "choosePlan" },
              { label: "Member", targetView: "memberDetails" },
              { label: "Quote", targetView: "quote" },
            ],
          },
          {
            id: "plan",
            type: "radioField",
            label: "Plan",
            bind: "$.plan",
            options: [
              { value: "basic", label: "Basic: gym floor" },
              { value: "plus", label: "Plus: gym and pool" },
              { value: "premium", label: "Premium: everything, any club" },
            ],
          },
          {
            id: "addOns",
            type: "multiSelectField",
            label: "Add-ons",
            bind: "$.addOns",
            options: [
              { value: "towel", label: "Towel service" },
              { value: "locker", label: "Personal locker" },
              { value: "classes", label: "Group classes" },
              { value: "sauna", label: "Sauna" },
            ],
          },
          {
            id: "billing",
            type: "selectField",
            label: "Billing",
            bind: "$.billing",
            helperText: "Annual billing pays 10 months for 12",
            options: [{ value: "monthly", label: "Monthly" }, { value: "annual", label: "Annual" }],
          },
          {
            id: "promo",
            type: "textField",
            label: "Promo code",
            bind: "$.promoCode",
            placeholder: "SPRING10",
          },
          {
            id: "next",
            type: "button",
            text: "Continue",
            enabled: "$exists(plan)",
            onClick: { navigate: "memberDetails" },
          },
        ],
      },
      {
        id: "memberDetails",
        label: "2. Member details",
        layout: "grid",
        columns: 2,
        components: [
          { id: "name", type: "textField", label: "Full name", bind: "$.member.name" },
          { id: "email", type: "emailField", label: "Email", bind: "$.member.email" },
          { id: "birthDate", type: "dateField", label: "Date of birth", bind: "$.member.birthDate" },
          { id: "startDate", type: "dateField", label: "Start date", bind: "$.startDate" },
          {
            id: "concession",
            type: "selectField",
            label: "Concession",
            bind: "$.concession",
            options: [
              { value: "none", label: "None" },
              { value: "student", label: "Student (20%)" },
              { value: "senior", label: "Senior 65+ (15%)" },
            ],
          },
          { id: "studentId", type: "textField", label: "Student id", bind: "$.member.studentId" },
          {
            id: "ageNote",
            type: "staticText",
            visible: "$exists(age)",
            text: "'Age on the start date: **' & $string(age) & '**'",
          },
          {
            id: "toQuote",
            type: "buttonGroup",
            components: [
              {
                id: "back",
                type: "button",
                text: "Back",
                variant: "secondary",
                onClick: { navigate: "choosePlan" },
              },
              { id: "show", type: "button", text: "See quote", onClick: { navigate: "quote" } },
            ],
          },
        ],
      },
      {
        id: "quote",
        label: "3. Your quote",
        components: [
          {
            id: "priceTiles",
            type: "group",
            layout: "horizontal",
            components: [
              {
                id: "monthly",
                type: "statTile",
                label: "Per month",
                bind: "$.monthlyPrice",
                format: "currency",
                currency: "EUR",
                caption: "discountPercent > 0 ? $string(discountPercent) & '% off' : 'List price'",
              },
              {
                id: "firstInvoice",
                type: "statTile",
                label: "First invoice",
                bind: "$.firstInvoice",
                format: "currency",
                currency: "EUR",
              },
            ],
          },
          {
            id: "breakdown",
            type: "keyValueList",
            items: [
              { label: "Plan", bind: "$.basePrice", format: "currency", currency: "EUR" },
              { label: "Add-ons", bind: "$.addOnTotal", format: "currency", currency: "EUR" },
              { label: "Discount", bind: "$.discountPercent", format: "percent" },
              { label: "Billed each time", bind: "$.billedAmount", format: "currency", currency: "EUR" },
              { label: "Cost over a year", bind: "$.annualCost", format: "currency", currency: "EUR" },
            ],
          },
          { id: "divider", type: "separatorLine" },
          {
            id: "terms",
            type: "link",
            text: "Membership terms",
            href: "https://example.com/gym/terms",
            target: "_blank",
          },
        ],
      },
    ],
  },
};
