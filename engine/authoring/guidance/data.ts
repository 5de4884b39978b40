/**
 * Guidance topics about shaping data: grouping, ranking, running totals, dates,
 * units, missing values and text.
 *
 * @module
 */
import type { GuidanceTopic } from "./types.ts";

/** Totals per category, as an object and as rows. */
export const GROUP_BY: GuidanceTopic = {
  id: "group-by",
  title: "Group by and aggregate",
  whenToUse: "Totals, counts or averages per category, month or owner: a breakdown object for a key-value " +
    "list, or rows for a table or chart.",
  fragment: {
    derivations: [
      {
        path: "$.byCategory",
        expr: "sales{category: $sum(amount)}",
        description: "An object keyed by category; {} when there are no sales.",
      },
      {
        path: "$.categoryRows",
        expr: "[$each(sales{category: {'total': $sum(amount), 'count': $count(amount)}}, " +
          "function($v, $k) { {'category': $k, 'total': $v.total, 'count': $v.count} })]" +
          "^(>total)",
        description: "Rows sorted by total, largest first.",
      },
      {
        path: "$.byMonth",
        expr: "sales{$substring(date, 0, 7): $sum(amount)}",
        description: "Any expression can be the key: here the YYYY-MM part of an ISO date.",
      },
    ],
  },
  sample: {
    input: {
      sales: [
        { date: "2024-01-15", category: "books", amount: 30 },
        { date: "2024-01-20", category: "games", amount: 60 },
        { date: "2024-02-02", category: "books", amount: 12.5 },
      ],
    },
    expected: {
      "$.byCategory": { books: 42.5, games: 60 },
      "$.categoryRows": [
        { category: "games", total: 60, count: 1 },
        { category: "books", total: 42.5, count: 2 },
      ],
      "$.byMonth": { "2024-01": 90, "2024-02": 12.5 },
    },
  },
  notes: [
    "Inside `{key: value}` after a path, `value` is evaluated once per group with the group's elements as " +
    "context: `$sum(amount)` sums the group, a bare `amount` would give one value or a list.",
    "Group keys must be strings; a missing key field drops the element from every group.",
    "`$each(object, function($value, $key) {...})` turns the object into rows; wrap it in `[...]` so one " +
    "group is still a list, and sort with `^(>field)` (descending) or `^(field)`.",
  ],
};

/** Competition rank, top-N and a dense rank. */
export const RANKING: GuidanceTopic = {
  id: "ranking",
  title: "Ranking and top N",
  whenToUse: "Leaderboards, best sellers, priority order: each element's rank, or the first few by a score.",
  fragment: {
    derivations: [
      {
        path: "$.players[*].rank",
        expr: "$count(players[score > $parent.score]) + 1",
        description: "Competition rank: ties share a rank and the next rank is skipped (1, 2, 2, 4).",
      },
      {
        path: "$.players[*].denseRank",
        expr: "$count($distinct(players[score > $parent.score].score)) + 1",
        description: "Dense rank: ties share a rank, no gaps (1, 2, 2, 3).",
      },
      {
        path: "$.podium",
        expr: "[(players^(>score))[[0..2]].name]",
        description: "Names of the first three by score; [...] keeps a single name a list.",
      },
    ],
  },
  sample: {
    input: {
      players: [
        { name: "Ana", score: 70 },
        { name: "Ben", score: 95 },
        { name: "Cy", score: 70 },
        { name: "Dee", score: 40 },
      ],
    },
    expected: {
      "$.players[0].rank": 2,
      "$.players[1].rank": 1,
      "$.players[2].rank": 2,
      "$.players[3].rank": 4,
      "$.players[3].denseRank": 3,
      "$.podium": ["Ben", "Ana", "Cy"],
    },
  },
  notes: [
    "Inside `players[...]`, `score` is each player's score and `$parent` the player being ranked: the " +
    "element of the `[*]` derivation, not JSONata's parent operator `%`.",
    "Sorting is stable: equal scores keep their document order.",
    "`(list)[[0..2]]` takes the first three; without parentheses the index applies to each step instead " +
    "of the sorted list.",
    "Every rank depends on every score, so a change to one score recomputes all ranks: fine for hundreds " +
    "of rows.",
  ],
};

