import assert from "node:assert/strict";
import jsonata from "jsonata";
import { BINARY_OPERATORS, negate } from "./operators.ts";

const OPERANDS: unknown[] = [undefined, 0, 2, 0.5, "", "b", "10", true, null, [1], { a: 1 }];

Deno.test("binary operators give JSONata's results, and bail where it fails", async () => {
  for (const [op, apply] of Object.entries(BINARY_OPERATORS)) {
    const expression = jsonata(`$l ${op} $r`);
    for (const l of OPERANDS) {
      for (const r of OPERANDS) {
        let expected: { value?: unknown; failed?: boolean };
        try {
          expected = { value: await expression.evaluate({}, { l, r }) };
        } catch {
          expected = { failed: true };
        }
        let actual: { value?: unknown; failed?: boolean };
        try {
          actual = { value: apply(l, r) };
        } catch {
          actual = { failed: true };
        }
        if (
          Array.isArray(l) !== Array.isArray(r) && typeof l === "object" && typeof r === "object" && l && r
        ) {
          continue; // an array against an object: bails by design (see values.ts)
        }
        assert.deepEqual(actual, expected, `${JSON.stringify(l)} ${op} ${JSON.stringify(r)}`);
      }
    }
  }
});

Deno.test("unary minus negates numbers only", () => {
  assert.equal(negate(2), -2);
  assert.equal(negate(undefined), undefined);
  assert.throws(() => negate("2"));
});
