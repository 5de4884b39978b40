import assert from "node:assert/strict";
import { testCompiler } from "../_test_utils.ts";
import { formatPath, type Segment, WILDCARD } from "../json/path.ts";
import jsonata from "jsonata";
import { extractReads } from "./dependencies.ts";

const compiler = testCompiler();
const ARRAYS = new Set(["$.items", "$.orders", "$.orders[*].lines", "$.board"]);

/** The reads of `source` as `$.path` strings (`e:` prefix for element-scoped reads). */
function readsOf(source: string, elementPattern?: Segment[], opaqueCalls?: boolean): string[] {
  const reads = extractReads(compiler.compile(source).ast, {
    isArray: (pattern) => ARRAYS.has(formatPath(pattern)),
    elementPattern,
    opaqueCalls,
  });
  return reads.map((r) => (r.elementScoped ? "e:" : "") + formatPath(r.path));
}

Deno.test("field references become $-rooted paths", () => {
  assert.deepEqual(readsOf("qty * price"), ["$.qty", "$.price"]);
  assert.deepEqual(readsOf("order.customer.name"), ["$.order.customer.name"]);
  assert.deepEqual(readsOf("a ? b : c"), ["$.a", "$.b", "$.c"]);
  assert.deepEqual(readsOf("{'x': a, 'y': b.c}"), ["$.a", "$.b.c"]);
  assert.deepEqual(readsOf("$$.qty"), ["$.qty"]);
});

Deno.test("duplicate references are merged", () => {
  assert.deepEqual(readsOf("qty + qty * qty"), ["$.qty"]);
});

Deno.test("map steps over arrays become [*], nested arrays too", () => {
  assert.deepEqual(readsOf("items.lineTotal"), ["$.items[*].lineTotal"]);
  assert.deepEqual(readsOf("$sum(items.lineTotal)"), ["$.items[*].lineTotal"]);
  assert.deepEqual(readsOf("$sum(items.(qty * price))"), ["$.items[*].qty", "$.items[*].price"]);
  assert.deepEqual(readsOf("$sum(orders.lines.amount)"), ["$.orders[*].lines[*].amount"]);
  assert.deepEqual(readsOf("items^(qty).name"), ["$.items[*].qty", "$.items[*].name"]);
});

Deno.test("numeric filters select an index; negative ones any element", () => {
  assert.deepEqual(readsOf("items[0].qty"), ["$.items[0].qty"]);
  assert.deepEqual(readsOf("board[2]"), ["$.board[2]"]);
  assert.deepEqual(readsOf("items[-1].qty"), ["$.items[*].qty"]);
});

Deno.test("field references inside a filter predicate are element-scoped, not root paths", () => {
  const reads = readsOf("items[type='a'].qty");
  assert.deepEqual(reads, ["$.items[*].type", "$.items[*].qty"]);
  assert.ok(!reads.includes("$.type"), "the predicate's 'type' is the element's field");
  assert.deepEqual(readsOf("$sum(items[type='a' and qty > 1].qty)"), ["$.items[*].type", "$.items[*].qty"]);
});

Deno.test("$parent in a wildcard derivation resolves to the element's field (element-scoped)", () => {
  const element = ["items", WILDCARD];
  assert.deepEqual(readsOf("$parent.qty * $parent.price", element), [
    "e:$.items[*].qty",
    "e:$.items[*].price",
  ]);
  assert.deepEqual(readsOf("$string($parent)", element), ["e:$.items[*]"]);
  // a predicate may mix the filtered elements and the bound element
  assert.deepEqual(readsOf("items[qty > $parent.min].qty", ["groups", WILDCARD]), [
    "$.items[*].qty",
    "e:$.groups[*].min",
  ]);
});

Deno.test("$parent outside a wildcard node reads nothing from the document", () => {
  assert.deepEqual(readsOf("$parent.qty"), []);
});

Deno.test("$const and local variables are bound values, not dependencies", () => {
  assert.deepEqual(readsOf("$const.rate * qty"), ["$.qty"]);
  assert.deepEqual(readsOf("$const.limits.max"), []);
  assert.deepEqual(readsOf("($x := qty; $x * 2)"), ["$.qty"]);
});