/** Cumulative sums row by row. */
export const RUNNING_TOTALS: GuidanceTopic = {
  id: "running-totals",
  title: "Running totals and balances",
  whenToUse:
    "A ledger's balance after each entry, cumulative sales, a burn-down: any value that depends on " +
    "the rows before it.",
  fragment: {
    derivations: [
      {
        path: "$.balances",
        expr: "[$map(entries, function($e, $i) { opening + $sum(entries[[0..$i]].amount) })]",
        description: "Balance after each entry, in document order.",
      },
      {
        path: "$.closing",
        expr: "opening + $sum([entries.amount])",
      },
      {
        path: "$.lowest",
        expr: "$min(balances)",
      },
    ],
  },
  sample: {
    input: { opening: 100, entries: [{ amount: -30 }, { amount: 50 }, { amount: -90 }] },
    expected: { "$.balances": [70, 120, 30], "$.closing": 30, "$.lowest": 30 },
  },
  notes: [
    "A `[*]` derivation only sees its own element (`$parent`), not its index; a running value is " +
    "therefore computed as one array over the whole list and shown with a table or chart.",
    "`$map`'s second callback argument is the index; `entries[[0..$i]]` selects the rows up to it.",
    "This is quadratic in the number of rows; for thousands of rows use `$reduce` to build the list in one " +
    "pass.",
  ],
};

/** Differences, offsets and calendar facts from ISO dates. */
export const DATE_MATH: GuidanceTopic = {
  id: "date-math",
  title: "Date math with ISO dates",
  whenToUse: "Durations, deadlines, ages, weekdays and overdue checks from dates stored as ISO strings.",
  fragment: {
    derivations: [
      {
        path: "$.trip.nights",
        expr:
          "trip.checkIn and trip.checkOut ? ($toMillis(trip.checkOut) - $toMillis(trip.checkIn)) / 86400000",
        description: "Whole days between two dates (UTC, so no daylight-saving surprises).",
      },
      {
        path: "$.trip.paymentDue",
        expr: "trip.checkIn ? $fromMillis($toMillis(trip.checkIn) - 14 * 86400000, '[Y0001]-[M01]-[D01]')",
        description: "Two weeks before check-in, formatted back to YYYY-MM-DD.",
      },
      {
        path: "$.trip.checkInWeekday",
        expr: "trip.checkIn ? $fromMillis($toMillis(trip.checkIn), '[FNn]')",
      },
      {
        path: "$.guest.age",
        expr: "guest.birthDate and trip.checkIn ? (" +
          "$b := $split(guest.birthDate, '-').$number(); $t := $split(trip.checkIn, '-').$number(); " +
          "$t[0] - $b[0] - (($t[1] * 100 + $t[2]) < ($b[1] * 100 + $b[2]) ? 1 : 0))",
        description: "Age in whole years on check-in: the year difference, minus one before the birthday.",
      },
    ],
    constraints: [
      {
        id: "checkout-after-checkin",
        expr: "$not(trip.checkIn and trip.checkOut) or trip.checkOut > trip.checkIn",
        message: "Check-out must be after check-in",
        policy: "flag",
      },
    ],
  },
  sample: {
    input: {
      trip: { checkIn: "2024-03-29", checkOut: "2024-04-02" },
      guest: { birthDate: "2006-03-30" },
    },
    expected: {
      "$.trip.nights": 4,
      "$.trip.paymentDue": "2024-03-15",
      "$.trip.checkInWeekday": "Friday",
      "$.guest.age": 17,
    },
  },
  notes: [
    "Store dates as ISO strings (YYYY-MM-DD or full timestamps): they compare correctly as strings " +
    "(`checkOut > checkIn`) and `$toMillis` reads them.",
    "`$toMillis` throws on a malformed or partial date, which rejects the mutation; guard with a condition " +
    "or a schema `pattern` so only well-formed dates get in.",
    "Avoid `$now()` in derivations: the value changes without any write, embedded tests cannot check it, " +
    "and it only refreshes when an input changes. Store the reference date as a field instead.",
    "Dividing milliseconds by 365.25 days gives an approximate age; the calendar comparison above is exact.",
  ],
};

