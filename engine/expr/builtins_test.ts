import assert from "node:assert/strict";
import { assertLikeJsonata, jsonInTimeZones } from "../_test_utils.ts";
import jsonata from "jsonata";
import { toPlainJson } from "../json/value.ts";
import { ExpressionCompiler } from "./compiler.ts";
import { MATCH_CHUNK, UNITS_PER_CHUNK } from "./builtins.ts";
import { MAX_QUOTED_CHARS, quoted, shortMessage } from "../quoted.ts";
import { Random } from "./compiled/test_support.ts";
import { UNITS_PER_PACE } from "./code_points.ts";
import { COMPARISONS_PER_PACE } from "./merge_sort.ts";
import { PIECES_PER_PACE } from "./split.ts";
import { turnsDuring, withoutBacktracking, withoutNativeWalks, withSteppingClock } from "./test_meters.ts";

const compiler = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 5000, maxDepth: 500 });

Deno.test("guarded builtins give JSONata's results", async () => {
  const input = { a: [3, 1, 3, { x: 1, y: [1.1, 2] }, { y: [1.1, 2], x: 1 }, "3", null, true], n: 0.1 };
  await assertLikeJsonata(compiler, [
    "$string(a)",
    "$string(a, true)",
    "$string(n + 0.2)",
    "$string({'f': function(){1}, 'u': missing, 's': 'q\"'})",
    "$string([])",
    "$string({})",
    "$distinct(a)",
    "$distinct([1, 1.0, '1'])",
    "$pad('ab', 5, '-')",
    "$pad('ab', -5)",
    "$join(['a', 'b'], ', ')",
    "$replace('a-b-c', '-', '+', 1)",
    "$fromMillis(0, '[Y0001]-[M01]')",
    "$formatInteger(42, 'w')",
    "$match('a1b22c333', /[0-9]+/)",
    "$match('aaa', /a/, 2)",
    "$count($match('xyz', /q/))",
    "$split('a1b22c', /[0-9]+/)",
    "$split('a1b22c', /[0-9]+/, 2)",
    "$replace('a1b22c', /([0-9]+)/, '<$1>')",
    "$replace('a1b22c', /[0-9]+/, function($m){ $string($count($m.match)) })",
    "$count($match($pad('', 1000, 'ab'), /a/))",
  ], input);
});

Deno.test("$distinct is linear: each item is read once, not compared with every item kept", async () => {
  assert.equal(await compiler.compile("$count($distinct([1..150000]))").evaluate({}), 150000);
  // Items counting the reads of their field: jsonata-js's $distinct compared each with all kept (n² / 2 reads).
  let reads = 0;
  const items = Array.from(
    { length: 1000 },
    (_, i) => Object.defineProperty({}, "k", { enumerable: true, get: () => (reads++, i) }),
  );
  assert.equal(await compiler.compile("$count($distinct(items))").evaluate({ items }), 1000);
  assert.ok(reads <= 3 * items.length, `${reads} reads of ${items.length} items`);
});

Deno.test("picture widths over the limit fail instead of padding", async () => {
  await assert.rejects(
    () => compiler.compile("$fromMillis(0, '[Y,400000000]')").evaluate({}),
    /picture width of 400000000 is over the limit of 1000/,
  );
});

Deno.test("pictures longer than 1000 characters fail at once instead of formatting for seconds", async () => {
  for (
    const source of [
      "$formatNumber(1e300, '#' & $pad('', 30000000, '0'))",
      "$formatNumber(1.5, '0.' & $pad('', 4000000, '0'))",
      "$formatInteger(5, $pad('', 20000000, '0'))",
      "$fromMillis(0, $pad('', 20000000, '0'))",
      "$fromMillis(0, '[Y' & $pad('', 20000000, '0') & ']')",
      "$toMillis('2020', $pad('', 4000000, '[Y]'))",
      "$parseInteger('1', $pad('', 5000000, '0'))",
    ]
  ) {
    // The guard's own code (U1004): refused before JSONata formats anything.
    await assert.rejects(
      () => compiler.compile(source).evaluate({}),
      /U1004: a picture of \d+ characters is over the limit of 1000/,
      source,
    );
  }
  // Up to the cap, and digit patterns (not widths) of any value, as jsonata-js formats them.
  await assertLikeJsonata(compiler, [
    "$formatNumber(1e300, '#' & $pad('', 999, '0'))",
    "$formatInteger(5, $pad('', 1000, '0'))",
    "$formatInteger(5, '1001')",
    "$formatNumber(5, '9999')",
    "$fromMillis(0, '[Y1001]-[M01] [Y,2-4]')",
    "$toMillis('2020-03', '[Y0001]-[M01]')",
    "$parseInteger('12,345', $pad('', 995, '#') & '0,000')",
  ], {});
});

