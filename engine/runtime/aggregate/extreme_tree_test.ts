import assert from "node:assert/strict";
import { Random } from "../../expr/compiled/test_support.ts";
import { ExtremeTree } from "./extreme_tree.ts";

Deno.test("max and min trees agree with Math.max/Math.min over the present values after every update", () => {
  const random = new Random(3);
  for (const kind of ["max", "min"] as const) {
    for (const length of [0, 1, 2, 5, 64, 100]) {
      const values = Float64Array.from({ length }, () => random.chance(0.2) ? NaN : random.int(50) - 25);
      const tree = new ExtremeTree(kind, values.slice());
      const expected = () => {
        const present = Array.from(values).filter((v) => !Number.isNaN(v));
        return present.length ? (kind === "max" ? Math.max(...present) : Math.min(...present)) : tree.value;
      };
      assert.ok(Object.is(tree.value, expected()));
      for (let step = 0; length > 0 && step < 200; step++) {
        const index = random.int(length);
        values[index] = random.chance(0.2) ? NaN : random.pick([-0, 0, random.int(100) - 50, random.next()]);
        tree.set(index, values[index]);
        assert.ok(Object.is(tree.value, expected()), `${kind}/${length} step ${step}`);
      }
    }
  }
});

Deno.test("no present value leaves the identity", () => {
  assert.equal(new ExtremeTree("max", Float64Array.from([NaN, NaN])).value, -Infinity);
  assert.equal(new ExtremeTree("min", new Float64Array(0)).value, Infinity);
});
