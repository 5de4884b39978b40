import assert from "node:assert/strict";
import { constraintViolation, type ModelSpec, schemaViolation } from "../../engine/mod.ts";
import { messagesOfError } from "./messages.ts";

const spec = {
  id: "m",
  schema: {},
  constraints: [{ id: "size", path: "$.parcels[*]", expr: "true", message: "too big", policy: "rollback" }],
} as unknown as ModelSpec;

Deno.test("a schema violation lands at its path", () => {
  const err = schemaViolation([{ path: "$.qty", keyword: "minimum", message: "must be >= 0" }]);
  assert.deepEqual([...messagesOfError(err, spec, ["$.qty"], [])], [["$.qty", [{
    text: "must be >= 0",
    severity: "error",
  }]]]);
});

Deno.test("a constraint lands at written fields under its path, else at the written field, else the form", () => {
  const size = constraintViolation([{ constraintId: "size", message: "too big", policy: "rollback" }]);
  assert.deepEqual([...messagesOfError(size, spec, ["$.parcels[1].weightKg"], []).keys()], [
    "$.parcels[1].weightKg",
  ]);
  const other = constraintViolation([{ constraintId: "cap", message: "over", policy: "rollback" }]);
  assert.deepEqual([...messagesOfError(other, spec, ["$.qty"], []).keys()], ["$.qty"]);
  assert.deepEqual([...messagesOfError(other, spec, [], []).keys()], [""]);
  assert.deepEqual([...messagesOfError(new Error("offline"), spec, [], []).entries()], [["", [{
    text: "offline",
    severity: "error",
  }]]]);
});
