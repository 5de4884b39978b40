import assert from "node:assert/strict";
import { compile, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

Deno.test("two derivations may not target the same (or an overlapping) path", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.total", expr: "1" },
      { path: "$.total", expr: "2" },
      { path: "$.summary", expr: "{}" },
      { path: "$.summary.count", expr: "3" },
    ],
  }));
  assert.deepEqual(locations(report.errors), ["derivations[1].path", "derivations[3].path"]);
  assert.match(report.errors[0].message, /two derivations target the same path \$\.total/);
  assert.match(report.errors[1].message, /overlaps the derivation target \$\.summary/);
});

Deno.test("derivation targets: not the root, not a bare [*] nor an element, evaluation eager|lazy", () => {
  const report = compile(spec({
    derivations: [
      { path: "$", expr: "1" },
      { path: "$.items[*]", expr: "1" },
      { path: "$.xs[1]", expr: "1" },
      { path: "$.x", expr: "1", evaluation: "sometimes" },
    ],
  }));
  assert.deepEqual(locations(report.errors), [
    "derivations[0].path",
    "derivations[1].path",
    "derivations[2].path",
    "derivations[3].evaluation",
  ]);
  assert.match(report.errors[1].message, /must name a field of each element/);
  assert.match(
    report.errors[2].message,
    /'\$\.xs\[1\]' is an array element: a derivation targets a field of an object/,
  );
});

Deno.test("a spec's addresses may not lie deeper than svc.limits.max-depth (the document would)", () => {
  const deep = (levels: number) => "$" + ".a".repeat(levels);
  const report = compile(spec({
    derivations: [{ path: deep(128), expr: "1" }, { path: deep(129), expr: "1" }],
    defaultValues: [{ path: deep(20_000), expr: "1" }],
  }));
  assert.deepEqual(locations(report.errors), ["derivations[1].path", "defaultValues[0].path"]);
  assert.equal(report.errors[1].message, "the address is 20000 levels deep: svc.limits.max-depth is 128");
});
