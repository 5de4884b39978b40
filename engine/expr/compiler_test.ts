import assert from "node:assert/strict";
import { ExpressionCompiler, ExpressionError, toExpressionError } from "./compiler.ts";

const options = { cacheSize: 3, timeoutMs: 1000, maxDepth: 100 };

Deno.test("compile returns the cached expression for the same source", () => {
  const compiler = new ExpressionCompiler(options);
  const first = compiler.compile("a + 1");
  assert.equal(compiler.compile("a + 1"), first);
  assert.equal(compiler.cachedCount, 1);
});

Deno.test("the cache is bounded by svc.limits.expression-cache-size (LRU)", () => {
  const compiler = new ExpressionCompiler(options);
  const first = compiler.compile("1");
  compiler.compile("2");
  compiler.compile("3");
  compiler.compile("4");
  assert.equal(compiler.cachedCount, 3);
  assert.notEqual(compiler.compile("1"), first, "the oldest entry was evicted and recompiled");
});

Deno.test("a syntax error is an ExpressionError with JSONata's code and position", () => {
  const compiler = new ExpressionCompiler(options);
  assert.throws(() => compiler.compile("a + "), (err: unknown) => {
    assert.ok(err instanceof ExpressionError);
    assert.equal(typeof err.code, "string");
    assert.equal(typeof err.position, "number");
    assert.match(err.message, /\(position \d+\)/);
    return true;
  });
  assert.equal(compiler.cachedCount, 0);
});

Deno.test("evaluate binds variables and returns plain JSON", async () => {
  const compiler = new ExpressionCompiler(options);
  const expr = compiler.compile("{'total': $sum(items.(qty * $const.price)), 'none': missing}");
  const value = await expr.evaluate({ items: [{ qty: 2 }, { qty: 3 }] }, { const: { price: 10 } });
  assert.deepEqual(value, { total: 50 });
  assert.equal(await compiler.compile("missing").evaluate({}), undefined);
  assert.deepEqual(await compiler.compile("items.qty").evaluate({ items: [{ qty: 1 }, { qty: 2 }] }), [1, 2]);
  assert.equal(await compiler.compile("1/0").evaluate({}), null, "non-finite numbers become null");
});

Deno.test("a runaway expression fails with a timeout instead of hanging", async () => {
  const compiler = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 50, maxDepth: 100000 });
  const loop = compiler.compile("($f := function($n){ $n > 0 ? $f($n - 1) : 0 }; $f(1000000))");
  await assert.rejects(() => loop.evaluate({}), (err: unknown) => {
    assert.ok(err instanceof ExpressionError);
    assert.match(err.message, /timeout|Stack overflow|too deep|exceeded/i);
    return true;
  });
});

Deno.test("deep recursion fails with the depth guard", async () => {
  const compiler = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 100000, maxDepth: 50 });
  const deep = compiler.compile("($f := function($n){ $n > 0 ? 1 + $f($n - 1) : 0 }; $f(1000))");
  await assert.rejects(() => deep.evaluate({}), (err: unknown) => {
    assert.ok(err instanceof ExpressionError);
    assert.match(err.message, /D1011: Stack overflow/);
    return true;
  });
  assert.equal(await deep.evaluate({}).catch(() => "failed again"), "failed again");
  assert.equal(
    await compiler.compile("($f := function($n){ $n > 0 ? 1 + $f($n - 1) : 0 }; $f(5))").evaluate({}),
    5,
  );
});

Deno.test("toExpressionError keeps an ExpressionError and wraps JSONata failures", () => {
  const original = new ExpressionError("x");
  assert.equal(toExpressionError(original), original);
  const wrapped = toExpressionError({ code: "T2001", position: 3, message: "bad" });
  assert.equal(wrapped.message, "T2001: bad (position 3)");
  assert.equal(toExpressionError("plain").message, "plain");
});