/** Guarded as `compiler`, with no deadline: the tests' clock runs 10 ms a reading (`turnsDuring`). */
const unhurried = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 1e12, maxDepth: 500 });

Deno.test("a walk over 100,000 regex matches lets other work run meanwhile", async () => {
  let count: unknown;
  const { turns } = await turnsDuring(async () => {
    count = await unhurried.compile("$count($match($pad('', 100000, 'a'), /a/))").evaluate({});
  });
  assert.equal(count, 100000);
  // A chance to yield every MATCH_CHUNK matches, each taken on this clock.
  assert.ok(turns >= Math.floor(100000 / MATCH_CHUNK), `timers ran ${turns} times during the walk`);
});

/**
 * Runs `work` under {@link turnsDuring}, failing if it walks a string of more
 * than a chunk in one native call: the event-loop turns other work got.
 */
async function pacedTurns(work: () => Promise<void>): Promise<number> {
  return (await withoutNativeWalks(UNITS_PER_PACE, () => turnsDuring(work))).turns;
}

/** The pacing calls of a walk over `units` in chunks of `per`. */
const walks = (units: number, per = UNITS_PER_PACE) => Math.floor(units / per);

/** What an evaluation gives: its value (-0 kept apart from 0) or its error's code and message. */
async function outcomeOf(evaluation: () => Promise<unknown>, quoting = false): Promise<unknown> {
  try {
    // JSON has no NaN: where jsonata-js answers one, the engine fails (U1002, engine/json/value.ts).
    const answer = quoting ? toPlainJson(await evaluation()) : await evaluation();
    return { value: JSON.stringify(answer, (_k, v) => Object.is(v, -0) ? "-0" : v) };
  } catch (err) {
    const { code = err instanceof RangeError ? "U1002" : undefined, message, value } = err as {
      code?: string;
      message?: string;
      value?: unknown;
    };
    // The engine's message is jsonata-js's, prefixed with the code and followed by the position.
    let text = message?.replace(/^\w+: /, "").replace(/ \(position \d+\)$/, "");
    // jsonata-js's message quotes a value, or is the message of $error or $assert, whole; the engine's capped.
    if (quoting && typeof value === "string") {
      text = text?.replace(JSON.stringify(value), JSON.stringify(quoted(value)));
    }
    if (quoting && (code === "D3137" || code === "D3141") && text) text = quoted(text);
    // And every long run of it cut as an ExpressionError's message is (engine/quoted.ts shortMessage).
    if (quoting && text) text = shortMessage(text);
    return { code, message: text };
  }
}

/** Asserts the engine's outcome of `source` over `input` is jsonata-js's (with a long quoted value capped). */
async function assertSameOutcome(
  source: string,
  input: unknown,
  bindings?: Record<string, unknown>,
): Promise<void> {
  assert.deepEqual(
    await outcomeOf(() => compiler.compile(source).evaluate(input, bindings)),
    await outcomeOf(() => jsonata(source).evaluate(input, bindings), true),
    `${source} over ${JSON.stringify(input).slice(0, 200)}`,
  );
}

const UNITS = ["a", "b", "Z", " ", "\t", "\n", "\r", "é", "€", "😀", "\uD83D", "\uDE00", "0", "-"];

function randomString(random: Random, most: number): string {
  let text = "";
  for (let n = random.int(most + 1); n > 0; n--) text += random.pick(UNITS);
  return text;
}

Deno.test("guarded $sort, $length, $substring, $pad and $trim give jsonata-js's results and errors (random cases)", async () => {
  const random = new Random(20261201);
  const sorts = [
    "$sort(a)",
    "$sort(a, function($x, $y){ $x > $y })",
    "$sort(a, function($x, $y){ $x < $y })",
    // Not an order: jsonata-js's answer depends on which pairs it compares, in which order.
    "$sort(a, function($x, $y){ $string($x) & $string($y) > $string($y) & $string($x) and $count([$x]) = 1 })",
    "$sort(o, function($l, $r){ $l.k > $r.k })",
    "$sort(a, function($x, $y){ $x = 3 ? $error('three') : $x > $y })",
  ];
  for (let round = 0; round < 150; round++) {
    const kind = random.int(4);
    const a = Array.from(
      { length: random.int(12) },
      () =>
        kind === 0
          ? random.pick([0, -0, 1, 2, 3, -1.5, 1e21, 7])
          : kind === 1
          ? randomString(random, 3)
          : random.pick<unknown>([1, "1", null, true, [2], { k: 1 }, 3, "b"]),
    );
    const o = Array.from({ length: random.int(12) }, (_, i) => ({ k: random.int(3), i }));
    for (const source of sorts) await assertSameOutcome(source, { a: random.chance(0.1) ? a[0] : a, o });
    const s = randomString(random, 12);
    const i = random.pick([0, 1, 2, -1, -3, 1.5, -2.5, 20, -20]);
    const j = random.pick([0, 1, 3, -1, 2.5, 20]);
    for (
      const source of [
        "$length(s)",
        "$substring(s, i)",
        "$substring(s, i, j)",
        "$pad(s, i * 3)",
        "$pad(s, i * 3, c)",
        "$trim(s)",
      ]
    ) await assertSameOutcome(source, { s, i, j, c: randomString(random, 3) });
  }
});

