/**
 * Audit operations: the records of a model, newest first, and the chain check.
 *
 * @module
 */
import { z } from "zod";
import { formatPath } from "../json/path.ts";
import { resolveAddress } from "../runtime/runtime.ts";
import { UNKNOWN_MODEL } from "./models.ts";
import { apiOperation } from "./operation.ts";
import { AUDIT_RECORD, AUDIT_VERIFICATION, INSTANT, MODEL_ID } from "./schemas.ts";

/** `GET /models/{id}/audit`. */
export const getAudit = apiOperation({
  name: "getAudit",
  summary: "audit records, newest first",
  input: () =>
    z.object({
      id: MODEL_ID(),
      pathPrefix: z.string().describe(
        "keep records whose mutations or derived paths start with this address (unrooted `qty` is `$.qty`)",
      )
        .optional(),
      from: INSTANT().describe("ISO-8601 lower bound (inclusive)").optional(),
      to: INSTANT().describe("ISO-8601 upper bound (exclusive)").optional(),
      before: z.int().min(0).describe(
        "only records whose sequence is below N: the page after one ending at N (commits may share a timestamp)",
      ).optional(),
      limit: z.int().min(1).max(10000).describe("at most N records (default 100)").optional(),
    }),
  output: () => z.array(AUDIT_RECORD()),
  // The prefix is read as state/{path} reads an address: unrooted canonicalised, malformed a 400.
  run: (api, { id, pathPrefix, ...params }) =>
    api.getAudit(id, {
      ...params,
      pathPrefix: pathPrefix === undefined ? undefined : formatPath(resolveAddress(pathPrefix)),
    }),
  rest: {
    method: "get",
    path: "/models/{id}/audit",
    tag: "audit",
    query: { pathPrefix: "path", from: "from", to: "to", before: "before", limit: "limit" },
    errors: {
      400: { description: "bad address, ISO-8601 timestamp, limit or a from after to" },
      404: UNKNOWN_MODEL,
    },
  },
  console: { command: "get-audit" },
  mcp: {
    tool: "get_audit",
    title: "Read the audit trail",
    description: "Audit records, newest first (default limit 100).",
    kind: "read",
    narrowingHint: "pass `limit`, `pathPrefix`, `from`, `to` or `before` to narrow the records",
  },
});

/** `GET /models/{id}/audit/verify`. */
export const verifyAudit = apiOperation({
  name: "verifyAudit",
  summary: "verify the audit hash chain",
  input: () => z.object({ id: MODEL_ID() }),
  output: AUDIT_VERIFICATION,
  run: (api, { id }) => api.verifyAudit(id),
  rest: { method: "get", path: "/models/{id}/audit/verify", tag: "audit", errors: { 404: UNKNOWN_MODEL } },
  console: { command: "verify-audit" },
  mcp: {
    tool: "verify_audit",
    title: "Verify the audit trail",
    description: "Checks the audit hash chain; reports valid, records checked and the first broken record.",
    kind: "read",
  },
});
