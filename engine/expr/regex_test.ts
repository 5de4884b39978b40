import assert from "node:assert/strict";
import { ajvRegExpEngine, compilePattern, RegexLimitError, testPattern } from "./regex.ts";
import { SchemaIndex } from "../model/schema_index.ts";

const LIMITS = { maxInput: 10, timeoutMs: 1000, now: Date.now };

Deno.test("testPattern matches unanchored like JSON Schema", () => {
  assert.equal(testPattern("b", "abc", LIMITS), true);
  assert.equal(testPattern("^b", "abc", LIMITS), false);
});

Deno.test("testPattern refuses input longer than svc.limits.regex-max-input", () => {
  assert.throws(() => testPattern("a", "a".repeat(11), LIMITS), (err: unknown) => {
    assert.ok(err instanceof RegexLimitError);
    assert.match(err.message, /11 characters exceeds svc\.limits\.regex-max-input \(10\)/);
    return true;
  });
  assert.equal(testPattern("a", "a".repeat(10), LIMITS), true);
});

Deno.test("testPattern reports a match that overran svc.limits.regex-timeout-ms", () => {
  let t = 0;
  const slowClock = { maxInput: 100, timeoutMs: 5, now: () => (t += 10) };
  assert.throws(() => testPattern("a", "a", slowClock), /regex-timeout-ms \(5 ms\)/);
});

Deno.test("RE2 semantics: catastrophic patterns run in linear time; unsupported syntax is refused", () => {
  assert.equal(testPattern("^(a+)+$", "a".repeat(40) + "!", { ...LIMITS, maxInput: 100 }), false);
  assert.throws(() => compilePattern("(?<=a)b"));
});

Deno.test("the ajv engine gives each pattern its own identity (regression: patterns were shared)", () => {
  const engine = ajvRegExpEngine(LIMITS);
  assert.notEqual(String(engine("^a")), String(engine("^b")));
  const schema = new SchemaIndex({
    type: "object",
    properties: { a: { type: "string", pattern: "^a" }, b: { type: "string", pattern: "^b" } },
  }, LIMITS);
  assert.deepEqual(schema.validateAt(["a"], "apple"), []);
  assert.deepEqual(schema.validateAt(["b"], "banana"), []);
  assert.deepEqual(schema.validateAt(["a"], "banana").map((v) => v.keyword), ["pattern"]);
  assert.deepEqual(schema.validateAt(["b"], "apple").map((v) => v.keyword), ["pattern"]);
});