Deno.test("$sort without a comparator refuses what jsonata-js refuses", async () => {
  for (
    const a of [[1, "a"], [1, null], [{}, {}], [0 / 0, 1], [1, 1 / 0], ["a", -1 / 0], [], [5], ["b", "a"]]
  ) {
    // NaN and Infinity arrive through bindings: JSON input cannot hold them.
    const source = "$sort($a)";
    assert.deepEqual(
      await outcomeOf(() => compiler.compile(source).evaluate({}, { a })),
      await outcomeOf(() => jsonata(source).evaluate({}, { a })),
      JSON.stringify(a),
    );
  }
});

Deno.test("$sort of 200,000 numbers makes n log n comparisons, lets other work run, and is cut at the deadline", async () => {
  const n = 200000;
  let sorted: number[] = [];
  const { turns } = await turnsDuring(async () => {
    sorted = await unhurried.compile("$sort($reverse([1..200000]))").evaluate({}) as number[];
  });
  assert.equal(sorted.length, n);
  assert.equal(sorted[0], 1);
  assert.equal(sorted[n - 1], n);
  // A turn every COMPARISONS_PER_PACE comparisons: a reversed array takes n/2 log2 n of them, at most n log2 n.
  const paces = (comparisons: number) => Math.floor(comparisons / COMPARISONS_PER_PACE);
  assert.ok(turns >= paces(n / 2 * Math.log2(n) - n), `timers ran ${turns} times during the sort`);
  assert.ok(turns <= paces(n * Math.log2(n)) + 20, `${turns} turns: more comparisons than n log n`);
  // A clock moving 1 ms a reading: only the sort's own checks (every 4,096 comparisons) can reach a 50 ms deadline.
  const hurried = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 50, maxDepth: 500 });
  const items = Array.from({ length: n }, (_, i) => n - i);
  const outcome = await withSteppingClock(
    1,
    () => hurried.compile("$sort(items)").evaluate({ items }).catch(String),
  );
  assert.match(String(outcome.value), /D1012/);
});

Deno.test("$length, $substring, $pad and $trim of tens of millions of characters let other work run", async () => {
  for (
    const [source, expected, paces] of [
      ["$length($pad('', 40000000, 'é'))", 40000000, 0],
      ["$length($substring($pad('', 20000000, '😀'), 1, 3))", 3, 0],
      ["$length($pad('', 20000000, '-😀'))", 20000000, walks(30e6)],
      ["$length($trim($pad('', 20000000, ' a')))", 19999999, 0],
      ["$length($trim($pad('', 10000000, '  a')))", 6666665, walks(10e6, UNITS_PER_CHUNK)],
      ["$substring($pad('', 20000000, '😀'), -3, 2)", "😀😀", walks(40e6) * 2],
    ] as const
  ) {
    // jsonata-js spread these strings into arrays of code points (6 to 55 s each, in one step): the walk fails.
    const turns = await pacedTurns(async () => {
      assert.equal(await unhurried.compile(source).evaluate({}), expected, source);
    });
    // A turn per chunk walked: a string is walked where it holds surrogates (or runs of spaces, to trim).
    assert.ok(turns >= paces, `${source}: timers ran ${turns} times, not ${paces}`);
  }
});

Deno.test("$string writes a NaN inside its value as null and fails on Infinity, as jsonata-js does", async () => {
  for (
    const source of [
      "$string([0/0])",
      "$string({'a': 0/0})",
      "$string([1, [0/0, 2.5]], true)",
      "$string(0/0)",
      "$string(1/0)",
      "$string([1/0])",
      "$string({'a': [2, -1/0, 0/0]})",
      "$string([0/0, 1/0])",
    ]
  ) await assertSameOutcome(source, {});
});

