import assert from "node:assert/strict";
import { Random } from "../../expr/compiled/test_support.ts";
import { InOrderSum, lowestBitExponent } from "./in_order_sum.ts";

/** JSONata's `$sum`: the left fold from +0, in order. */
const fold = (values: ArrayLike<number>) => Array.from(values).reduce((total, v) => total + v, 0);

Deno.test("lowestBitExponent finds the lowest set bit of normal and subnormal doubles", () => {
  assert.equal(lowestBitExponent(1), 0);
  assert.equal(lowestBitExponent(12), 2);
  assert.equal(lowestBitExponent(0.25), -2);
  assert.equal(lowestBitExponent(-0.75), -2);
  assert.equal(lowestBitExponent(2 ** 60 + 2 ** 10), 10);
  assert.equal(lowestBitExponent(Number.MIN_VALUE), -1074);
  assert.equal(lowestBitExponent(3 * Number.MIN_VALUE), -1074);
  assert.equal(lowestBitExponent(Number.MAX_VALUE), 971);
  assert.equal(lowestBitExponent(0.1), -55);
});

/** Value families: exact ones (the O(1) regime) and rounding ones (decimal fractions, wide magnitudes). */
const FAMILIES: Record<string, (random: Random) => number> = {
  integers: (r) => r.int(2001) - 1000,
  quarters: (r) => (r.int(4001) - 2000) / 4,
  cents: (r) => r.int(100_000) / 100,
  decimals: (r) => Math.round((r.next() * 200 - 100) * 1000) / 1000,
  wide: (r) => (r.next() - 0.5) * 10 ** (r.int(40) - 20),
  huge: (r) => r.pick([2 ** 53, 1, -1, 2 ** 52 + 1, 0.5, -(2 ** 53)]),
  zeros: (r) => r.pick([0, -0, 0, 1]),
  mixed: (r) => r.chance(0.5) ? r.int(100) : r.int(1000) / 10,
};

Deno.test("every update gives exactly the in-order fold, for every value family", () => {
  const random = new Random(7);
  for (const [name, draw] of Object.entries(FAMILIES)) {
    for (const length of [0, 1, 2, 17, 300]) {
      const values = Float64Array.from({ length }, () => draw(random));
      const sum = new InOrderSum(values.slice());
      const mirror = values.slice();
      assert.ok(Object.is(sum.value, fold(mirror)), `${name}/${length}: initial`);
      for (let step = 0; length > 0 && step < 400; step++) {
        const index = random.int(length);
        const value = random.chance(0.1) ? 0 : draw(random);
        mirror[index] = value;
        sum.set(index, value);
        if (random.chance(0.3)) continue; // several changes before a read
        assert.ok(
          Object.is(sum.value, fold(mirror)),
          `${name}/${length} step ${step}: ${sum.value} ≠ ${fold(mirror)}`,
        );
      }
      assert.ok(Object.is(sum.value, fold(mirror)), `${name}/${length}: final`);
    }
  }
});

Deno.test("integers, binary fractions and cents as integers stay in the O(1) regime", () => {
  const random = new Random(11);
  for (const draw of [FAMILIES.integers, FAMILIES.quarters, (r: Random) => r.int(10_000_000)]) {
    const sum = new InOrderSum(Float64Array.from({ length: 1000 }, () => draw(random)));
    for (let step = 0; step < 1000; step++) {
      sum.set(random.int(1000), draw(random));
      assert.ok(sum.exact, "no refold needed");
    }
  }
});

Deno.test("decimal fractions leave the O(1) regime and come back when the values allow", () => {
  const sum = new InOrderSum(Float64Array.from([1, 2, 3]));
  assert.ok(sum.exact);
  sum.set(1, 0.1);
  assert.ok(!sum.exact);
  assert.equal(sum.value, 1 + 0.1 + 3);
  sum.set(1, 2);
  assert.equal(sum.value, 6);
  assert.ok(sum.exact, "the refold recertifies");
  sum.set(0, 10);
  assert.ok(sum.exact);
  assert.equal(sum.value, 15);
});

Deno.test("a sum near 2^53 refolds rather than rounding differently from the fold", () => {
  const values = Float64Array.from([2 ** 53, 1, 1]);
  const sum = new InOrderSum(values.slice());
  assert.equal(sum.value, fold(values));
  sum.set(2, -1);
  values[2] = -1;
  assert.ok(Object.is(sum.value, fold(values)));
});
