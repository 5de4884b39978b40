import assert from "node:assert/strict";
import { compile, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

Deno.test("constraints: id, message and policy are required; ids unique; [*] takes one path", () => {
  const report = compile(spec({
    constraints: [
      { expr: "true", message: "m", policy: "flag" },
      { id: "a", expr: "true", policy: "flag" },
      { id: "a", expr: "true", message: "m", policy: "rollback" },
      { id: "b", path: ["$.items[*]", "$.qty"], expr: "true", message: "m", policy: "flag" },
      { id: "c", expr: "true", message: "m" },
    ],
  }));
  assert.deepEqual(locations(report.errors), [
    "constraints[0].id",
    "constraints[1].message",
    "constraints[2].id",
    "constraints[3].path",
    "constraints[4].policy",
  ]);
  assert.match(report.errors[2].message, /duplicate constraint id 'a'/);
  assert.match(report.errors[3].message, /exactly one path/);
});