Deno.test("$encodeUrl, $encodeUrlComponent and $base64encode work in chunks with jsonata-js's results and errors", async () => {
  // Past one chunk (786,432 characters), with surrogate pairs across the chunk boundaries and a lone one at the end.
  const long = "a😀é/?".repeat(400_000);
  for (const source of ["$encodeUrl(s)", "$encodeUrlComponent(s)", "$base64encode(s)"]) {
    for (const s of [long, long + "\uD800", "\uDC00" + long, long.slice(1), long.slice(2)]) {
      await assertSameOutcome(source, { s });
    }
  }
  const turns = await pacedTurns(async () => {
    const source = "$length($encodeUrlComponent($pad('', 20000000, 'é')))";
    await assert.rejects(() => unhurried.compile(source).evaluate({}), /expression-memory-bytes/);
  });
  // Some 19 chunks of 786,432 characters converted, each followed by a turn for other work, before the budget refuses.
  assert.ok(turns >= 15, `timers ran ${turns} times`);
});

Deno.test("$string charges a long string's JSON before building it", async () => {
  // 40 million control characters serialise to 240 million: JSONata built them (21 s) before anything could refuse.
  const stringify = JSON.stringify;
  let longest = 0;
  JSON.stringify = ((value: unknown, ...rest: never[]) => {
    if (typeof value === "string") longest = Math.max(longest, value.length);
    return stringify(value, ...rest);
  }) as typeof JSON.stringify;
  try {
    await assert.rejects(
      () => compiler.compile("$string({'a': $pad('', 40000000, '\\u0001')})").evaluate({}),
      /expression-memory-bytes/,
    );
  } finally {
    JSON.stringify = stringify;
  }
  assert.ok(
    longest < 40000000,
    `a string of ${longest} characters was serialised before the budget refused it`,
  );
  assert.equal(
    await compiler.compile("$length($string({'a': $pad('', 2000000, 'é')}))").evaluate({}),
    2000008,
  );
});

Deno.test("$split by a string gives jsonata-js's pieces, limits and errors", async () => {
  const random = new Random(20261207);
  for (let round = 0; round < 200; round++) {
    const s = randomString(random, 14);
    const sep = random.pick(["", "a", "ab", "aa", "😀", "\uD83D", " ", s.slice(0, 2)]);
    const limit = random.pick<unknown>([undefined, 0, 1, 2, 3, 2.5, 0.5, 100, -1, 2 ** 32 + 1, 2 ** 32]);
    const source = limit === undefined ? "$split(s, sep)" : "$split(s, sep, $limit)";
    await assertSameOutcome(source, { s, sep }, { limit });
  }
  for (
    const source of [
      "$split('', '')",
      "$split('', ',')",
      "$split(',,', ',')",
      "$split(nothing, ',')",
      "$split('a', 'a')",
    ]
  ) {
    await assertSameOutcome(source, {});
  }
});

/** Strings of the units around a chunk boundary (786,432 characters) at every offset of a sequence. */
function acrossChunks(unit: string, tail: string): string[] {
  const long = unit.repeat(Math.ceil((3 << 18) / unit.length) + 2);
  return Array.from({ length: unit.length + 1 }, (_, i) => long.slice(i) + tail);
}

Deno.test("$decodeUrl and $decodeUrlComponent work in chunks with jsonata-js's results and errors", async () => {
  for (
    const s of [
      "a%20b%2F%3F",
      "%E2%82%AC%F0%9F%98%80",
      "%",
      "%4",
      "%G1",
      "%C3",
      "%80",
      "%C3%A9%A9",
      "%F0%9F%98",
      "%ED%A0%80",
      "😀%41",
      "\uD800%41",
    ]
  ) {
    for (const source of ["$decodeUrl(s)", "$decodeUrlComponent(s)"]) await assertSameOutcome(source, { s });
  }
  // Multi-byte sequences across every chunk boundary; malformed ones at the boundary, in the middle and at the end.
  const cases = [
    ...acrossChunks("%C3%A9a%E2%82%AC%2F%F0%9F%98%80", ""),
    ...acrossChunks("%F0%9F%98%80", "%"),
    ...acrossChunks("%E2%82%AC", "%E2%82"),
    ...acrossChunks("%80", ""),
    ...acrossChunks("%%41", ""),
    ...acrossChunks("%41", "%4"),
    "%41".repeat(300_000) + "%C3" + "%41".repeat(300_000),
  ];
  for (const s of cases) {
    for (const source of ["$decodeUrl(s)", "$decodeUrlComponent(s)"]) await assertSameOutcome(source, { s });
  }
});

