import assert from "node:assert/strict";
import { jsonLanguage } from "@codemirror/lang-json";
import { locate, locationSegments } from "./spec_locations.ts";

Deno.test("a finding location's quoted member is one member, dots and brackets included", () => {
  assert.deepEqual(locationSegments("derivations[0].expr"), ["derivations", 0, "expr"]);
  assert.deepEqual(locationSegments("tests[3].given['$.items[0].text']"), [
    "tests",
    3,
    "given",
    "$.items[0].text",
  ]);
  assert.deepEqual(locationSegments("tests[0].expect['principal']"), ["tests", 0, "expect", "principal"]);
});

Deno.test("a finding at a test's address marks that address's value, not the whole given", () => {
  const text = JSON.stringify({ tests: [{ given: { "$.qty": 1, "$.a.b": 22 }, expect: {} }] });
  const range = locate(jsonLanguage.parser.parse(text), text, "tests[0].given['$.a.b']");
  assert.equal(text.slice(range.from, range.to), "22");
});
