/** What a spec author is told about the mistakes specs are written with. */
import assert from "node:assert/strict";
import { compile } from "../_test_utils.ts";
import { spec } from "./test_support.ts";

const atLocation = (findings: { location: string; message: string }[], location: string) =>
  findings.filter((f) => f.location === location).map((f) => f.message);

Deno.test("an unknown constraint path is reported at the path, not at the expression", () => {
  const report = compile(spec({
    constraints: [
      { id: "guest", path: "$.guest", expr: "qty > 0", message: "m", policy: "flag" },
      { id: "both", path: ["$.qty", "$.gest"], expr: "qty > 0", message: "m", policy: "flag" },
    ],
  }));
  assert.match(atLocation(report.warnings, "constraints[0].path").join(), /'\$\.guest', which the schema/);
  assert.match(atLocation(report.warnings, "constraints[1].path[1]").join(), /'\$\.gest'/);
  assert.deepEqual(atLocation(report.warnings, "constraints[0].expr"), []);
});

Deno.test("a read of a constant the model does not define warns at the expression, with the nearest constant", () => {
  const report = compile(spec({
    constants: { taxRate: 0.2 },
    derivations: [
      { path: "$.tax", expr: "price * $const.taxrate" },
      { path: "$.fee", expr: "$const.taxRate + $const.shipping" },
    ],
  }));
  assert.match(
    atLocation(report.warnings, "derivations[0].expr").join(),
    /reads \$const\.taxrate at position \d+, which nothing defines: it is always undefined \(did you mean \$const\.taxRate\?\)/,
  );
  assert.deepEqual(atLocation(report.warnings, "derivations[1].expr").length, 1);
  assert.doesNotMatch(atLocation(report.warnings, "derivations[1].expr").join(), /taxRate|did you mean/);
});

Deno.test("$parent outside a per-element entry warns: it is always undefined there", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.subtotal", expr: "$parent.total" },
      { path: "$.items[*].double", expr: "$parent.qty * 2" },
    ],
  }));
  assert.match(
    atLocation(report.warnings, "derivations[0].expr").join(),
    /reads \$parent at position \d+, which only a per-element \(\[\*\]\) path binds: it is always undefined/,
  );
  assert.deepEqual(atLocation(report.warnings, "derivations[1].expr"), []);
});
