import assert from "node:assert/strict";
import jsonata from "jsonata";
import { type AstNode, ExpressionCompiler } from "./compiler.ts";
import { isFunctionValue, SharedFunction, type Signature } from "./shared_function.ts";

/** A short deadline, for the evaluations a test expects to expire (or to have expired). */
const SHORT = { cacheSize: 100, timeoutMs: 200, maxDepth: 60 };
/** A deadline no evaluation of these tests comes near, however loaded the machine. */
const ROOMY = { ...SHORT, timeoutMs: 30_000 };

/** Evaluates a define-like block and returns the raw values of `names` at its last expression. */
async function definitions(compiler: ExpressionCompiler, source: string, names: string[]) {
  const compiled = compiler.compile(source);
  const last = (compiled.ast.expressions as AstNode[]).at(-1);
  const raw: Record<string, unknown> = {};
  await compiled.evaluate(undefined, { const: { rate: 3 } }, {
    observe: (step, lookup) => {
      if (step === last) { for (const name of names) raw[name] = lookup(name); }
    },
  });
  return raw;
}

const LIBRARY = `(
  $rate := $const.rate;
  $square := function($x) { $x * $x };
  $scaled := function($x) { $square($x) * $rate };
  $deep := function($n) { $n = 0 ? 0 : 1 + $deep($n - 1) };
  $spin := function($n) { $spin($n) };
  $pair := function($a, $b)<nn:n> { $a + $b };
  $opt := function($a, $b)<nn?:n> { $a };
  ["scaled", "deep", "spin", "pair", "opt", "rate"]
)`;

Deno.test("observe reads the variables visible at a step; functions come back raw", async () => {
  const compiler = new ExpressionCompiler(ROOMY);
  const raw = await definitions(compiler, LIBRARY, ["scaled", "rate", "missing"]);
  assert.equal(raw.rate, 3);
  assert.ok(isFunctionValue(raw.scaled));
  assert.equal(raw.missing, undefined);
  assert.ok(!isFunctionValue(raw.rate));
});

Deno.test("a shared function runs in the calling evaluation, long after its own ended", async () => {
  const raw = await definitions(new ExpressionCompiler(SHORT), LIBRARY, ["scaled"]);
  await new Promise((resolve) => setTimeout(resolve, SHORT.timeoutMs + 50));
  const scaled = new SharedFunction(raw.scaled);
  const expr = new ExpressionCompiler(ROOMY).compile("$scaled(4) + $sum($map([1, 2], $scaled))");
  assert.equal(await expr.evaluate({}, { scaled }), 48 + 15, "helpers and captured variables resolve");
});

Deno.test("depth and deadline are the caller's: a runaway call fails it and leaves the function intact", async () => {
  const compiler = new ExpressionCompiler(ROOMY);
  const raw = await definitions(compiler, LIBRARY, ["deep", "spin"]);
  const deep = new SharedFunction(raw.deep);
  const spin = new SharedFunction(raw.spin);
  for (let i = 0; i < 3; i++) {
    await assert.rejects(compiler.compile("$deep(1000)").evaluate({}, { deep }), /D1011/);
    assert.equal(await compiler.compile("$deep(5)").evaluate({}, { deep }), 5, "no depth is left behind");
  }
  await assert.rejects(new ExpressionCompiler(SHORT).compile("$spin(1)").evaluate({}, { spin }), /D1012/);
  assert.equal(await compiler.compile("$deep(3)").evaluate({}, { deep }), 3);
});

Deno.test("concurrent evaluations each get their own copy", async () => {
  const compiler = new ExpressionCompiler(ROOMY);
  const scaled = new SharedFunction((await definitions(compiler, LIBRARY, ["scaled"])).scaled);
  const results = await Promise.all(
    [1, 2, 3, 4].map((n) => compiler.compile(`$sum([1..50].$scaled(${n}))`).evaluate({}, { scaled })),
  );
  assert.deepEqual(results, [150, 600, 1350, 2400]);
});

Deno.test("arity and signature: declared, variadic, replaced", async () => {
  const compiler = new ExpressionCompiler(ROOMY);
  const raw = await definitions(compiler, LIBRARY, ["scaled", "pair", "opt"]);
  assert.equal(new SharedFunction(raw.scaled).arity, 1);
  assert.equal(new SharedFunction(raw.scaled).signature, undefined);
  assert.equal(new SharedFunction(raw.pair).arity, 2);
  assert.equal(new SharedFunction(raw.pair).signature, "<nn:n>");
  assert.equal(new SharedFunction(raw.opt).arity, undefined, "an optional parameter makes it variadic");
  const signature = (jsonata("function($x)<n:n>{$x}").ast() as unknown as { signature: Signature }).signature;
  const typed = new SharedFunction(raw.scaled, signature);
  assert.equal(typed.signature, "<n:n>");
  await assert.rejects(compiler.compile("$f('a')").evaluate({}, { f: typed }), /T0410/);
  assert.equal(await compiler.compile("$f(2)").evaluate({}, { f: typed }), 12);
  assert.throws(() => new SharedFunction(42));
});
