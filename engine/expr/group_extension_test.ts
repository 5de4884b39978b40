import assert from "node:assert/strict";
import { ExpressionCompiler } from "./compiler.ts";
import { isExtended, restoreExtended } from "./group_extension.ts";

const interpreter = new ExpressionCompiler({
  cacheSize: 100,
  timeoutMs: 5000,
  maxDepth: 500,
  compiled: false,
});
const compiler = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 5000, maxDepth: 500 });

/** Evaluates `source` over `doc` with both compilers; `doc` and the bindings must come out as they went in. */
async function untouched(source: string, doc: unknown, expected: unknown): Promise<void> {
  for (const each of [interpreter, compiler]) {
    const input = structuredClone(doc);
    const bindings = { const: { tags: [] }, parent: input };
    let value: unknown;
    try {
      value = await each.compile(source).evaluate(input, bindings);
    } catch (err) {
      value = (err as { code?: string }).code;
    }
    assert.deepEqual(value, expected, source);
    assert.deepEqual(input, doc, `${source} left the document as it was`);
    assert.ok(!JSON.stringify(input).includes("null") || JSON.stringify(doc).includes("null"), source);
    assert.deepEqual(bindings.const, { tags: [] }, `${source} left the bindings as they were`);
  }
}

Deno.test("grouping over an empty array of the document leaves the document as it was", async () => {
  const doc = { tags: [], n: 1, a: [[], 1], o: { list: [] } };
  await untouched("($t := tags{'k': n}; $t.k)", doc, undefined);
  await untouched("tags{'k': 1}", doc, { k: 1 });
  await untouched("[tags{'k': 1}, o.list{'j': 2}, $count(tags)]", doc, [{ k: 1 }, { j: 2 }, 0]);
  await untouched("($x := tags; $x{'k': 1})", doc, { k: 1 });
  await untouched("$const.tags{'k': 1}", doc, { k: 1 });
  await untouched("a.{}", doc, [{}, {}]);
  await untouched("a.{'k': 1}", doc, [{ k: 1 }, { k: 1 }]);
  await untouched("$lookup(o, 'list'){'k': 1}", doc, { k: 1 });
  await untouched("($lookup(o, 'list'){'k': 1}; $error('x'))", doc, "D3137");
  await untouched("$${'k': 1}", [], { k: 1 });
});

Deno.test("restoreExtended empties one-item arrays of undefined, and nothing else", () => {
  const extended: unknown[] = [];
  extended.push(undefined);
  const value = { a: extended, b: [1], c: [null], d: [[undefined]], e: new Map([[1, [undefined]]]) };
  assert.ok(isExtended(extended));
  restoreExtended(value);
  assert.deepEqual(value.a, []);
  assert.deepEqual(value.b, [1]);
  assert.deepEqual(value.c, [null]);
  assert.deepEqual(value.d, [[]]);
  assert.deepEqual(value.e.get(1), [undefined]);
});
