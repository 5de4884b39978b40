import assert from "node:assert/strict";
import { compile, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

Deno.test("$lookup( and $eval( are warnings with their location", () => {
  const report = compile(spec({
    derivations: [
      { path: "$.a", expr: "$lookup($, 'qty')" },
      { path: "$.b", expr: "$eval('qty + 1')" },
      { path: "$.c", expr: "qty" },
    ],
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(locations(report.warnings), ["derivations[0].expr", "derivations[1].expr"]);
  assert.match(report.warnings[0].message, /can go stale/);
});
