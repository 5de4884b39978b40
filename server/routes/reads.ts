/**
 * Read routes of one model: merged state (now or at a time), single fields,
 * history, effective schema, traces, dependency graph, verification report,
 * snapshot and restore.
 *
 * @module
 */
import { ref } from "./schemas.ts";
import {
  ID_PARAM,
  intQuery,
  jsonBody,
  jsonResponse,
  modelId,
  PATH_PARAM,
  problem,
  readJson,
  type Route,
  UNKNOWN_MODEL,
} from "./route.ts";

const ISO_QUERY = (name: string, description: string) => ({
  name,
  in: "query" as const,
  description,
  schema: { type: "string", format: "date-time" },
});

/** Read routes. */
export const READ_ROUTES: Route[] = [
  {
    method: "get",
    path: "/models/{id}/state",
    operationId: "getState",
    summary: "The merged document (lazy derivations evaluated); `at` reads retained history",
    tag: "state",
    parameters: [ID_PARAM, ISO_QUERY("at", "ISO-8601 instant: the latest retained state at or before it")],
    responses: {
      200: jsonResponse("merged document", { type: "object" }),
      400: problem("`at` is not an ISO-8601 timestamp"),
      404: problem("unknown model, or no history at or before `at`"),
    },
    handle: async (c, { service }) => c.json(await service.getState(modelId(c), c.req.query("at"))),
  },
  {
    method: "get",
    path: "/models/{id}/state/{path}",
    operationId: "getField",
    summary: "One field of the merged document",
    tag: "state",
    parameters: [ID_PARAM, PATH_PARAM],
    responses: {
      200: jsonResponse("the field's value", {}),
      400: problem("malformed address"),
      404: problem("unknown model or absent field"),
    },
    handle: async (c, { service }) => c.json(await service.getField(modelId(c), c.req.param("path") ?? "")),
  },
  {
    method: "get",
    path: "/models/{id}/history",
    operationId: "getHistory",
    summary: "ISO-8601 commit times of retained history, chronological",
    tag: "state",
    parameters: [ID_PARAM],
    responses: {
      200: jsonResponse("timestamps", { type: "array", items: { type: "string", format: "date-time" } }),
      404: UNKNOWN_MODEL,
    },
    handle: async (c, { service }) => c.json(await service.getHistory(modelId(c))),
  },
  {
    method: "get",
    path: "/models/{id}/schema/{path}",
    operationId: "getEffectiveSchema",
    summary: "Effective JSON Schema of a field, overlaid with live meta values",
    tag: "state",
    parameters: [ID_PARAM, PATH_PARAM],
    responses: {
      200: jsonResponse("schema fragment", { type: "object" }),
      400: problem("malformed address"),
      404: UNKNOWN_MODEL,
    },
    handle: async (c, { service }) => c.json(await service.getSchema(modelId(c), c.req.param("path") ?? "")),
  },
  {
    method: "get",
    path: "/models/{id}/explain/{path}",
    operationId: "explain",
    summary: "Trace records of a field, or of `$constraint:<id>` (`%24constraint%3A<id>`)",
    tag: "state",
    parameters: [ID_PARAM, PATH_PARAM, {
      name: "limit",
      in: "query",
      description: "only the most recent N records",
      schema: { type: "integer", minimum: 0 },
    }],
    responses: {
      200: jsonResponse("trace records", { type: "array", items: ref("TraceRecord") }),
      400: problem("malformed address or limit"),
      404: UNKNOWN_MODEL,
    },
    handle: async (c, { service }) =>
      c.json(await service.explain(modelId(c), c.req.param("path") ?? "", intQuery(c, "limit"))),
  },
  {
    method: "get",
    path: "/models/{id}/graph",
    operationId: "getGraph",
    summary: "Dependency graph projection: nodes, edges, levels",
    tag: "state",
    parameters: [ID_PARAM],
    responses: { 200: jsonResponse("graph", ref("GraphView")), 404: UNKNOWN_MODEL },
    handle: async (c, { service }) => c.json(await service.getGraph(modelId(c))),
  },
  {
    method: "get",
    path: "/models/{id}/verification",
    operationId: "getVerification",
    summary: "Verification report of the embedded tests (cached per version)",
    tag: "state",
    parameters: [ID_PARAM],
    responses: { 200: jsonResponse("report", ref("VerificationReport")), 404: UNKNOWN_MODEL },
    handle: async (c, { service }) => c.json(await service.getVerification(modelId(c))),
  },
  {
    method: "get",
    path: "/models/{id}/audit",
    operationId: "getAudit",
    summary: "Audit records, newest first",
    tag: "audit",
    parameters: [
      ID_PARAM,
      {
        name: "path",
        in: "query",
        description: "keep records whose mutations or derived paths start with this address",
        schema: { type: "string" },
      },
      ISO_QUERY("from", "inclusive lower bound"),
      ISO_QUERY("to", "exclusive upper bound"),
      {
        name: "limit",
        in: "query",
        description: "at most N records (default 100, max 10000)",
        schema: { type: "integer", minimum: 1, maximum: 10000, default: 100 },
      },
    ],
    responses: {
      200: jsonResponse("records", { type: "array", items: ref("AuditRecord") }),
      400: problem("bad ISO-8601 timestamp or limit"),
      404: UNKNOWN_MODEL,
    },
    handle: async (c, { service }) =>
      c.json(
        await service.getAudit(modelId(c), {
          pathPrefix: c.req.query("path"),
          from: c.req.query("from"),
          to: c.req.query("to"),
          limit: intQuery(c, "limit"),
        }),
      ),
  },
  {
    method: "get",
    path: "/models/{id}/audit/verify",
    operationId: "verifyAudit",
    summary: "Verify the audit hash chain",
    tag: "audit",
    parameters: [ID_PARAM],
    responses: { 200: jsonResponse("verification", ref("AuditVerification")), 404: UNKNOWN_MODEL },
    handle: async (c, { service }) => c.json(await service.verifyAudit(modelId(c))),
  },
  {
    method: "post",
    path: "/models/{id}/snapshot",
    operationId: "snapshot",
    summary: "An immutable copy of state",
    tag: "snapshots",
    parameters: [ID_PARAM],
    responses: { 200: jsonResponse("snapshot", ref("Snapshot")), 404: UNKNOWN_MODEL },
    handle: async (c, { service }) => c.json(await service.snapshot(modelId(c))),
  },
  {
    method: "post",
    path: "/models/{id}/restore",
    operationId: "restore",
    summary: "Restore a snapshot (not audited; clears history and traces)",
    tag: "snapshots",
    parameters: [ID_PARAM],
    requestBody: { description: "a snapshot as returned by snapshot", content: jsonBody(ref("Snapshot")) },
    responses: {
      204: { description: "restored" },
      400: problem("malformed JSON or not an object"),
      404: UNKNOWN_MODEL,
      422: problem("snapshot of another model, or its base document violates the schema"),
    },
    handle: async (c, { service }) => {
      await service.restore(modelId(c), await readJson(c));
      return c.body(null, 204);
    },
  },
];