Deno.test("whole-value reads: function arguments read the whole location", () => {
  assert.deepEqual(readsOf("$count(items)"), ["$.items"]);
  assert.deepEqual(readsOf("$map(items, function($i){ $i.qty })"), ["$.items"]);
  assert.deepEqual(readsOf("$keys($)"), ["$"]);
});

Deno.test("literals read nothing", () => {
  assert.deepEqual(readsOf("1 + 2"), []);
  assert.deepEqual(readsOf("'text' & \"more\""), []);
  assert.deepEqual(readsOf("[1, 2, 3]"), []);
});

Deno.test("a built-in called without its first argument reads its context whole", () => {
  assert.deepEqual(readsOf("$string()"), ["$"]);
  assert.deepEqual(readsOf("order.$uppercase()"), ["$.order"]);
  assert.deepEqual(readsOf("items.$length()"), ["$.items[*]"]);
  assert.deepEqual(readsOf("$substringBefore(',')"), ["$"]);
  // `~>` passes its left side as the first argument
  assert.deepEqual(readsOf("name ~> $string()"), ["$.name"]);
  assert.deepEqual(readsOf("name ~> $substringBefore(',')"), ["$.name"]);
  assert.deepEqual(readsOf("name ~> $substringBefore"), ["$.name", "$"]);
  // all arguments given, or a built-in that never takes the context: no more than its arguments
  assert.deepEqual(readsOf("$string(qty)"), ["$.qty"]);
  assert.deepEqual(readsOf("$round(qty)"), ["$.qty"]);
  assert.deepEqual(readsOf("$now()"), []);
});

Deno.test("a built-in that JSONata's signature matching gives the context reads it, whatever the argument count", async () => {
  // JSONata itself: the context fills the first parameter when the arguments fit only the later ones
  const sifted = await jsonata("o.$sift(function($v) { $v > 1 })").evaluate({ o: { a: 1, b: 2 } });
  assert.deepEqual(JSON.parse(JSON.stringify(sifted)), { b: 2 });
  assert.equal(await jsonata("name.$substring(1, 2)").evaluate({ name: "abcd" }), "bc");
  assert.deepEqual(readsOf("order.$sift(function($v) { $v })"), ["$.order"]);
  assert.deepEqual(readsOf("name.$substring(1, 2)"), ["$.name"]);
  assert.deepEqual(readsOf("name.$split(',', 2)"), ["$.name"]);
  assert.deepEqual(readsOf("name.$pad(5, '#')"), ["$.name"]);
  // an argument of unknown type may shift: counted; one of a type that fits the first parameter does not
  assert.deepEqual(readsOf("name.$substring($n, 2)"), ["$.name"]);
  assert.deepEqual(readsOf("name.$substring('abc', 2)"), []);
  assert.deepEqual(readsOf("$string(qty)"), ["$.qty"]);
});

Deno.test("a variable named like a built-in is the variable", () => {
  assert.deepEqual(readsOf("($length := function($x) { 1 }; order.$length())"), []);
  assert.deepEqual(readsOf("order.(function($trim) { $trim() })($f)"), []);
  assert.deepEqual(readsOf("order.$length()"), ["$.order"]);
});

Deno.test("a built-in used as a value reads the context where it is named", () => {
  assert.deepEqual(readsOf("order.($g := $trim; $g())"), ["$.order"]);
  assert.deepEqual(readsOf("order.$map(xs, $substringBefore)"), ["$.order.xs", "$.order"]);
  assert.deepEqual(readsOf("order.$map(xs, $sum)"), ["$.order.xs"]);
});

Deno.test("where the library lends built-ins, a call of a function value it may hand out reads the context where it is called", () => {
  assert.deepEqual(readsOf("order.$lib()()", undefined, true), ["$.order"]);
  // the library's export may be one: conservatively its call reads the context too
  assert.deepEqual(readsOf("($f := $lib(); order.$f())", undefined, true), ["$", "$.order"]);
  assert.deepEqual(readsOf("order.$lib()()"), []);
});
