import assert from "node:assert/strict";
import { compile, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

Deno.test("$lookup( is a warning with its location; $eval an error (its reads are invisible)", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.a", expr: "$lookup($, 'qty')" },
      { path: "$.b", expr: "$eval('qty + 1')" },
      { path: "$.c", expr: "qty" },
    ],
  }));
  assert.deepEqual(locations(report.warnings), ["derivations[0].expr"]);
  assert.match(report.warnings[0].message, /can go stale/);
  assert.deepEqual(locations(report.errors), ["derivations[1].expr"]);
  assert.match(
    report.errors[0].message,
    /uses \$eval at position \d+: code made from a string is not allowed/,
  );
});
