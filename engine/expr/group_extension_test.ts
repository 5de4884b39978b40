import assert from "node:assert/strict";
import { ExpressionCompiler } from "./compiler.ts";
import { isExtended, restoreExtended } from "./group_extension.ts";
import { Random, randomDocument, randomExpression } from "./compiled/test_support.ts";

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

Deno.test("a grouping whose input the guard sees costs no scan of the document", async () => {
  const doc = { tags: [], n: 1, a: [[], 1], items: [{ tags: [] }, { tags: [] }], one: [{ tags: [] }] };
  // Not JSON: a scan of the bindings would empty it.
  const marker = () => {
    const value: unknown[] = [];
    value.push(undefined);
    return value;
  };
  const scanned = async (source: string) => {
    const input = structuredClone(doc);
    const bindings = { marker: marker() };
    await interpreter.compile(source).evaluate(input, bindings);
    assert.deepEqual(input, doc, source);
    return bindings.marker.length === 0;
  };
  for (
    const source of [
      "($x := 1; tags{'k': $x})",
      "($x := 1; missing{'k': $x})",
      "($x := 1; items.tags{'k': $x})",
      "($x := 1; one.tags{'k': $x})",
      "($x := 1; a.{'k': $x})",
      "($x := 1; a.{})",
      "($x := 1; {'k': $x})",
    ]
  ) {
    assert.equal(await scanned(source), false, source);
  }
  // Where the guard cannot tell which array a grouping extended, it scans.
  assert.equal(await scanned("$lookup($, 'tags'){'k': 1}"), true);
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

Deno.test("no generated expression changes the document or the bindings it reads", async () => {
  const random = new Random(15);
  for (let e = 0; e < 800; e++) {
    // Groupings and object constructors over the generated paths, most inputs empty or missing.
    const path = randomExpression(random, 1);
    const source = random.pick([
      `${path}{'k': 1}`,
      `(${path}){$string(n): s}`,
      `${path}.{}`,
      `[${path}{'k': a}, ${randomExpression(random, 1)}{'j': 2}, $count(${path})]`,
      randomExpression(random),
    ]);
    const doc = randomDocument(random);
    const bindings = { const: randomDocument(random), parent: randomDocument(random) };
    const [input, copy] = [structuredClone(doc), structuredClone(bindings)];
    try {
      await interpreter.compile(source).evaluate(input, copy);
    } catch {
      // A failing evaluation must leave them as they were too.
    }
    // As JSON: jsonata-js also flags arrays it reads (`keepSingleton`), which no JSON value shows.
    assert.equal(JSON.stringify(input), JSON.stringify(doc), `${source} on ${JSON.stringify(doc)}`);
    assert.equal(JSON.stringify(copy), JSON.stringify(bindings), `${source}: bindings`);
  }
});
