/**
 * Write operations: a flat mutation map and an RFC 6902 JSON Patch.
 *
 * @module
 */
import { z } from "zod";
import type { WriteResult } from "../service/api.ts";
import { QUEUE_FULL } from "./models.ts";
import { apiOperation, type ErrorDoc } from "./operation.ts";
import { lazySchema } from "./json_schema.ts";
import {
  CONSTRAINT_VIOLATION_BODY,
  JSON_PATCH,
  MODEL_ID,
  MUTATION_RESULT,
  MUTATIONS,
  PROBLEM,
  SCHEMA_VIOLATION_BODY,
} from "./schemas.ts";

const WRITE_ERRORS: Record<number, ErrorDoc> = {
  400: { description: "malformed JSON or body of the wrong shape" },
  404: { description: "unknown model, or the X-View view is unknown (nothing applied)" },
  409: { description: "a rollback constraint failed; nothing was applied", body: CONSTRAINT_VIOLATION_BODY },
  422: {
    description: "schema violation (nothing applied), or array index beyond the limit",
    body: [SCHEMA_VIOLATION_BODY, PROBLEM],
  },
  429: QUEUE_FULL,
};

const viewId = lazySchema(() =>
  z.string().describe("a view id: the result then carries `viewDelta` for that view").optional()
);
const includeTraces = lazySchema(() =>
  z.boolean().describe(
    "also return the trace record of every expression evaluated (large; default false)",
  ).optional()
);

/** A write's result for an agent: traces only when asked for (SPEC.md "MutationResponse"). */
function withoutTracesUnlessAsked(result: WriteResult, input: { includeTraces?: boolean }): unknown {
  if (input.includeTraces === true) return result;
  const { traces: _traces, ...rest } = result;
  return rest;
}

/** `POST /models/{id}/mutations`. */
export const mutate = apiOperation({
  name: "mutate",
  summary: "write base fields: {address: value}",
  input: () =>
    z.object({ id: MODEL_ID(), mutations: MUTATIONS(), viewId: viewId(), includeTraces: includeTraces() }),
  output: MUTATION_RESULT,
  run: (api, { id, mutations, viewId }) => api.mutate(id, mutations, { viewId }),
  rest: {
    method: "post",
    path: "/models/{id}/mutations",
    summary: "Write base fields: a flat map of canonical address to value",
    tag: "mutations",
    headers: { viewId: "X-View" },
    body: { member: "mutations", description: "address -> value" },
    errors: WRITE_ERRORS,
  },
  console: { command: "mutate", args: ["id", "mutations"] },
  mcp: {
    tool: "mutate",
    title: "Write base fields",
    description: "Write base fields in one transaction: schema check, derivations, meta, constraints, " +
      "effects, then commit or roll back as a whole. Returns mutatedPaths, derivedUpdated, metaUpdated, " +
      "flaggedConstraints and dispatchedEffects.",
    kind: "write",
    args: ["id", "mutations", "includeTraces"],
    present: withoutTracesUnlessAsked,
  },
});

/** `POST /models/{id}/mutations/patch`. */
export const patch = apiOperation({
  name: "patch",
  summary: "apply an RFC 6902 JSON Patch",
  input: () =>
    z.object({ id: MODEL_ID(), patch: JSON_PATCH(), viewId: viewId(), includeTraces: includeTraces() }),
  output: MUTATION_RESULT,
  run: (api, { id, patch, viewId }) => api.patch(id, patch, { viewId }),
  rest: {
    method: "post",
    path: "/models/{id}/mutations/patch",
    operationId: "patchModel",
    summary: "Apply an RFC 6902 JSON Patch (array insert, remove, reorder)",
    tag: "mutations",
    headers: { viewId: "X-View" },
    body: {
      member: "patch",
      description: "RFC 6902 operations",
      mediaTypes: ["application/json-patch+json", "application/json"],
    },
    errors: WRITE_ERRORS,
  },
  console: { command: "patch-mutate", args: ["id", "patch"] },
  mcp: {
    tool: "patch_model",
    title: "Apply a JSON Patch",
    description: "Apply an RFC 6902 JSON Patch (array insert, remove, reorder) as one transaction; " +
      "same result as mutate.",
    kind: "write",
    args: ["id", "patch", "includeTraces"],
    present: withoutTracesUnlessAsked,
  },
});
