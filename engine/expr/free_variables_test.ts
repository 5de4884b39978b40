import assert from "node:assert/strict";
import jsonata from "jsonata";
import type { AstNode } from "./compiler.ts";
import { freeVariables } from "./free_variables.ts";

const free = (source: string) =>
  freeVariables(jsonata(source).ast() as unknown as AstNode).map((
    v,
  ) => (v.call ? `$${v.name}(` : `$${v.name}`));

Deno.test("calls and bare reads of unbound variables are free; $ and $$ never are", () => {
  assert.deepEqual(free("$f(a) + $x + $ + $$.b"), ["$f(", "$x"]);
  assert.deepEqual(free("$g(?, 2)"), ["$g("]);
  assert.deepEqual(free("a ~> $h"), ["$h"]);
  assert.deepEqual(free("a ~> $h(1)"), ["$h("]);
  assert.deepEqual(free("$const.rate * $parent.qty"), ["$const", "$parent"]);
});

Deno.test("variables bound by := are visible in their whole block, and only there", () => {
  assert.deepEqual(free("($a := 1; $b := $a + 1; $b)"), []);
  assert.deepEqual(free("($b := $a; $a := 1; $b)"), [], "order within a block does not matter");
  assert.deepEqual(free("($x := ($y := 2; $y); $y)"), ["$y"], "an inner block's variables stay inside");
  assert.deepEqual(free("$x := 5"), []);
});

Deno.test("function parameters and a recursive function's own name are bound in its body", () => {
  assert.deepEqual(free("($fact := function($n) { $n <= 1 ? 1 : $n * $fact($n - 1) }; $fact(5))"), []);
  assert.deepEqual(free("function($a) { $a + $b }"), ["$b"]);
  assert.deepEqual(free("$map(items, function($v, $i) { $v * $i })"), ["$map("], "built-ins are free too");
  assert.deepEqual(free("(function($a) { $a })($a)"), ["$a"], "a parameter is not visible outside");
});

Deno.test("positional and focus variables of a path are visible along the path", () => {
  assert.deepEqual(free("items#$i[$i > 0].($i * qty)"), []);
  assert.deepEqual(free("items@$it.lines[$it.id = ref].qty"), []);
});

Deno.test("predicates, sort terms, group-by, conditions and transforms are searched too", () => {
  assert.deepEqual(free("items[$ok(price)]^($k(name)){$g(a): $v}"), ["$ok(", "$k(", "$g(", "$v"]);
  assert.deepEqual(free("a ? $p : $q"), ["$p", "$q"]);
  assert.deepEqual(free("$ ~> |items|{'x': $t}|"), ["$t"]);
  assert.deepEqual(free("[1, $m, {'k': $n}]"), ["$m", "$n"]);
});

Deno.test("a variable that starts a path names the member it reads", () => {
  const refs = freeVariables(jsonata("$const.rate * $const[name] + $x").ast() as unknown as AstNode);
  assert.deepEqual(refs.map((r) => [r.name, r.member]), [["const", "rate"], ["const", undefined], [
    "x",
    undefined,
  ]]);
});
