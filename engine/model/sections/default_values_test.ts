import assert from "node:assert/strict";
import { compileValid } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

Deno.test("defaultValues rules compile with their path; $ seeds the root", () => {
  const model = compileValid(spec({
    defaultValues: [{ path: "$", expr: "{'qty': 1}" }, { path: "$.items[*]", expr: "{'qty': 0}" }],
  }));
  assert.deepEqual(model.defaults.map((d) => d.path), [[], ["items", -1]]);
});
