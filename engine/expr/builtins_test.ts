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
