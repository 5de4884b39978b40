import assert from "node:assert/strict";
import { assertLikeJsonata } from "../_test_utils.ts";
import jsonata from "jsonata";
import { ExpressionCompiler } from "./compiler.ts";
import { Random } from "./compiled/test_support.ts";

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

Deno.test("$distinct is linear", async () => {
  const started = Date.now();
  assert.equal(await compiler.compile("$count($distinct([1..150000]))").evaluate({}), 150000);
  assert.ok(Date.now() - started < 2000);
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
    ]
  ) {
    const started = Date.now();
    await assert.rejects(
      () => compiler.compile(source).evaluate({}),
      /U1004: a picture of \d+ characters is over the limit of 1000/,
      source,
    );
    assert.ok(Date.now() - started < 1000, `${source} took ${Date.now() - started} ms`);
  }
  // Up to the cap, and digit patterns (not widths) of any value, as jsonata-js formats them.
  await assertLikeJsonata(compiler, [
    "$formatNumber(1e300, '#' & $pad('', 999, '0'))",
    "$formatInteger(5, $pad('', 1000, '0'))",
    "$formatInteger(5, '1001')",
    "$formatNumber(5, '9999')",
    "$fromMillis(0, '[Y1001]-[M01] [Y,2-4]')",
    "$toMillis('2020-03', '[Y0001]-[M01]')",
  ], {});
});

Deno.test("a walk over 100,000 regex matches lets other work run meanwhile", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const count = await compiler.compile("$count($match($pad('', 100000, 'a'), /a/))").evaluate({});
  clearInterval(timer);
  assert.equal(count, 100000);
  assert.ok(ticks > 0, "timers ran during the walk");
});

/** What an evaluation gives: its value (-0 kept apart from 0) or its error's code and message. */
async function outcomeOf(evaluation: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: JSON.stringify(await evaluation(), (_k, v) => Object.is(v, -0) ? "-0" : v) };
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string };
    // The engine's message is jsonata-js's, prefixed with the code and followed by the position.
    return { code, message: message?.replace(/^\w+: /, "").replace(/ \(position \d+\)$/, "") };
  }
}

/** Asserts the engine's outcome of `source` over `input` is jsonata-js's. */
async function assertSameOutcome(source: string, input: unknown): Promise<void> {
  assert.deepEqual(
    await outcomeOf(() => compiler.compile(source).evaluate(input)),
    await outcomeOf(() => jsonata(source).evaluate(input)),
    `${source} over ${JSON.stringify(input)}`,
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

Deno.test("$sort of 200,000 numbers is fast, lets other work run, and is cut at the deadline", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const started = Date.now();
  const sorted = await compiler.compile("$sort($reverse([1..200000]))").evaluate({}) as number[];
  clearInterval(timer);
  assert.equal(sorted.length, 200000);
  assert.equal(sorted[0], 1);
  assert.equal(sorted[199999], 200000);
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
  assert.ok(ticks > 0, "timers ran during the sort");
  const hurried = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 5, maxDepth: 500 });
  await assert.rejects(() => hurried.compile("$count($sort([1..200000].$string($)))").evaluate({}), /D1012/);
});

Deno.test("$length, $substring, $pad and $trim of tens of millions of characters let other work run", async () => {
  for (
    const [source, expected] of [
      ["$length($pad('', 40000000, 'é'))", 40000000],
      ["$length($substring($pad('', 20000000, '😀'), 1, 3))", 3],
      ["$length($pad('', 20000000, '-😀'))", 20000000],
      ["$length($trim($pad('', 20000000, ' a')))", 19999999],
      ["$substring($pad('', 20000000, '😀'), -3, 2)", "😀😀"],
    ] as const
  ) {
    // jsonata-js spread these strings into arrays of code points: 6 to 55 s each, in one step.
    let last = Date.now();
    let longest = 0;
    const timer = setInterval(() => {
      longest = Math.max(longest, Date.now() - last);
      last = Date.now();
    }, 1);
    const started = Date.now();
    try {
      assert.equal(await compiler.compile(source).evaluate({}), expected, source);
    } finally {
      clearInterval(timer);
    }
    assert.ok(Date.now() - started < 5000, `${source} took ${Date.now() - started} ms`);
    assert.ok(longest < 400, `${source} held the event loop for ${longest} ms`);
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
    for (const s of [long, long + "\uD800", "\uDC00" + long, long.slice(1)]) {
      await assertSameOutcome(source, { s });
    }
  }
  let last = Date.now();
  let longest = 0;
  const timer = setInterval(() => {
    longest = Math.max(longest, Date.now() - last);
    last = Date.now();
  }, 1);
  try {
    const source = "$length($encodeUrlComponent($pad('', 20000000, 'é')))";
    assert.equal(await compiler.compile(source).evaluate({}), 120000000);
  } catch (err) {
    assert.match(String(err), /expression-memory-bytes/); // a budget may refuse it; it must not stall
  } finally {
    clearInterval(timer);
  }
  assert.ok(longest < 400, `held the event loop for ${longest} ms`);
});

Deno.test("$string charges a long string's JSON before building it", async () => {
  // 40 million control characters serialise to 240 million: JSONata built them (21 s) before anything could refuse.
  const started = Date.now();
  await assert.rejects(
    () => compiler.compile("$string({'a': $pad('', 40000000, '\\u0001')})").evaluate({}),
    /expression-memory-bytes/,
  );
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
  assert.equal(
    await compiler.compile("$length($string({'a': $pad('', 2000000, 'é')}))").evaluate({}),
    2000008,
  );
});