/** Normalising measurements to one unit with a factor table. */
export const UNIT_CONVERSION: GuidanceTopic = {
  id: "unit-conversion",
  title: "Unit conversion with a factor table",
  whenToUse:
    "Measurements entered in mixed units (kg and lb, cm and in, l and gal) that must be compared or " +
    "summed in one unit.",
  fragment: {
    constants: {
      toKg: [{ unit: "kg", factor: 1 }, { unit: "g", factor: 0.001 }, { unit: "lb", factor: 0.45359237 }],
    },
    derivations: [
      {
        path: "$.parcels[*].weightKg",
        expr: "$round($parent.weight * $const.toKg[unit = $parent.unit].factor, 3)",
      },
      { path: "$.totalKg", expr: "$round($sum([parcels.weightKg]), 3)" },
      {
        path: "$.heaviest",
        expr: "(parcels^(>weightKg))[0].label",
      },
    ],
  },
  sample: {
    input: {
      parcels: [
        { label: "A", weight: 2, unit: "kg" },
        { label: "B", weight: 5, unit: "lb" },
        { label: "C", weight: 750, unit: "g" },
      ],
    },
    expected: {
      "$.parcels[1].weightKg": 2.268,
      "$.parcels[2].weightKg": 0.75,
      "$.totalKg": 5.018,
      "$.heaviest": "B",
    },
  },
  notes: [
    "Keep the entered value and unit as base fields and derive the normalised value: the user's input is " +
    "never rewritten.",
    "Temperatures need an offset as well as a factor; hold both in the table (`{unit, factor, offset}`).",
    "Restrict the unit with a schema `enum` so the table lookup cannot miss.",
  ],
};

/** Defaults for absent fields, and how absence propagates. */
export const MISSING_VALUES: GuidanceTopic = {
  id: "missing-values",
  title: "Missing values and safe defaults",
  whenToUse: "Any expression over optional fields: forms filled in gradually, lists that start empty, " +
    "numbers that may not be entered yet.",
  fragment: {
    derivations: [
      { path: "$.total", expr: "$sum([items.price])", description: "0 for no items, not absent." },
      {
        path: "$.shipping",
        expr: "$exists(shippingOverride) ? shippingOverride : (total >= 50 ? 0 : 4.95)",
        description: "A field's own value when present, else a default.",
      },
      {
        path: "$.firstNote",
        expr: "[notes, 'none'][0]",
        description: "The first present value of a list of candidates: absent ones vanish from [...].",
      },
      {
        path: "$.complete",
        expr: "$exists(name) and $exists(email) and $count(items) > 0",
      },
    ],
  },
  sample: {
    input: { name: "Kim", items: [{ price: 20 }, { title: "no price yet" }] },
    expected: { "$.total": 20, "$.shipping": 4.95, "$.firstNote": "none", "$.complete": false },
  },
  notes: [
    "A path to a missing field yields nothing (undefined), not null: `missing = null` is false, and so is " +
    "`missing != null`. Test presence with `$exists(x)`.",
    "Comparisons with a missing operand yield nothing, which a condition treats as false and a constraint " +
    "treats as passing: write `$not(x = 'a') or ...` rather than `x != 'a' or ...`.",
    "Arithmetic with a missing operand yields nothing, and a derivation that yields nothing removes its " +
    "field from the state. `$sum([...])` and `$count(...)` give 0 instead.",
    "null is a value: arithmetic on an explicit null fails the evaluation (T2001) and rejects the mutation.",
  ],
};

/** Text built from values: labels, codes, formatted numbers. */
export const TEXT_FORMATTING: GuidanceTopic = {
  id: "text-formatting",
  title: "Building and formatting text",
  whenToUse: "Display labels, reference codes, summaries and messages assembled from field values.",
  fragment: {
    derivations: [
      {
        path: "$.reference",
        expr: "'ORD-' & $formatInteger(orderNumber, '000000')",
        description: "Zero-padded code.",
      },
      {
        path: "$.amountText",
        expr: "$formatNumber(amount, '#,##0.00') & ' ' & currency",
      },
      {
        path: "$.itemSummary",
        expr: "$join(items.(name & ' x' & $string(qty)), ', ')",
      },
      {
        path: "$.initials",
        expr: "$join($split(customer, ' ').$substring($, 0, 1))",
      },
    ],
  },
  sample: {
    input: {
      orderNumber: 4217,
      amount: 1234.5,
      currency: "EUR",
      customer: "Ada Lovelace",
      items: [{ name: "tea", qty: 2 }, { name: "scones", qty: 6 }],
    },
    expected: {
      "$.reference": "ORD-004217",
      "$.amountText": "1,234.50 EUR",
      "$.itemSummary": "tea x2, scones x6",
      "$.initials": "AL",
    },
  },
  notes: [
    "`&` concatenates and converts numbers and booleans to text; `+` is arithmetic only and fails on text.",
    "A missing operand of `&` becomes the empty string, so 'Dear ' & name gives 'Dear ' when name is absent.",
    "`$join` needs a list of strings: `$string(x)` converts numbers first.",
  ],
};

/** Every data topic, in menu order. */
export const DATA_TOPICS: readonly GuidanceTopic[] = [
  GROUP_BY,
  RANKING,
  RUNNING_TOTALS,
  DATE_MATH,
  UNIT_CONVERSION,
  MISSING_VALUES,
  TEXT_FORMATTING,
];
