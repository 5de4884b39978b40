import assert from "node:assert/strict";
import { checkInput } from "../engine/operations/input.ts";
import { TOOLS } from "./tools.ts";

Deno.test("every tool's inputSchema refuses other properties, as the call does", () => {
  for (const tool of TOOLS) {
    assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    assert.throws(
      () => checkInput(tool.op, { foo: 1 }, { args: tool.args, strictFor: tool.name }),
      /Unknown argument 'foo'/,
      tool.name,
    );
  }
});

Deno.test("every tool argument is described, a published schema's too (test_spec's tests)", () => {
  for (const tool of TOOLS) {
    for (
      const [name, schema] of Object.entries(
        tool.inputSchema.properties as Record<string, { description?: string }>,
      )
    ) {
      assert.ok(schema.description, `${tool.name}.${name} has no description`);
    }
  }
});
