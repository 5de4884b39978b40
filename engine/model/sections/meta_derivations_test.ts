import assert from "node:assert/strict";
import { compile, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

Deno.test("meta derivations: property must be known; one meta per path#property", () => {
  const report = compile(spec({
    metaDerivations: [
      { path: "$.qty", property: "minimum", expr: "0" },
      { path: "$.qty", property: "colour", expr: "'red'" },
      { path: "$.qty", property: "minimum", expr: "1" },
    ],
  }));
  assert.deepEqual(locations(report.errors), ["metaDerivations[1].property", "metaDerivations[2]"]);
  assert.match(report.errors[0].message, /property must be one of required, minimum/);
  assert.match(report.errors[1].message, /two meta derivations compute \$\.qty#minimum/);
});

Deno.test("an unknown meta property suggests the one an author means: Required, visible, hidden, disabled", () => {
  for (
    const [property, meant] of [
      ["Required", "required"],
      ["readonly", "readOnly"],
      ["visible", "relevant"],
      ["hidden", "relevant"],
      ["disabled", "readOnly"],
      ["editable", "readOnly"],
    ]
  ) {
    const report = compile(spec({ metaDerivations: [{ path: "$.qty", property, expr: "true" }] }));
    assert.match(
      report.errors[0].message,
      new RegExp(`must be one of .* \\(did you mean '${meant}'\\?\\)$`),
      property,
    );
  }
});
