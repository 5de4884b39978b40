import assert from "node:assert/strict";
import jsonata from "jsonata";
import type { AstNode } from "../expr/compiler.ts";
import { ExpressionScope, RESPONSE_VARIABLES, type ScopeFindings } from "./expression_scope.ts";

const ast = (source: string) => jsonata(source).ast() as unknown as AstNode;

/** The findings of one check. */
function check(scope: ExpressionScope, source: string, location: string, extra?: readonly string[]) {
  const findings: ScopeFindings = { errors: [], warnings: [] };
  scope.check(ast(source), location, findings, extra);
  return findings;
}

Deno.test("built-ins, $const, $parent and exports resolve; anything else is a finding", () => {
  const scope = new ExpressionScope(["net"]);
  const ok = check(
    scope,
    "$net($sum(a)) + $const.k + $parent.q + $now() + ($x := 1; $x)",
    "derivations[0].expr",
  );
  assert.deepEqual(ok, { errors: [], warnings: [] });
  const { errors, warnings } = check(scope, "$nett(a) + $nett(b) + $y + $y", "derivations[0].expr");
  assert.deepEqual(errors.map((f) => f.location), ["derivations[0].expr"], "one finding per name");
  assert.match(errors[0].message, /^calls \$nett at position \d+, .* \(did you mean \$net\?\)$/);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0].message,
    /^reads \$y at position \d+, which nothing binds: it is always undefined$/,
  );
});

Deno.test("$response and $status resolve only where they are bound", () => {
  const scope = new ExpressionScope();
  assert.equal(check(scope, "$response.total + $status", "x").warnings.length, 2);
  assert.deepEqual(check(scope, "$response.total + $status", "x", RESPONSE_VARIABLES), {
    errors: [],
    warnings: [],
  });
});

Deno.test("a scope of other variables: a library's own layers see $const, not $parent", () => {
  const scope = new ExpressionScope([], ["const"]);
  assert.equal(check(scope, "$const.a + $parent.b", "library").warnings.length, 1);
});

Deno.test("$eval is an error, called or passed on; a $eval the expression binds is its own", () => {
  const scope = new ExpressionScope();
  for (const source of ["$eval('qty') + x", "$map(['qty'], $eval)", "function($k) { $eval($k) }('qty')"]) {
    const { errors } = check(scope, source, "derivations[0].expr");
    assert.equal(errors.length, 1, source);
    assert.match(errors[0].message, /^uses \$eval at position \d+: code made from a string is not allowed$/);
  }
  assert.deepEqual(check(scope, "($eval := function($k) { $k }; $eval('qty'))", "x"), {
    errors: [],
    warnings: [],
  });
});
