import assert from "node:assert/strict";
import { type ErrorKind, ServiceError, STATUS_OF_KIND } from "../engine/errors.ts";
import { toolFailure } from "../mcp/results.ts";
import { toolError } from "./mcp.ts";

Deno.test("toolError: the kind named by an svc mcp child wins over what the message suggests", () => {
  // Messages chosen to mislead the text heuristic (a 404 mentioning a queue, a 429 saying "not found").
  const cases: [ErrorKind, string][] = [
    ["not_found", "Model 'queue' not found"],
    ["too_many", "Too many writes queued: 'x' not found in time"],
    ["forbidden", "Model 'busy' is read-only"],
    ["version_conflict", "Stale version"],
    ["internal", "boom"],
  ];
  for (const [kind, message] of cases) {
    const error = toolError(toolFailure(new ServiceError(kind, message)));
    assert.equal(error.kind, kind, message);
    assert.equal(error.message, message);
  }
  for (const kind of Object.keys(STATUS_OF_KIND) as ErrorKind[]) {
    assert.equal(toolError(toolFailure(new ServiceError(kind, "m"))).kind, kind);
  }
  assert.equal(toolError(toolFailure(new Error("defect"))).kind, "internal");
});

Deno.test("toolError: from another MCP server (no kind, or an unknown one) the message decides", () => {
  const result = (text: string, meta?: Record<string, unknown>) => ({
    content: [{ type: "text" as const, text }],
    isError: true,
    ...meta ? { _meta: meta } : {},
  });
  assert.equal(toolError(result(JSON.stringify({ error: "Model 'x' not found" }))).kind, "not_found");
  assert.equal(toolError(result("Server busy")).kind, "too_many");
  assert.equal(toolError(result(JSON.stringify({ error: "Schema violation" }))).kind, "schema_violation");
  assert.equal(toolError(result("nope", { "svc/errorKind": "toString" })).kind, "bad_request");
  assert.equal(toolError(result("nope", { "svc/errorKind": 404 })).kind, "bad_request");
});
