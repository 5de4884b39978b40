import assert from "node:assert/strict";
import { compileValid } from "../_test_utils.ts";
import { strandedValues } from "./stranded_values.ts";

/** A spec whose fields are named like schema keywords, each an object that requires `x` (a number). */
const KEYWORD_NAMED = {
  id: "named",
  schema: {
    type: "object",
    properties: Object.fromEntries(
      ["const", "default", "enum", "examples", "required"].map((name) => [
        name,
        { type: "object", properties: { x: { type: "number" } }, required: ["x"] },
      ]),
    ),
    required: ["const"],
  },
};

Deno.test("stranded values ignore completeness inside fields named like data keywords (const, default, …)", () => {
  const model = compileValid(KEYWORD_NAMED);
  const incomplete = { const: {}, default: {}, enum: {}, examples: {}, required: {} };
  assert.deepEqual(strandedValues(model, incomplete), []);
  assert.deepEqual(strandedValues(model, {}), [], "the root's required is completeness too");
  const wrong = strandedValues(model, { const: { x: "one" }, default: { x: "two" } });
  assert.deepEqual(wrong.map((v) => v.path).sort(), ["$.const.x", "$.default.x"]);
});
