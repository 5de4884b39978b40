import assert from "node:assert/strict";
import jsonata from "jsonata";
import { ExpressionCompiler, ExpressionError, toExpressionError } from "./compiler.ts";
import { EvaluationGuard, YIELD_EVERY_MS } from "./guard.ts";
import { turnsDuring, withSteppingClock } from "./test_meters.ts";

const compiler = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 300, maxDepth: 500 });

Deno.test("a long evaluation yields to the event loop and ends at its deadline", async () => {
  // A clock moving on 1 ms at each reading: the 300 ms budget is spent at the 300th reading, whatever the machine.
  const source = "($f := function($n){ $n > 0 ? $f($n - 1) : 0 }; $f(100))";
  let outcome: unknown;
  const { turns, readings } = await turnsDuring(async () => {
    outcome = await compiler.compile(source).evaluate({}).catch((err) => err);
  }, 1);
  assert.match(String(outcome), /D1012: Evaluation timeout after 300 milliseconds/);
  // Ended at the first check past its deadline, not at the recursion's end (some 1,000 readings).
  assert.ok(readings <= 310, `read the clock ${readings} times`);
  // One yield per 10 ms of evaluation: other work ran some 30 times.
  assert.ok(turns >= 10, `timers ran during the evaluation (${turns})`);
});

Deno.test("an explicit deadline is shared: an evaluation started after it fails at once", async () => {
  await assert.rejects(
    () => compiler.compile("[1..100].($ * 2)").evaluate({}, {}, { deadline: Date.now() - 1 }),
    /D1012/,
  );
});

const patient = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 20000, maxDepth: 500 });

Deno.test("memory bombs fail with the budget named, before the value is built", async () => {
  for (
    const source of [
      "$pad('', 400000000, 'x')",
      "($f := function($s, $n){ $n = 0 ? $s : $f($s & $s, $n - 1) }; $f('x', 40))",
      "$join([1..1000].$pad('', 1000000, 'y'), '')",
      "$replace($pad('', 100000, 'a'), 'a', $pad('', 100000, 'b'))",
    ]
  ) {
    await assert.rejects(() => patient.compile(source).evaluate({}), /expression-memory-bytes/, source);
  }
});

Deno.test("the range operator and paths are bounded by svc.limits.expression-max-items", async () => {
  const small = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 1000, maxDepth: 100, maxItems: 1000 });
  await assert.rejects(
    () => small.compile("$string([1..10000000])").evaluate({}),
    /D2015: The maximum sequence length of 1000 \(svc\.limits\.expression-max-items\) was exceeded/,
  );
  // The range operator and $append report the size they asked for: the message names the limit instead.
  for (
    const source of ["$count([1..3000])", "$count($append([1..600], [1..600]))"]
  ) {
    await assert.rejects(
      () => small.compile(source).evaluate({}),
      /maximum sequence length of 1000 \(/,
      source,
    );
  }
  assert.equal(await small.compile("$count([1..1000])").evaluate({}), 1000);
});

Deno.test("a result nested deeper than svc.limits.max-depth fails", async () => {
  const small = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 5000, maxDepth: 100, maxResultDepth: 10 });
  await assert.rejects(
    () => small.compile("$reduce([1..50], function($a, $v){ {'a': $a} }, 0)").evaluate({}),
    /nested deeper than 10 levels/,
  );
});

/** The code an evaluation fails with (undefined when it succeeds). */
async function codeOf(evaluation: Promise<unknown>): Promise<string | undefined> {
  try {
    await evaluation;
    return undefined;
  } catch (err) {
    return toExpressionError(err).code;
  }
}

