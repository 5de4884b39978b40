import assert from "node:assert/strict";
import { ExpressionCompiler, ExpressionError, toExpressionError } from "./compiler.ts";
import { Random, randomExpression, randomObject } from "./compiled/test_support.ts";

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

Deno.test("JSONata function values (lambdas, built-ins, partials, regexes) are dropped like functions", async () => {
  const compiler = new ExpressionCompiler({ ...options, maxResultDepth: 128 });
  const run = (source: string) => compiler.compile(source).evaluate({ a: 1 }, {});
  for (const fn of ["function($x){$x}", "$sum", "$substring(?, 1)", "/ab+/"]) {
    assert.equal(await run(fn), undefined, fn);
    assert.deepEqual(await run(`{'a': a, 'f': ${fn}}`), { a: 1 }, fn);
    assert.deepEqual(await run(`[a, ${fn}]`), [1], fn);
  }
});

Deno.test("evaluate binds variables and returns plain JSON", async () => {
  const compiler = new ExpressionCompiler(options);
  const expr = compiler.compile("{'total': $sum(items.(qty * $const.price)), 'none': missing}");
  const value = await expr.evaluate({ items: [{ qty: 2 }, { qty: 3 }] }, { const: { price: 10 } });
  assert.deepEqual(value, { total: 50 });
  assert.equal(await compiler.compile("missing").evaluate({}), undefined);
  assert.deepEqual(await compiler.compile("items.qty").evaluate({ items: [{ qty: 1 }, { qty: 2 }] }), [1, 2]);
  // JSON has no NaN or Infinity: a result holding one fails (it was null, stored in silence).
  await assert.rejects(() => compiler.compile("1/0").evaluate({}), (err: unknown) => {
    assert.ok(err instanceof ExpressionError);
    assert.equal(err.message, "the result holds Infinity, not a JSON number");
    return true;
  });
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
    assert.match(
      err.message,
      /D1011: Stack overflow.*\(deeper than 50 steps: svc\.limits\.expression-max-depth\)/,
    );
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

/** What an evaluation gave: whether it answered at once, and its value or error. */
async function outcomeOf(run: () => unknown): Promise<{ now: boolean; value?: unknown; error?: string }> {
  let answer: unknown;
  try {
    answer = run();
  } catch (err) {
    return { now: true, error: (err as Error).message };
  }
  if (!(answer instanceof Promise)) return { now: true, value: answer };
  try {
    return { now: false, value: await answer };
  } catch (err) {
    return { now: false, error: (err as Error).message };
  }
}

Deno.test("evaluateNow answers what evaluate answers, synchronously when a closure answers", async () => {
  const random = new Random(20261127);
  const compiler = new ExpressionCompiler({ cacheSize: 10_000, timeoutMs: 5000, maxDepth: 500 });
  let cases = 0;
  let synchronous = 0;
  for (let e = 0; e < 600; e++) {
    const expression = compiler.compile(randomExpression(random));
    for (let d = 0; d < 2; d++) {
      const doc = randomObject(random, 3);
      const bindings = { const: randomObject(random, 2), parent: randomObject(random, 2) };
      const now = await outcomeOf(() =>
        expression.evaluateNow(structuredClone(doc), structuredClone(bindings))
      );
      const later = await outcomeOf(() =>
        expression.evaluate(structuredClone(doc), structuredClone(bindings))
      );
      cases++;
      if (now.now) synchronous++;
      assert.deepEqual({ value: now.value, error: now.error }, { value: later.value, error: later.error });
    }
  }
  assert.ok(synchronous > cases / 2, `only ${synchronous} of ${cases} answered synchronously`);
  assert.ok(synchronous < cases, "some evaluations were the interpreter's");
});

Deno.test("evaluateNow: a compiled answer is synchronous, the interpreter's a promise with the same errors", async () => {
  const compiler = new ExpressionCompiler({ ...options, maxResultDepth: 2 });
  assert.equal(compiler.compile("a * 2 + 1").evaluateNow({ a: 3 }), 7);
  // Outside the compiled subset (a lambda): the interpreter, as a promise.
  const lambda = compiler.compile("$map([1, 2], function($v) { $v * a })").evaluateNow({ a: 3 });
  assert.ok(lambda instanceof Promise);
  assert.deepEqual(await lambda, [3, 6]);
  // A closure hands a type error back: the interpreter's error, as a rejection.
  const typeError = await outcomeOf(() => compiler.compile("a + 1").evaluateNow({ a: "x" }));
  assert.equal(typeError.now, false);
  assert.match(typeError.error!, /^T2001: /);
  // A compiled answer too deep for the result limit throws at once, the error evaluate rejects with.
  const deep = "{'a': {'b': {'c': 1}}}";
  const thrown = await outcomeOf(() => compiler.compile(deep).evaluateNow({}));
  assert.equal(thrown.now, true);
  await assert.rejects(() => compiler.compile(deep).evaluate({}), { message: thrown.error });
  // Past its deadline an evaluation is the interpreter's to fail.
  const late = await outcomeOf(() =>
    compiler.compile("a").evaluateNow({ a: 1 }, {}, { deadline: Date.now() - 1 })
  );
  assert.equal(late.now, false);
  assert.match(late.error!, /timeout/i);
});

Deno.test("an error quoting a 100,000-character operand, key or token has it cut to 200 characters, compiled or interpreted alike", async () => {
  const s = "x".repeat(100_000);
  const cut = `"${"x".repeat(200)}… (100000 characters)"`;
  const doc = { s, o: { a: s }, k: { [s]: 1 } };
  const cases: [string, string][] = [
    ["-s", `D1002: Cannot negate a non-numeric value: ${cut} (position 1)`],
    [
      "s < 1",
      `T2009: The values ${cut} and 1 either side of operator "<" must be of the same data type (position 3)`,
    ],
    ["{o: 1}", `T1003: Key in object structure must evaluate to a string; got: {"a":${cut}} (position 1)`],
    ["{s: 1, $string(s): 2}", `D1009: Multiple key definitions evaluate to same key: ${cut} (position 1)`],
    [
      `[{"a": s}, {"a": 1}]^(a)`,
      `T2007: Type mismatch when comparing values ${cut} and 1 in order-by clause (position 21)`,
    ],
    [
      "$keys(k)[0] > 1",
      `T2009: The values ${cut} and 1 either side of operator ">" must be of the same data type (position 13)`,
    ],
    // The inner message quoted in turn: the run cut is the value and the backslash escaping its closing quote.
    [
      `$eval("a " & s)`,
      `D3120: Syntax error in expression passed to function eval: "Syntax error: \\"${
        "x".repeat(200)
      }… (100001 characters)"" (position 6)`,
    ],
  ];
  for (const compiled of [true, false]) {
    const compiler = new ExpressionCompiler({ ...options, timeoutMs: 5000, compiled });
    for (const [source, message] of cases) {
      const err = await compiler.compile(source).evaluate(structuredClone(doc)).catch((e) => e);
      assert.ok(err instanceof ExpressionError, source);
      assert.equal(err.message, message, `${source} (compiled: ${compiled})`);
      assert.equal(err.code, message.slice(0, 5));
    }
  }
  // At compile: a token of the expression, a regular expression literal RE2 refuses.
  const compiler = new ExpressionCompiler(options);
  assert.throws(() => compiler.compile(`"a" ${"x".repeat(100_000)}`), {
    message: `S0201: Syntax error: ${cut} (position 100004)`,
  });
  assert.throws(() => compiler.compile(`$match("a", /(?=a)${"x".repeat(100_000)}/)`), (err: Error) => {
    assert.match(err.message, /^regular expression \/\(\?=a\)x{194}… \(100007 characters\) is not supported/);
    return err.message.length < 400;
  });
});

Deno.test("an expression nested past what the stack holds says so, not only V8's words", async () => {
  const compiler = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 100000, maxDepth: 500 });
  // Parenthesised a hundred thousand deep: parsing it runs out of stack (a RangeError of V8's).
  const source = `${"(".repeat(100_000)}1${")".repeat(100_000)}`;
  await assert.rejects(async () => await compiler.compile(source).evaluate({}), (err: unknown) => {
    assert.ok(err instanceof ExpressionError);
    assert.match(err.message, /^Nested too deeply: Maximum call stack size exceeded/);
    return true;
  });
});
