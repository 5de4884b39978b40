import assert from "node:assert/strict";
import { assertLikeJsonata } from "../_test_utils.ts";
import { ExpressionCompiler } from "./compiler.ts";

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
    /picture width/,
  );
});

Deno.test("a walk over 100,000 regex matches lets other work run meanwhile", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const count = await compiler.compile("$count($match($pad('', 100000, 'a'), /a/))").evaluate({});
  clearInterval(timer);
  assert.equal(count, 100000);
  assert.ok(ticks > 0, "timers ran during the walk");
});