Deno.test("concurrent branches fail with jsonata-js's error however late the clock runs (no yield reorders them)", async () => {
  // jsonata-js evaluates constructor items concurrently: the first branch to fail is the error. A yield taken by
  // one branch let the other fail first (the differential test's T0412 for T0410 under load).
  const unhurried = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 1e12, maxDepth: 500 });
  const cases: [string, Record<string, unknown>][] = [
    ["[$max($parent.price.n[true].b), $string(3.5, true) * $round(true)]", {
      parent: { price: { n: { b: "x" } } },
    }],
    ['{"k": $ceil($string($)), "b": $ceil(true <= $)}', {}],
    ['[[true / null, true, $lookup(a.b, "a")], $round(null) / 3.5, "abc"]', {}],
  ];
  for (const [source, bindings] of cases) {
    const expected = await codeOf(jsonata(source).evaluate({}, bindings));
    assert.ok(expected, `${source} fails in jsonata-js`);
    assert.equal(await codeOf(unhurried.compile(source).evaluate({}, bindings)), expected, source);
    assert.equal(
      (await withSteppingClock(
        YIELD_EVERY_MS,
        () => codeOf(unhurried.compile(source).evaluate({}, bindings)),
      ))
        .value,
      expected,
      `${source}, a yield due at every step`,
    );
  }
});

Deno.test("concurrent branches still yield to the event loop, after a fixed amount of work", async () => {
  // Some 120,000 steps in two branches in flight together: about 30 yields, on a clock that stands still.
  const source = "($f := function($n){ $n > 0 ? $f($n - 1) : 0 }; [$f(20000), $f(20000)])";
  let result: unknown;
  const { turns } = await turnsDuring(async () => {
    result = await patient.compile(source).evaluate({});
  }, 0);
  assert.deepEqual(result, [0, 0]);
  assert.ok(turns >= 10, `timers ran during the evaluation (${turns})`);
});

/** Evaluations by jsonata-js behind the guard only (no compiled closure answers). */
const interpreted = new ExpressionCompiler({
  cacheSize: 100,
  timeoutMs: 20000,
  maxDepth: 500,
  compiled: false,
});

/** `count` items `{sku, qty}`, and what grouping them answers: qty by sku, each mapped by `value`. */
function itemsAndGroups(count: number, value = (qty: number) => qty) {
  const items = Array.from({ length: count }, (_, i) => ({ sku: `s${i}`, qty: i }));
  return { items, groups: Object.fromEntries(items.map(({ sku, qty }) => [sku, value(qty)])) };
}

const RECURSIVE = "$f := function($n){ $n > 0 ? 1 + $f($n - 1) : 0 }";

Deno.test("the depth limit holds per branch: a grouping of 1,000 items evaluates (jsonata-js sums its branches)", async () => {
  const { items, groups } = itemsAndGroups(1500);
  assert.deepEqual(await interpreted.compile("items{sku: qty}").evaluate({ items }), groups);
  assert.deepEqual(
    await compiler.compile("items{sku: qty}").evaluate({ items }),
    groups,
    "as a compiled closure answers",
  );
  const doubled = itemsAndGroups(1500, (qty) => qty * 2).groups;
  for (
    const source of [
      "items{sku: $map(qty, function($q){ $q * 2 })}",
      "items{sku: qty ~> function($q){ $q * 2 }}",
    ]
  ) {
    assert.deepEqual(await patient.compile(source).evaluate({ items }), doubled, source);
  }
  // Each branch recursing some 15 levels (75 steps), all at once.
  const recursive = `(${RECURSIVE}; items{sku: $f(qty % 16)})`;
  assert.deepEqual(
    await patient.compile(recursive).evaluate({ items }),
    itemsAndGroups(1500, (q) => q % 16).groups,
  );
});

Deno.test("the depth limit holds per branch: an array constructor of many deep branches evaluates", async () => {
  // $f(150) alone goes some 450 steps deep of the 500; twenty of them at once go 9,000.
  const source = `(${RECURSIVE}; [${Array(20).fill("$f(150)").join(", ")}])`;
  assert.deepEqual(await patient.compile(source).evaluate({}), Array(20).fill(150));
});