Deno.test("$uppercase and $lowercase work in chunks with jsonata-js's results, final sigma included", async () => {
  const random = new Random(20261208);
  const units = [...UNITS, "Σ", "ς", "σ", "ß", "İ", "\u0301", "'", ".", "ΑΣ", "Σ."];
  for (let round = 0; round < 100; round++) {
    let s = "";
    for (let n = random.int(16); n > 0; n--) s += random.pick(units);
    for (const source of ["$uppercase(s)", "$lowercase(s)"]) await assertSameOutcome(source, { s });
  }
  for (
    const s of [
      ...acrossChunks("ΑΣ", "Σ"),
      ...acrossChunks("aΣ.'\u0301Σ b", ""),
      ...acrossChunks("😀ß", "\uD800"),
      "Σ".repeat(1_000_000),
      "Α" + "\u0301".repeat(1_000_000) + "Σ",
      "a".repeat(1_000_000) + "Σ" + "'".repeat(10) + "b",
    ]
  ) {
    for (const source of ["$uppercase(s)", "$lowercase(s)"]) await assertSameOutcome(source, { s });
  }
});

/** A long string of the kind jsonata-js's `$number` reads: decimal (finite or not), prefixed, or nearly so. */
function numberText(random: Random): string {
  const run = (chars: string, lengths = [0, 1, 3, 400, 1200]) => {
    let text = "";
    for (let n = random.pick(lengths); n > 0; n--) text += random.pick([...chars]);
    return text;
  };
  if (random.chance(0.5)) {
    // A decimal: long runs of zeros around few significant digits keep it finite.
    const digits = () => run("0", [0, 1, 1200]) + run("0123456789", [1, 5, 17, 900]) + run("0", [0, 1200]);
    const exponent = random.pick(["", "e", "E-", "e+"]) + run("0", [0, 1200]) + run("0123", [1, 2, 3]);
    const text = random.pick(["", "-"]) + digits() + random.pick(["", "." + digits()]) + exponent;
    return random.chance(0.1) ? text + random.pick([" ", "x", ".", "e"]) : text;
  }
  const part = () =>
    random.pick([
      () => run("0"),
      () => run("0123456789"),
      () => run("1"),
      () => ".",
      () => random.pick(["e", "E", "e-", "e+", "E-"]),
      () => random.pick(["-", "+", " ", "\n", "\u00A0", "\uFEFF"]),
      () => random.pick(["0x", "0X", "0o", "0O", "0b", "0B", "x", "o"]),
      () => run("01234567abcdefABCDEF"),
      () => run(" \t"),
    ])();
  let text = "";
  for (let n = 1 + random.int(6); n > 0; n--) text += part();
  return text;
}

Deno.test("$number and $toMillis read long strings as jsonata-js does", async () => {
  const random = new Random(20261209);
  for (let round = 0; round < 600; round++) {
    const s = numberText(random);
    await assertSameOutcome("$number(s)", { s });
  }
  for (
    const s of [
      // Rounding decided past the 800th significant digit: halfway, just above, just below; near overflow and underflow.
      "9007199254740993" + "0".repeat(1200),
      "9007199254740993" + "0".repeat(1200) + "1",
      "9007199254740992" + "9".repeat(1200),
      "9007199254740993." + "0".repeat(1200) + "1e-1200",
      "0." + "0".repeat(1500) + "9007199254740993" + "0".repeat(1200) + "1e1516",
      "1797693134862315708145274237317043567981" + "0".repeat(268) + "." + "0".repeat(1000),
      "17976931348623158" + "0".repeat(1500) + "e-1200",
      "0." + "0".repeat(323) + "247032822920623272088" + "0".repeat(1000) + "1",
      "0." + "0".repeat(323) + "247032822920623272088" + "0".repeat(1000),
      "-" + "0".repeat(1200) + ".0",
      "1e" + "0".repeat(1200) + "5",
      "1e-" + "0".repeat(1200) + "12345678901",
      "0e" + "9".repeat(1200),
      "0x" + "0".repeat(1200) + "1f",
      "0x" + "f".repeat(1200),
      " ".repeat(1200) + "0b101 ",
      "0b" + "1".repeat(1200) + "x",
      "x".repeat(1200) + "0o7",
    ]
  ) await assertSameOutcome("$number(s)", { s });
  const shapes = [
    "2020-01-01T00:00:00.#",
    "2020-01-01T23:59:59.#Z",
    "2020-01-01T00:00:00.#+01:30",
    "2020.#",
    "2020-02.#Z",
  ];
  const fractions = [
    "1",
    "123456789123",
    "0".repeat(1200) + "9",
    "5".repeat(1200),
    "0".repeat(1200),
    "9".repeat(1200) + "x",
  ];
  // jsonata-js reads a time without an offset in the host's zone, the service as UTC (the TZ test below):
  // the two agree on those shapes on a UTC host only.
  const utcHost = new Date(2020, 0, 1).getTimezoneOffset() === 0 &&
    new Date(2020, 6, 1).getTimezoneOffset() === 0;
  for (const shape of shapes.filter((shape) => utcHost || /Z|[+-]\d\d:\d\d$/.test(shape))) {
    for (const fraction of fractions) {
      await assertSameOutcome("$toMillis(s)", { s: shape.replace("#", fraction) });
    }
  }
  for (
    const s of [
      "x".repeat(1200),
      "2020-01-01" + "0".repeat(1200),
      "2020-01-01T00:00:00." + "1".repeat(1200) + "Z+01:00",
      "2020-01-0.1" + "1".repeat(1200),
    ]
  ) await assertSameOutcome("$toMillis(s)", { s });
});

