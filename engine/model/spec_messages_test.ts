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
