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

Deno.test("two test cases with one description warn: a verification report names its cases by description", () => {
  const report = compile(spec({
    tests: [
      { description: "basic", given: { "$.qty": 1 }, expect: { "$.qty": 1 } },
      { given: { "$.qty": 2 }, expect: { "$.qty": 2 } },
      { given: { "$.qty": 3 }, expect: { "$.qty": 3 } },
      { description: "basic", given: { "$.qty": 4 }, expect: { "$.qty": 4 } },
      { description: "other", given: { "$.qty": 5 }, expect: { "$.qty": 5 } },
      { description: "basic", given: { "$.qty": 6 }, expect: { "$.qty": 6 } },
    ],
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings, [
    { location: "tests[3].description", message: "tests[0] has this description too" },
    { location: "tests[5].description", message: "tests[0] has this description too" },
  ]);
});
