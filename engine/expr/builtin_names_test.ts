import assert from "node:assert/strict";
import jsonata from "jsonata";
import type { AstNode } from "./compiler.ts";
import { contextCall, JSONATA_BUILTINS } from "./builtin_names.ts";

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

/** The parameters of a JSONata signature (`<s-n?:s>`), each with its `?`, `+` or `-` marks. */
function parametersOf(signature: string): string[] {
  const params: string[] = [];
  let depth = 0;
  for (const char of signature.slice(1)) {
    if (depth === 0 && (char === ":" || char === ">")) break;
    if (depth === 0 && !/[?+\-<]/.test(char)) params.push(char);
    else params[params.length - 1] += char;
    if (char === "(" || char === "<") depth++;
    if (char === ")" || char === ">") depth--;
  }
  return params;
}

Deno.test("a built-in takes the context exactly when called with fewer arguments than its signature requires", async () => {
  const call = (name: string, count: number, applied = false): AstNode => ({
    type: "function",
    procedure: { type: "variable", value: name },
    arguments: Array.from({ length: count - (applied ? 1 : 0) }, () => ({ type: "number", value: 1 })),
  });
  for (const name of JSONATA_BUILTINS) {
    const { definition } = (await jsonata(`$${name}`).evaluate({})).signature as { definition: string };
    const params = parametersOf(definition);
    const required = params.some((p) => p.includes("-")) ? params.filter((p) => !p.includes("?")).length : 0;
    for (let count = 0; count <= params.length; count++) {
      const expected = count < required ? name : undefined;
      assert.equal(contextCall(call(name, count)), expected, `$${name} with ${count} (${definition})`);
      if (count > 0) assert.equal(contextCall(call(name, count, true), true), expected, `x ~> $${name}`);
    }
  }
  // `x ~> $f` calls $f(x)
  assert.equal(contextCall({ type: "variable", value: "substringBefore" }, true), "substringBefore");
  assert.equal(contextCall({ type: "variable", value: "trim" }, true), undefined);
  assert.equal(contextCall({ type: "variable", value: "trim" }), undefined);
});