Deno.test("failures quote at most 1000 characters of a value or a message", async () => {
  const long = "é😀".repeat(700);
  for (
    const source of [
      "$number(s)",
      "$toMillis(s)",
      "$decodeUrl(s & '%')",
      "$encodeUrl(s & '\uD800')",
      "$error(s)",
      "$assert(false, s)",
      "$error('short')",
      "$error('')",
      "$assert(1 = 2)",
    ]
  ) {
    await assertSameOutcome(source, { s: long });
    const err = await compiler.compile(source).evaluate({ s: long }).catch((e) => e);
    assert.ok(err.message.length < MAX_QUOTED_CHARS + 200, `${source}: ${err.message.length} characters`);
  }
});

Deno.test("$split, $decodeUrl, $number, $toMillis, $error, $assert, $uppercase and $lowercase of tens of millions of characters let other work run", async () => {
  const budget = /expression-memory-bytes/;
  for (
    const [source, expected, paces] of [
      // 40 million pieces: refused by the budget as they are counted, not after a 1.5 to 3.9 s native split.
      ["$count($split($pad('', 40000000, 'a'), ''))", budget, 0],
      // Some 3.4 million counted before the budget refuses them.
      ["$count($split($pad('', 40000000, 'a'), 'a'))", budget, walks(3e6, PIECES_PER_PACE)],
      ["$count($split($pad('', 40000000, 'a'), 'a', 3))", 3, 0],
      // Counted, then cut.
      ["$count($split($pad('', 4000000, 'ab'), 'b'))", 2000001, walks(2e6, PIECES_PER_PACE) * 2],
      ["$length($decodeUrl($pad('', 13000002, '%C3%A9')))", 2166667, walks(13e6, UNITS_PER_CHUNK)],
      [
        "$length($decodeUrlComponent($pad('', 13000005, '%E2%82%AC')))",
        1444445,
        walks(13e6, UNITS_PER_CHUNK),
      ],
      [
        "$number($pad('', 40000000, '1'))",
        /^D3030: Unable to cast value to a number: "1{1000}… \(40000000 characters\)"/,
        walks(40e6),
      ],
      ["$number($pad('', 40000000, 'x'))", /^D3030: /, walks(40e6)],
      ["$number('0.' & $pad('', 40000000, '5'))", 0.5555555555555556, walks(40e6)],
      ["$toMillis($pad('', 40000000, 'x'))", /^D3110: .*"x{1000}… \(40000000 characters\)"/, 0],
      ["$toMillis('2020-01-01T00:00:00.' & $pad('', 20000000, '9') & 'Z')", 1577836800999, walks(20e6)],
      ["$error($pad('', 40000000, 'x'))", /^D3137: x{1000}… \(40000000 characters\)/, 0],
      ["$assert(false, $pad('', 40000000, 'x'))", /^D3141: x{1000}… \(40000000 characters\)/, 0],
      ["$length($uppercase($pad('', 20000000, 'é')))", 20000000, walks(20e6, UNITS_PER_CHUNK)],
      ["$length($lowercase($pad('', 20000000, 'AΣ')))", 20000000, walks(20e6, UNITS_PER_CHUNK)],
    ] as const
  ) {
    // jsonata-js did each in one native step (0.3 to 3.9 s), or built a message of the whole value.
    const turns = await pacedTurns(async () => {
      const outcome = await unhurried.compile(source).evaluate({}).catch((err: Error) => err);
      if (expected instanceof RegExp) {
        assert.ok(outcome instanceof Error, `${source} gave ${outcome}`);
        assert.match(outcome.message, expected, source);
        assert.ok(outcome.message.length < MAX_QUOTED_CHARS + 200, source);
      } else assert.equal(outcome, expected, source);
    });
    // A turn per chunk walked (those that stop early, or refuse at once, walk none).
    assert.ok(turns >= paces, `${source}: timers ran ${turns} times, not ${paces}`);
  }
});

