import assert from "node:assert/strict";
import { metaValueProblem } from "./meta_values.ts";

Deno.test("a refused meta value is quoted short in the problem, never whole", () => {
  const long = "x".repeat(100_000);
  assert.equal(
    metaValueProblem("minimum", long),
    `the value must be a number, not "${"x".repeat(1024)}… (100000 characters)"`,
  );
  const list = metaValueProblem("relevant", [long])!;
  assert.ok(list.length < 1200, `${list.length} characters`);
  assert.match(list, /^the value must be true or false, not "\[\\"x{1022}… \(100004 characters\)"$/);
  assert.equal(metaValueProblem("minimum", "3"), 'the value must be a number, not "3"');
  assert.match(
    metaValueProblem("pattern", `(${long}`)!,
    /^pattern "\(x{199}… \(100001 characters\)" is not usable: /,
  );
});
