import assert from "node:assert/strict";
import jsonata from "jsonata";
import type { AstNode } from "../compiler.ts";
import { ExpressionCompiler } from "../compiler.ts";
import { toPlainJson } from "../../json/value.ts";
import { compileClosure, compiledLimits, INTERPRET } from "./compile.ts";
import {
  codeOf,
  compiledOf as closureOf,
  interpret,
  Random,
  randomExpression,
  randomObject,
  randomValue,
} from "./test_support.ts";

const LIMITS = compiledLimits({ maxDepth: 500 });

/** The closure of `source` under the default limits. */
const compiledOf = (source: string) => closureOf(source, LIMITS);

Deno.test("differential: compiled closures agree with jsonata-js on generated expressions and documents", async () => {
  const random = new Random(20261123);
  const compiler = new ExpressionCompiler({ cacheSize: 10_000, timeoutMs: 5000, maxDepth: 500 });
  let cases = 0;
  let answered = 0;
  let interpreted = 0;
  let unsupported = 0;
  let errors = 0;
  // A fixed number of seeded expressions: the same cases on every run, however loaded the machine (no time cap).
  for (let e = 0; e < 2500; e++) {
    const source = randomExpression(random);
    const closure = compiledOf(source);
    if (!closure) unsupported++;
    for (let d = 0; d < 3; d++) {
      const doc = d === 2 && random.chance(0.3) ? randomValue(random, 3) : randomObject(random, 3);
      const parent = randomObject(random, 2);
      const bindings = { const: randomObject(random, 2), parent };
      cases++;
      const expected = await interpret(source, doc, bindings);
      if (expected.code) errors++;
      if (closure) {
        const result = closure(structuredClone(doc), structuredClone(bindings));
        if (result === INTERPRET) interpreted++;
        else {
          answered++;
          assert.ok(!expected.code, `${source} on ${JSON.stringify(doc)}: jsonata-js fails ${expected.code}`);
          assert.deepEqual(toPlainJson(result), expected.value, `${source} on ${JSON.stringify(doc)}`);
        }
      }
      // Through the engine's compiler: the same result, or an error with jsonata-js's code.
      let actual: { value?: unknown; code?: string };
      try {
        actual = {
          value: await compiler.compile(source).evaluate(structuredClone(doc), structuredClone(bindings)),
        };
      } catch (err) {
        actual = { code: codeOf(err) };
      }
      if (expected.code) assert.equal(actual.code, expected.code, `${source}: error code`);
      else assert.deepEqual(actual.value, expected.value, `${source} on ${JSON.stringify(doc)} (compiler)`);
    }
  }
  console.log(
    `differential: ${cases} cases, ${answered} answered by closures, ${interpreted} handed back, ` +
      `${unsupported} expressions outside the subset, ${errors} jsonata-js errors`,
  );
  assert.ok(answered > cases / 2, `closures answered only ${answered} of ${cases}`);
});

Deno.test("exact semantics on hand-picked cases", async () => {
  const doc = {
    items: [{ price: 2.5, qty: 2, tags: ["a"] }, { price: 0.1, qty: 3, tags: ["b", "c"] }],
    one: [{ x: 1 }],
    nested: [[1, 2], [3]],
    n: 0.1,
    s: "10",
  };
  const cases = [
    "items.price",
    "one.x",
    "one.x[]",
    "items.tags",
    "nested",
    "nested[0]",
    "items[1].tags",
    "items[price > 1].qty",
    "$sum(items.(price * qty))",
    "$round(2.5)",
    "$round(3.5)",
    "$round(-2.5)",
    "$round(1.005, 2)",
    "$round(1234.5, -1)",
    "$string(n + 0.2)",
    "$string(items)",
    "$string(1e21)",
    "$string(items, true)",
    "n + 0.2",
    "'a' & n & true & null",
    "items.{'p': price}",
    "items{$string(qty): price}",
    "[items.price, [1, 2], []]",
    "items.[price, qty]",
    "$count(missing)",
    "$count(items)",
    "$count(nested)",
    "$sum(nested[1])",
    "$string(-0)",
    "$string(items[1].qty)",
    "$string(7 / 3)",
    "$max(missing)",
    "$average(items.price)",
    "$number(s) + 1",
    "$number('0x1F')",
    "$lookup(items, 'qty')",
    "$exists(items.missing)",
    "1 in items.qty",
    "items.qty = [2, 3]",
    "{} = {}",
    "items[0] ? 'y' : 'n'",
    "$parent.price * $parent.qty",
    "$const.rate * 2",
    "$$.items[-1].price",
  ];
  const bindings = { const: { rate: 0.25 }, parent: doc.items[0] };
  for (const source of cases) {
    const closure = compiledOf(source);
    assert.ok(closure, `${source} compiles`);
    const result = closure(doc, bindings);
    assert.notEqual(result, INTERPRET, `${source} is answered by its closure`);
    assert.deepEqual(toPlainJson(result), (await interpret(source, doc, bindings)).value, source);
  }
});