Deno.test("$toMillis with a picture gives jsonata-js's results and errors", async () => {
  const cases: [string, string][] = [
    ["2024-03-05T10:11:12.345+05:30", "[Y0001]-[M01]-[D01]T[H01]:[m01]:[s01].[f001][Z01:01]"],
    ["20240305101112", "[Y0001][M01][D01][H01][m01][s01]"],
    ["Tuesday, 5th March 2024", "[FNn], [D1o] [MNn] [Y]"],
    ["TUESDAY, 5TH MARCH 2024", "[FNn], [D1o] [MNn] [Y]"],
    ["fifth of march, two thousand and twenty-four", "[Dwo] of [Mn], [Yw]"],
    ["5 Mar 2024 10:11 pm GMT+05:30", "[D] [MNn,3-3] [Y] [h]:[m01] [Pn] [z]"],
    ["mmxxiv-iii-v", "[Yi]-[Mi]-[Di]"],
    ["2024-065", "[Y]-[d]"],
    ["2024-03-05 +0530", "[Y]-[M]-[D] [Z0000]"],
    ["2024-03-05 +05x30", "[Y]-[M]-[D] [Z01.01]"],
    ["2024-03-05 +05\r30", "[Y]-[M]-[D] [Z01.01]"],
    ["2024-03-05 +05\n30", "[Y]-[M]-[D] [Z01.01]"],
    ["2024-03-05 +05(30", "[Y]-[M]-[D] [Z01(01]"],
    ...["[", "{", "?", "|", "\\", "^", "*", ")", "$"].map((sep): [string, string] => [
      `2024-03-05 +05${sep}30`,
      `[Y]-[M]-[D] [Z01${sep}01]`,
    ]),
    ["2024-03-05 +0530", "[Y]-[M]-[D] [Z01|01]"],
    ["12345", "[f][f][Y]"],
    ["123456789", "[Y,2][M,2][D]"],
    // Case folding as JavaScript's: the Kelvin sign and the long s are not k and s, ß is not ẞ; é is É.
    ["2024k03", "[Y]K[M]"],
    ["2024\u212A03", "[Y]K[M]"],
    ["2024s03", "[Y]\u017F[M]"],
    ["2024\u1E9E03", "[Y]ß[M]"],
    ["2024é03", "[Y]É[M]"],
    ["2024😀03", "[Y]😀[M]"],
    ["2024[03]", "[Y][[[M]]]"],
    ["2024-03", "[Y]-[M"],
    ["2024-03", "[Y]-[Q]"],
    ["2024-03", "[Y]-[Dn]"],
    ["2024-03", "[Y]-[H]"],
    ["11", "[Y][f]"],
    ["1a", "[f][f][f][f]"],
    ["", ""],
    ["x", ""],
    ["", "[Y]"],
  ];
  for (const [s, p] of cases) await assertSameOutcome("$toMillis(s, p)", { s, p });
  // Timestamps formatted by a random picture (so they match it), then perhaps upper-cased or cut.
  const random = new Random(20261214);
  const markers = [
    "[Y]",
    "[Y0001]",
    "[M01]",
    "[MNn]",
    "[M]",
    "[D]",
    "[D1o]",
    "[Dw]",
    "[d]",
    "[FNn]",
    "[H01]",
    "[h]",
    "[m01]",
    "[s01]",
    "[f001]",
    "[f]",
    "[Pn]",
    "[Z01:01]",
    "[Z]",
    "[z]",
    "[Yw]",
    "[Mi]",
  ];
  const literals = ["", "", "-", " ", ":", "T", "1", "a", "é", ", "];
  for (let round = 0; round < 400; round++) {
    // A year first: a picture without one takes the missing parts from the evaluation's clock.
    let p = random.pick(["[Y]", "[Y0001]", "[Yw]"]) + random.pick(literals);
    for (let n = random.int(5); n > 0; n--) p += random.pick(markers) + random.pick(literals);
    const ms = random.int(4e12) - 1e12;
    let s = await jsonata("$fromMillis(ms, p, '+0130')").evaluate({ ms, p }) as string;
    if (random.chance(0.3)) s = s.toUpperCase();
    if (random.chance(0.3)) s = s.slice(0, random.int(s.length + 1));
    const words = p.match(/w/g)?.length ?? 0;
    if (s.length <= 100 && words <= 2) await assertSameOutcome("$toMillis(s, p)", { s, p });
    else {await assert.rejects(
        () => compiler.compile("$toMillis(s, p)").evaluate({ s, p }),
        /U1004: /,
        `${p} over ${s}`,
      );}
  }
});

