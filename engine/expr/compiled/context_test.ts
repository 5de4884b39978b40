import assert from "node:assert/strict";
import { Context } from "./context.ts";

const limits = { maxDepth: 100, maxItems: 3, memoryBytes: 2000, maxSteps: 5 };

Deno.test("a context reads only its own bindings", () => {
  const context = new Context({}, { parent: 1 }, limits);
  assert.equal(context.variable("parent"), 1);
  assert.equal(context.variable("toString"), undefined);
  assert.equal(new Context({}, undefined, limits).variable("const"), undefined);
});

Deno.test("steps, sequence length and produced bytes past their limits bail", () => {
  const steps = new Context({}, undefined, limits);
  for (let i = 0; i < 5; i++) steps.exit(1);
  assert.throws(() => steps.exit(1));
  assert.throws(() => new Context({}, undefined, limits).exit([1, 2, 3, 4]));
  assert.throws(() => new Context({}, undefined, limits).checkItems([1, 2, 3, 4]));
  assert.throws(() => new Context({}, undefined, limits).exit("x".repeat(600)));
  new Context({}, undefined, limits).exit("x".repeat(64));
});
