import assert from "node:assert/strict";
import { compile, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

Deno.test("test cases need object given/expect with concrete addresses", () => {
  const report = compile(spec({
    tests: [{ given: [], expect: {} }, { given: {}, expect: { "$.items[*].qty": 1 } }, "nope"],
  }));
  assert.deepEqual(locations(report.errors), [
    "tests[0].given",
    "tests[1].expect['$.items[*].qty']",
    "tests[2]",
  ]);
  assert.match(report.errors[1].message, /concrete address without \[\*\]/);
});