Deno.test("errors are jsonata-js's: the closure hands the expression back", async () => {
  const compiler = new ExpressionCompiler({ cacheSize: 10, timeoutMs: 5000, maxDepth: 500 });
  const doc = { s: "a", n: 1, o: { x: 1 }, big: 1e308 };
  for (
    const [source, code] of [
      ["s + 1", "T2001"],
      ["1 - s", "T2002"],
      ["s < n", "T2009"],
      ["o > 1", "T2010"],
      ["-s", "D1002"],
      ["$sum(s)", "T0412"],
      ["$abs(s)", "T0410"],
      ["$number('x')", "D3030"],
      ["$string(big * 10)", "D3001"],
      ["big * 10 + 1", "D1001"],
      ["{n: 1}", "T1003"],
      ["{'a': 1, 'a': 2}", "D1009"],
    ]
  ) {
    assert.equal(compiledOf(source)!(doc, undefined), INTERPRET, source);
    await assert.rejects(compiler.compile(source).evaluate(doc), (err: Error & { code?: string }) => {
      assert.equal(err.code, code, source);
      return true;
    });
  }
});

Deno.test("forms outside the subset are not compiled", () => {
  for (
    const source of [
      "$map(a, function($v) { $v })",
      "($x := 1; $x)",
      "a^(b)",
      "**.a",
      "a.*",
      "a#$i.b",
      "a@$x.b",
      "$uppercase(a)",
      "$now()",
      "$sum()",
      "$other.a",
      "[1..3]",
      "a ~> $sum()",
      "/x/",
    ]
  ) {
    assert.equal(compiledOf(source), null, source);
  }
});

Deno.test("a binding that shadows a builtin sends the evaluation to jsonata-js", () => {
  const closure = compiledOf("$sum(a)")!;
  assert.equal(closure({ a: [1, 2] }, undefined), 3);
  assert.equal(closure({ a: [1, 2] }, { sum: () => 0 }), INTERPRET);
});

Deno.test("limits: past the sequence limit, the step budget or the memory budget the interpreter decides", () => {
  const doc = { items: Array.from({ length: 50 }, (_, i) => ({ v: i, s: "x".repeat(100) })) };
  const ast = (source: string) => jsonata(source).ast() as unknown as AstNode;
  const sum = ast("$sum(items.v)");
  assert.equal(compileClosure(sum, { ...LIMITS, maxItems: 100 })!(doc, undefined), 1225);
  assert.equal(compileClosure(sum, { ...LIMITS, maxItems: 10 })!(doc, undefined), INTERPRET);
  assert.equal(compileClosure(sum, { ...LIMITS, maxSteps: 20 })!(doc, undefined), INTERPRET);
  assert.equal(
    compileClosure(ast("items.s"), { ...LIMITS, memoryBytes: 10_000 })!(doc, undefined),
    INTERPRET,
  );
  assert.equal(
    compileClosure(ast("((((a))))"), { ...LIMITS, maxDepth: 3 }),
    null,
    "deeper than the depth limit",
  );
});
