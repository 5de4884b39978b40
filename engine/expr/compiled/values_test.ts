import assert from "node:assert/strict";
import jsonata from "jsonata";
import { deepEqual, isFunctionLike, stringOf, toBoolean } from "./values.ts";

const VALUES: unknown[] = [
  0,
  1,
  -0.5,
  "",
  "a",
  true,
  false,
  null,
  [],
  [0],
  [0, 1],
  [[]],
  {},
  { a: 1 },
  0.1 + 0.2,
  1e21,
];

Deno.test("toBoolean is JSONata's $boolean", async () => {
  for (const value of VALUES) {
    assert.equal(
      toBoolean(value),
      await jsonata("$boolean($v)").evaluate({}, { v: value }),
      JSON.stringify(value),
    );
  }
  assert.equal(toBoolean(undefined), undefined);
});

Deno.test("stringOf is JSONata's $string", async () => {
  for (const value of VALUES) {
    assert.equal(
      stringOf(value),
      await jsonata("$string($v)").evaluate({}, { v: value }),
      JSON.stringify(value),
    );
    assert.equal(stringOf(value, true), await jsonata("$string($v, true)").evaluate({}, { v: value }));
  }
  assert.equal(stringOf({ _jsonata_function: true }), "");
});

Deno.test("deepEqual is JSONata's =, except that an array against an object bails", async () => {
  for (const a of VALUES) {
    for (const b of VALUES) {
      if (Array.isArray(a) !== Array.isArray(b) && typeof a === "object" && typeof b === "object" && a && b) {
        assert.throws(() => deepEqual(a, b));
        continue;
      }
      assert.equal(deepEqual(a, b), await jsonata("$a = $b").evaluate({}, { a, b }), `${a} = ${b}`);
    }
  }
});

Deno.test("isFunctionLike tells the objects JSONata treats as functions", () => {
  assert.ok(isFunctionLike({ _jsonata_lambda: true }));
  assert.ok(!isFunctionLike({ _jsonata_function: "yes" }));
});