Deno.test("deep recursion still fails D1011 as jsonata-js reports it, alone or beside other branches", async () => {
  const { items } = itemsAndGroups(3);
  for (
    const source of [
      `(${RECURSIVE}; $f(1000))`,
      `(${RECURSIVE}; [$f(1000), 1, $f(3)])`,
      `(${RECURSIVE}; items{sku: $f(1000)})`,
      `(${RECURSIVE}; items{sku: $f(qty * 1000)})`,
    ]
  ) {
    // jsonata-js's own check (`stack`) fails these too, with the same code, message and position.
    const expected = await jsonata(source, { stack: 500 } as never).evaluate({ items }).then(
      () => assert.fail(`${source} fails in jsonata-js`),
      (err) => toExpressionError(err),
    );
    assert.equal(expected.code, "D1011");
    await assert.rejects(() => patient.compile(source).evaluate({ items }), (err: unknown) => {
      assert.ok(err instanceof ExpressionError);
      assert.deepEqual([err.code, err.message, err.position], [
        expected.code,
        expected.message,
        expected.position,
      ]);
      return true;
    }, source);
  }
  // One level less than jsonata-js's limit still evaluates: the limit is where it was.
  const fails = (n: number) =>
    jsonata(`(${RECURSIVE}; $f(${n}))`, { stack: 500 } as never).evaluate({}).then(() => false, () => true);
  let deepest = 1;
  while (!await fails(deepest + 1)) deepest++;
  assert.equal(await patient.compile(`(${RECURSIVE}; $f(${deepest}))`).evaluate({}), deepest);
  await assert.rejects(() => patient.compile(`(${RECURSIVE}; $f(${deepest + 1}))`).evaluate({}), /D1011/);
});

Deno.test("the guard's D1011 is jsonata-js's failure object (code and value)", async () => {
  const guard = new EvaluationGuard({ deadline: Infinity, memoryBytes: 1e9, timeoutMs: 1, maxDepth: 7 });
  assert.equal(guard.enterStep({ type: "name" }, undefined, 7), undefined);
  let thrown: { code?: string; value?: number } = {};
  try {
    guard.enterStep({ type: "name" }, undefined, 8);
  } catch (err) {
    thrown = err as typeof thrown;
  }
  const raw = await jsonata(`(${RECURSIVE}; $f(100))`, { stack: 7 } as never).evaluate({}).catch((err) =>
    err
  );
  assert.deepEqual([thrown.code, thrown.value], [raw.code, raw.value]);
});

Deno.test("a chain at the very depth limit is not failed by branches that just ended beside it", async () => {
  // jsonata-js takes an ended branch's step off its depth a tick after the exit hook: until then it still counts.
  const source = (siblings: string) =>
    "($spin := function($n){ $n > 0 ? $spin($n - 1) : 0 };" +
    ` $g := function($n){ $n > 0 ? 1 + $g($n - 1) : $spin(200) }; [$g(30), ${siblings}])`;
  // The least limit that lets $g(30) reach its bottom: no step to spare there.
  let limit = 50;
  const at = (maxDepth: number) => new ExpressionCompiler({ cacheSize: 10, timeoutMs: 20000, maxDepth });
  while (limit < 1000 && await at(limit).compile(source("1")).evaluate({}).then(() => false, () => true)) {
    limit++;
  }
  const tight = at(limit);
  for (let m = 0; m <= 60; m++) {
    const siblings = Array(10).fill(`$spin(${m})`).join(", ");
    assert.deepEqual(
      await tight.compile(source(siblings)).evaluate({}),
      [30, ...Array(10).fill(0)],
      `$spin(${m})`,
    );
  }
});

Deno.test("many deep branches at once count the steps they hold against svc.limits.expression-memory-bytes", async () => {
  const small = new ExpressionCompiler({
    cacheSize: 10,
    timeoutMs: 20000,
    maxDepth: 500,
    memoryBytes: 4_000_000,
  });
  const { items } = itemsAndGroups(100);
  await assert.rejects(
    () => small.compile(`(${RECURSIVE}; items{sku: $f(1000)})`).evaluate({ items }),
    /U1002: Evaluation produced more than 4000000 bytes \(svc\.limits\.expression-memory-bytes\)/,
  );
  // One chain's depth is never charged: the same recursion alone fails on depth.
  await assert.rejects(() => small.compile(`(${RECURSIVE}; $f(1000))`).evaluate({}), /D1011/);
});

Deno.test("the deadline still ends a grouping whose 1,000 branches run on", async () => {
  const { items } = itemsAndGroups(1000);
  await assert.rejects(
    () =>
      compiler.compile("($spin := function($n){ $n > 0 ? $spin($n - 1) : 0 }; items{sku: $spin(100000000)})")
        .evaluate({ items }),
    /D1012: Evaluation timeout after 300 milliseconds/,
  );
});
