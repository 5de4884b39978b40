import assert from "node:assert/strict";
import jsonata from "jsonata";
import type { AstNode } from "./compiler.ts";
import { inputReads } from "./input_reads.ts";

const reads = (source: string) => inputReads(jsonata(source).ast() as unknown as AstNode).map((r) => r.what);

Deno.test("fields, $, $$, *, ** at the root of an expression read the input", () => {
  assert.deepEqual(reads("price * 2"), ["price"]);
  assert.deepEqual(reads("$ + $$.a"), ["$", "$$"]);
  assert.deepEqual(reads("* + **.x"), ["*", "**"]);
  assert.deepEqual(reads("{'a': total}"), ["total"]);
  assert.deepEqual(reads("$f(qty)"), ["qty"]);
});

Deno.test("a function body reads the input it was defined with", () => {
  assert.deepEqual(reads("function($x) { $x * rate }"), ["rate"]);
  assert.deepEqual(reads("function($x) { $x * $y }"), []);
});

Deno.test("steps after the first, predicates, index filters, sort terms and group-by pairs are exempt", () => {
  assert.deepEqual(reads("$items.price"), []);
  assert.deepEqual(reads("$items[price > 5].(qty * price)"), []);
  assert.deepEqual(reads("$items[0]"), []);
  assert.deepEqual(reads("$items^(>price)"), []);
  assert.deepEqual(reads("$items{category: $sum(price)}"), []);
  assert.deepEqual(reads("$items[$.price > $$.limit]"), []);
  assert.deepEqual(reads("$x.$"), []);
});

Deno.test("a built-in called without its first argument reads the context", () => {
  assert.deepEqual(reads("$string()"), ["$string() without its first argument"]);
  assert.deepEqual(reads("function($x) { $x & $trim() }"), ["$trim() without its first argument"]);
  assert.deepEqual(reads("function($s) { $s ~> $substringBefore }"), [
    "$substringBefore() without its first argument",
  ]);
  // `~>` passes its left side as the first argument; later path steps run against the previous one
  assert.deepEqual(reads("function($s) { $s ~> $substringBefore(',') }"), []);
  assert.deepEqual(reads("function($s) { $s ~> $trim() }"), []);
  assert.deepEqual(reads("function($o) { $o.$string() }"), []);
  assert.deepEqual(reads("function($x) { $string($x) & $sum([]) & $now() }"), []);
});

Deno.test("a built-in sure to be given the context reads it, whatever the argument count", () => {
  assert.deepEqual(reads("function($o) { $sift(function($v) { $v }) }"), [
    "$sift() without its first argument",
  ]);
  assert.deepEqual(reads("function($n) { $substring(1, $n) }"), ["$substring() without its first argument"]);
  // an argument of unknown type may or may not shift: not refused on a guess
  assert.deepEqual(reads("function($s, $n) { $substring($s, $n) }"), []);
  assert.deepEqual(reads("function($s) { $sift($s) }"), []);
});

Deno.test("a variable named like a built-in is the variable, not the built-in", () => {
  assert.deepEqual(reads("($length := function($x) { 1 }; function() { $length() })"), []);
  assert.deepEqual(reads("function($trim) { $trim() }"), []);
});
