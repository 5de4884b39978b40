import assert from "node:assert/strict";
import { ExpressionCompiler } from "./compiler.ts";

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
  assert.ok(elapsed < 600, `ended within twice the budget (${elapsed} ms)`);
  assert.ok(ticks >= 10, `timers ran during the evaluation (${ticks})`);
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
  await assert.rejects(() => small.compile("$string([1..10000000])").evaluate({}), /D2015/);
  assert.equal(await small.compile("$count([1..1000])").evaluate({}), 1000);
});

Deno.test("a result nested deeper than svc.limits.max-depth fails", async () => {
  const small = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 5000, maxDepth: 100, maxResultDepth: 10 });
  await assert.rejects(
    () => small.compile("$reduce([1..50], function($a, $v){ {'a': $a} }, 0)").evaluate({}),
    /nested deeper than 10 levels/,
  );
});
