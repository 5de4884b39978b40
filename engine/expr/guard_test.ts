import assert from "node:assert/strict";
import jsonata from "jsonata";
import { ExpressionCompiler, toExpressionError } from "./compiler.ts";
import { YIELD_EVERY_MS } from "./guard.ts";

const compiler = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 300, maxDepth: 500 });

Deno.test("a long evaluation yields to the event loop and ends at its deadline", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const started = Date.now();
  await assert.rejects(
    () => compiler.compile("($f := function($n){ $n > 0 ? $f($n - 1) : 0 }; $f(100000000))").evaluate({}),
    /D1012: Evaluation timeout after 300 milliseconds/,
  );
  clearInterval(timer);
  const elapsed = Date.now() - started;
  // Bounds a loaded machine keeps: without a deadline it would run on, without yields no timer would run.
  assert.ok(elapsed < 3000, `ended near its budget, not at the recursion's end (${elapsed} ms)`);
  assert.ok(ticks >= 2, `timers ran during the evaluation (${ticks})`);
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

/** Runs `body` with a clock that moves on 10 ms at every reading: every step finds a yield due, as under load. */
async function withLoadedClock<T>(body: () => Promise<T>): Promise<T> {
  const now = Date.now;
  let skew = 0;
  Date.now = () => now() + (skew += YIELD_EVERY_MS);
  try {
    return await body();
  } finally {
    Date.now = now;
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
      await withLoadedClock(() => codeOf(unhurried.compile(source).evaluate({}, bindings))),
      expected,
      `${source}, a yield due at every step`,
    );
  }
});

Deno.test("concurrent branches still yield to the event loop, after a fixed amount of work", async () => {
  let ticks = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    ticks++;
    timer = setTimeout(tick, 0);
  };
  timer = setTimeout(tick, 0);
  try {
    // Some 120,000 steps in two branches in flight together: about 30 yields, whatever the clock says.
    const source = "($f := function($n){ $n > 0 ? $f($n - 1) : 0 }; [$f(20000), $f(20000)])";
    assert.deepEqual(await patient.compile(source).evaluate({}), [0, 0]);
  } finally {
    clearTimeout(timer);
  }
  assert.ok(ticks >= 10, `timers ran during the evaluation (${ticks})`);
});
