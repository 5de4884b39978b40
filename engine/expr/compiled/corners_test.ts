/**
 * Differential probe of the compiled subset's corners: generated expressions
 * over documents of every shape (nothing, null, scalars, empty and nested
 * arrays, arrays of objects), a hand list of corner cases, and a pass under a
 * small sequence limit where a closure's answer must be the guarded
 * interpreter's under the same limits.
 */
import assert from "node:assert/strict";
import { ExpressionCompiler } from "../compiler.ts";
import { toPlainJson } from "../../json/value.ts";
import { compiledLimits, INTERPRET } from "./compile.ts";
import {
  codeOf,
  compiledOf,
  interpret,
  Random,
  randomDocument,
  randomExpression,
  randomObject,
} from "./test_support.ts";

const LIMITS = compiledLimits({ maxDepth: 500 });

/** A closure's answer against jsonata-js's, on copies (jsonata-js flags the arrays it is given). */
async function agree(source: string, doc: unknown, bindings: Record<string, unknown>): Promise<boolean> {
  const closure = compiledOf(source, LIMITS);
  if (!closure) return false;
  const result = closure(structuredClone(doc), structuredClone(bindings));
  if (result === INTERPRET) return false;
  const expected = await interpret(source, doc, bindings);
  const where = `${source} on ${JSON.stringify(doc)}`;
  assert.ok(!expected.code, `${where}: jsonata-js fails ${expected.code}`);
  assert.deepEqual(toPlainJson(result), expected.value, where);
  return true;
}

Deno.test("corners: closures agree with jsonata-js over documents of every shape", async () => {
  const random = new Random(20261129);
  let cases = 0;
  let answered = 0;
  for (let e = 0; e < 1200; e++) {
    const source = randomExpression(random);
    for (let d = 0; d < 2; d++) {
      cases++;
      const bindings = { const: randomObject(random, 1), parent: randomDocument(random) };
      if (await agree(source, randomDocument(random), bindings)) answered++;
    }
  }
  assert.ok(answered > cases / 3, `closures answered only ${answered} of ${cases}`);
});

Deno.test("corners: hand-picked corner cases agree with jsonata-js", async () => {
  const docs: unknown[] = [
    undefined,
    null,
    [],
    [[]],
    [1, [2, [3]]],
    "s",
    { tags: [], n: 1 },
    { tags: [[], []], items: [] },
    { items: [{ tags: [] }, { tags: [] }, { tags: [] }] },
    { items: [{ v: 1, tags: ["a", "b"] }, { v: null }, { v: [] }, {}] },
    { a: [[1, 2], [], [[3]]], s: "", n: 0 },
  ];
  const sources = [
    "$",
    "$$",
    "tags",
    "tags[]",
    "tags[0]",
    "tags[-1]",
    "tags{'k': n}",
    "tags.{'k': n}",
    "items{'k': $count(tags)}",
    "{'k': tags}",
    "items.tags",
    "items.tags[]",
    "items.tags[0]",
    "items[tags].v",
    "items.v",
    "items.v[]",
    "a.$",
    "a[0]",
    "a[1]",
    "a.[$]",
    "[a]",
    "[[]]",
    "[tags, []]",
    "$count(tags)",
    "$count(items.tags)",
    "$sum(a[0])",
    "$max(a)",
    "$min([])",
    "$average(tags)",
    "$exists(tags)",
    "$exists(items.tags)",
    "$string(tags)",
    "$string(a)",
    "$number(n)",
    "$abs(n)",
    "$floor(-0.5)",
    "$ceil(-0.5)",
    "$round(-0.5)",
    "$round(0.125, 2)",
    "n = null",
    "tags = []",
    "s & tags",
    "n and tags",
    "tags or n",
    "tags ? 'y' : 'n'",
    "items ? 'y' : 'n'",
    "-n",
    "n + 1",
    "$[0]",
    "$[1]",
    "$.tags",
    "$$[0]",
  ];
  for (const source of sources) {
    for (const doc of docs) await agree(source, doc, { const: { rate: 2 }, parent: { tags: [] } });
  }
});

Deno.test("corners: under a small sequence limit a closure answers only what the interpreter answers", async () => {
  const options = { cacheSize: 10_000, timeoutMs: 5000, maxDepth: 500, maxItems: 2 };
  const interpreter = new ExpressionCompiler({ ...options, compiled: false });
  const limits = compiledLimits(options);
  const random = new Random(7);
  const doc = { items: [{ tags: [], qty: [] }, { tags: [], qty: [] }], a: [{ b: [] }] };
  // The last: three empty per-item results of a step over a document array are three, past the limit.
  const hand: [string, unknown][] = [
    ["items.tags", doc],
    ["items.tags[0]", doc],
    ["items.{'t': tags}", doc],
    ["a.b", doc],
    ["{x[y > 0]: 1}", [{}, {}, {}]],
  ];
  let answered = 0;
  for (let e = 0; e < 600; e++) {
    const [source, input] = e < hand.length ? hand[e] : [randomExpression(random), randomDocument(random)];
    const bindings = { const: randomObject(random, 1), parent: randomDocument(random) };
    const closure = compiledOf(source, limits);
    if (!closure) continue;
    const result = closure(structuredClone(input), structuredClone(bindings));
    if (result === INTERPRET) continue;
    answered++;
    let expected: { value?: unknown; code?: string };
    try {
      expected = {
        value: await interpreter.compile(source).evaluate(structuredClone(input), structuredClone(bindings)),
      };
    } catch (err) {
      expected = { code: codeOf(err) };
    }
    const where = `${source} on ${JSON.stringify(input)}`;
    assert.ok(!expected.code, `${where}: the interpreter fails ${expected.code}`);
    assert.deepEqual(toPlainJson(result), expected.value, where);
  }
  assert.ok(answered > 100, `closures answered only ${answered}`);
});
