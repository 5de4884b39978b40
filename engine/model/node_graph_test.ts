import assert from "node:assert/strict";
import { compile } from "../_test_utils.ts";
import { spec } from "./test_support.ts";

Deno.test("dependency cycles are errors naming the keys involved", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.a", expr: "b + 1" },
      { path: "$.b", expr: "c + 1" },
      { path: "$.c", expr: "a + 1" },
      { path: "$.self", expr: "self + 1" },
      { path: "$.fine", expr: "qty" },
    ],
  }));
  assert.equal(report.valid, false);
  const cycles = report.errors.filter((e) => /dependency cycle/.test(e.message));
  assert.equal(cycles.length, 2);
  const triangle = cycles.find((c) => c.message.includes("$.a"))!;
  for (const key of ["$.a", "$.b", "$.c"]) assert.ok(triangle.message.includes(key), triangle.message);
  const loop = cycles.find((c) => c.message.includes("$.self"))!;
  assert.match(loop.message, /reads its own value/);
  assert.ok(!report.errors.some((e) => e.message.includes("$.fine")));
});

Deno.test("a dependency cycle is reported at its first entry's expression, naming each entry's location", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.fine", expr: "qty" },
      { path: "$.subtotal", expr: "total - 1" },
      { path: "$.total", expr: "subtotal + 1" },
    ],
  }));
  const cycle = report.errors.find((e) => /dependency cycle/.test(e.message))!;
  assert.match(cycle.location, /^derivations\[[12]\]\.expr$/);
  assert.match(cycle.message, /\$\.subtotal \(derivations\[1\]\.expr\)/);
  assert.match(cycle.message, /\$\.total \(derivations\[2\]\.expr\)/);
});
