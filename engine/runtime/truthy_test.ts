import assert from "node:assert/strict";
import { truthy } from "./truthy.ts";

Deno.test("truthy follows JSONata's boolean casting", () => {
  for (const value of [true, 1, -1, "x", [0, 1], { a: 1 }, [[true]]]) {
    assert.equal(truthy(value), true, JSON.stringify(value));
  }
  for (const value of [false, 0, "", null, undefined, [], {}, [0, false, ""], () => true]) {
    assert.equal(truthy(value), false, String(value));
  }
});
