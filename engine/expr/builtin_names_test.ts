import assert from "node:assert/strict";
import jsonata from "jsonata";
import { JSONATA_BUILTINS } from "./builtin_names.ts";

Deno.test("every listed name is a function of JSONata's own environment", async () => {
  for (const name of JSONATA_BUILTINS) {
    const value = await jsonata(`$${name}`).evaluate({});
    assert.equal((value as { _jsonata_function?: boolean })?._jsonata_function, true, `$${name}`);
  }
});

Deno.test("a name JSONata does not define is not listed", async () => {
  assert.equal(await jsonata("$sumOf").evaluate({}), undefined);
  assert.ok(!JSONATA_BUILTINS.has("sumOf"));
  assert.ok(!JSONATA_BUILTINS.has("const"));
});
