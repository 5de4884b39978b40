import assert from "node:assert/strict";
import { constraintViolation, notFound, ServiceError, versionConflict } from "../engine/errors.ts";
import { committedSuccess, RESULT_LIMIT_CHARS, toolFailure, toolSuccess } from "./results.ts";

Deno.test("a success is pretty JSON text, with structuredContent only for objects", () => {
  assert.deepEqual(toolSuccess({ a: 1 }), {
    content: [{ type: "text", text: '{\n  "a": 1\n}' }],
    structuredContent: { a: 1 },
    isError: false,
  });
  assert.deepEqual(toolSuccess(["x"]), {
    content: [{ type: "text", text: '[\n  "x"\n]' }],
    isError: false,
  });
  assert.deepEqual(toolSuccess(undefined).content, [{ type: "text", text: "null" }]);
});

Deno.test("failures carry the service's structured bodies, or {error}", () => {
  const rollback = toolFailure(
    constraintViolation([{ constraintId: "c", message: "m", policy: "rollback" }]),
  );
  assert.equal(rollback.isError, true);
  assert.deepEqual(rollback.structuredContent, {
    error: "Constraint violation",
    violations: [{ constraintId: "c", message: "m", policy: "rollback" }],
  });
  assert.deepEqual(toolFailure(versionConflict("1.0.0", "1.1.0")).structuredContent, {
    error: "Version conflict",
    expected: "1.0.0",
    actual: "1.1.0",
  });
  assert.deepEqual(toolFailure(notFound("Model 'x' not found")).structuredContent, {
    error: "Model 'x' not found",
  });
  assert.deepEqual(toolFailure(new Error("boom")).structuredContent, { error: "boom" });
});

Deno.test("a result over the limit is withheld with its size and a hint", () => {
  const result = toolSuccess({ big: "x".repeat(RESULT_LIMIT_CHARS) }, "pass `depth`");
  assert.equal(result.isError, true);
  const body = result.structuredContent as Record<string, unknown>;
  assert.equal(body.error, "Result too large");
  assert.equal(body.limitChars, RESULT_LIMIT_CHARS);
  assert.ok((body.resultChars as number) > RESULT_LIMIT_CHARS);
  assert.match(body.hint as string, /depth/);
  assert.match(
    (toolSuccess(["y".repeat(RESULT_LIMIT_CHARS)]).structuredContent as {
      hint: string;
    }).hint,
    /narrow/,
  );
  // A tool with a larger limit (download_blob) gets the same value whole, and the limit named when over it.
  assert.equal(
    toolSuccess({ big: "x".repeat(RESULT_LIMIT_CHARS) }, undefined, 2 * RESULT_LIMIT_CHARS).isError,
    false,
  );
  assert.equal(
    (toolSuccess(["x".repeat(200)], undefined, 100).structuredContent as { limitChars: number }).limitChars,
    100,
  );
  const failed = toolFailure(new ServiceError("constraint_violation", "m", { state: "z".repeat(60_000) }));
  assert.equal((failed.structuredContent as { error: string }).error, "Result too large");
});

Deno.test("a committed write's result over the limit is cut, never withheld: traces first, then long lists", () => {
  const paths = Array.from({ length: 4000 }, (_, i) => `$.field_${i}`);
  const write = {
    success: true,
    mutatedPaths: paths,
    derivedUpdated: ["$.d"],
    traces: [{ t: "x".repeat(100) }],
  };
  const result = committedSuccess(write);
  assert.equal(result.isError, false);
  assert.ok((result.content[0] as { text: string }).text.length <= RESULT_LIMIT_CHARS);
  const body = result.structuredContent as Record<string, unknown> & { mutatedPaths: string[] };
  assert.equal(body.truncated, true);
  assert.equal(body.traces, undefined);
  assert.deepEqual(body.derivedUpdated, ["$.d"]);
  assert.deepEqual(body.mutatedPaths, paths.slice(0, body.mutatedPaths.length));
  assert.deepEqual(body.omitted, { traces: 1, mutatedPaths: 4000 - body.mutatedPaths.length });
  assert.match(body.note as string, /committed.*read the state/);
  // Dropping traces alone may be enough; a result that fits is untouched.
  const traced = committedSuccess({ success: true, traces: ["y".repeat(RESULT_LIMIT_CHARS)] });
  assert.deepEqual(traced.structuredContent, {
    success: true,
    truncated: true,
    omitted: { traces: 1 },
    note:
      "the write committed; 1 traces not listed; read the state (get_state, get_field) or explain for them",
  });
  assert.deepEqual(committedSuccess({ success: true }), toolSuccess({ success: true }));
});