Deno.test("$toMillis with a picture runs its regex on RE2 (linear), and its timestamp and the picture's pattern are capped", async () => {
  for (
    const [s, p, expected] of [
      // jsonata-js's backtracking regex took seconds (136 s for `[f][f][f][f]` and 800 digits) on each of these.
      ["1".repeat(45) + "a", "[f]".repeat(7), undefined],
      ["1".repeat(99) + "a", "[f][f][f][f]", undefined],
      ["1".repeat(99) + "a", "[f]".repeat(100), undefined],
      ["1".repeat(99) + "a", "[f]1".repeat(60), undefined],
      ["a".repeat(99) + "1", "[MNn]".repeat(40), undefined],
      ["+1".repeat(49) + "a", "[Z][f]".repeat(30), undefined],
      ["one ".repeat(24) + "onx", "[Yw] [Yw]", undefined],
      [
        "1".repeat(101),
        "[f][f][f][f]",
        /^U1004: a timestamp of 101 characters read by a picture is over the limit of 100/,
      ],
      ["one", "[Yw]".repeat(3), /^U1004: a picture's pattern of \d+ is over the limit of 1500/],
      ["1", "[Y,999][M,999][D]", /^U1004: a picture's pattern of \d+ is over the limit of 1500/],
    ] as const
  ) {
    // jsonata-js's backtracking regex over `s` fails at once.
    await withoutBacktracking(s, async () => {
      const outcome = await compiler.compile("$toMillis(s, p)").evaluate({ s, p }).catch((err: Error) => err);
      if (expected instanceof RegExp) {
        assert.ok(outcome instanceof Error, `${p} gave ${outcome}`);
        assert.match(outcome.message, expected, p);
      } else assert.equal(outcome, expected, p);
    });
  }
});

Deno.test("$toMillis reads a time without a UTC offset as UTC, in every time zone", async () => {
  const texts = [
    "2024-01-01T10:00:00",
    "2024-01-01T10:00:00.5",
    "2024T10:00:00",
    "2024.5",
    "2024-01-01T10:00:00." + "1".repeat(1200),
    "2024-01-01T10:00:00Z",
    "2024-01-01T10:00:00+05:30",
    "2024-01-01T10:00:00.5-0800",
    "2024-01-01",
    "2024-01",
    "2024",
    "2024-01-01T29:00:00",
    "x2024-01-01T10:00:00",
  ];
  // Deno reads TZ at start: the guarded and jsonata-js's answers in a process per zone.
  const script = `import jsonata from "jsonata";
    import { ExpressionCompiler } from ${JSON.stringify(import.meta.resolve("./compiler.ts"))};
    const compiler = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 5000, maxDepth: 500 });
    // JSON has no NaN: where jsonata-js answers one, the engine fails (U1002, engine/json/value.ts).
    const answer = (run) => run().then((value) => Number.isNaN(value) ? "U1002" : value ?? null, (err) => err.code);
    const answers = [];
    for (const s of ${JSON.stringify(texts)}) {
      answers.push([await answer(() => compiler.compile("$toMillis(s)").evaluate({ s })),
        await answer(() => jsonata("$toMillis(s)").evaluate({ s }))]);
    }
    console.log(JSON.stringify(answers));`;
  const [utc, kolkata] = await jsonInTimeZones(script, ["UTC", "Asia/Kolkata"]) as [unknown, unknown][][];
  texts.forEach((text, i) => {
    assert.deepEqual(utc[i][0], utc[i][1], `jsonata-js's answer on a UTC host: ${text.slice(0, 40)}`);
    assert.deepEqual(kolkata[i][0], utc[i][0], `the same answer in Asia/Kolkata: ${text.slice(0, 40)}`);
  });
  assert.equal(kolkata[0][0], Date.UTC(2024, 0, 1, 10));
  assert.notEqual(kolkata[0][1], kolkata[0][0], "jsonata-js read it in the host's zone");
  // With an offset, and a date alone, jsonata-js's answers stand in any zone.
  for (const i of [5, 6, 7, 8, 9, 10, 11, 12]) assert.deepEqual(kolkata[i][0], kolkata[i][1], texts[i]);
});
