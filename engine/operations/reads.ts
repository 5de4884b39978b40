/**
 * Read operations of one model: merged state (now or at a time), single
 * fields, history, effective schema, traces, dependency graph, verification
 * report, snapshot and restore.
 *
 * @module
 */
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { getInfo, QUEUE_FULL, UNKNOWN_MODEL } from "./models.ts";
import { apiOperation, localOperation } from "./operation.ts";
import { lazySchema } from "./json_schema.ts";
import {
  ADDRESS,
  BY_ID,
  EFFECTIVE_SCHEMA,
  GRAPH_VIEW,
  INSTANT,
  MODEL_ID,
  RESTORED,
  SNAPSHOT,
  STATE,
  TRACE_RECORD,
  VERIFICATION_REPORT,
} from "./schemas.ts";
import { narrowState } from "./state_view.ts";

const field = lazySchema(() => z.object({ id: MODEL_ID(), path: ADDRESS() }));

/** `GET /models/{id}/state`. */
export const getState = apiOperation({
  name: "getState",
  summary: "the merged document (optionally at an ISO-8601 time)",
  input: () =>
    z.object({
      id: MODEL_ID(),
      at: INSTANT().describe("ISO-8601 instant: the latest retained state at or before it").optional(),
      paths: z.array(ADDRESS()).describe("addresses of the subtrees to return").optional(),
      depth: z.int().min(0).describe("container levels below the root to expand").optional(),
    }),
  output: STATE,
  run: (api, { id, at }) => api.getState(id, at),
  rest: {
    method: "get",
    path: "/models/{id}/state",
    summary: "The merged document (lazy derivations evaluated); `at` reads retained history",
    tag: "state",
    query: { at: "at" },
    errors: {
      400: { description: "`at` is not an ISO-8601 timestamp" },
      404: { description: "unknown model, or no history at or before `at`" },
    },
  },
  console: { command: "get-state", args: ["id", "at"] },
  mcp: {
    tool: "get_state",
    title: "Read merged state",
    description: "The merged document (base fields with derived values spliced in). `paths` keeps only " +
      "those subtrees at their addresses (absent ones skipped); `depth` then collapses containers nested " +
      'deeper than it into markers such as "<object with 3 fields>"; `at` reads retained history.',
    kind: "read",
    present: (state, { paths, depth }) => narrowState(state, { paths, depth }),
    narrowingHint: "ask for less: pass `paths` (addresses of the subtrees you need) and/or `depth` " +
      "(containers deeper than it are collapsed to markers), or read single fields with get_field",
  },
});

/** `GET /models/{id}/state/{path}`: 404 when the field is absent. */
export const getField = apiOperation({
  name: "getField",
  summary: "one field of the merged document",
  input: field,
  run: (api, { id, path }) => api.getField(id, path),
  rest: {
    method: "get",
    path: "/models/{id}/state/{path}",
    tag: "state",
    errors: {
      400: { description: "malformed address" },
      404: { description: "unknown model or absent field" },
    },
  },
});

/**
 * A field for the protocol surfaces: unlike REST's 404, an absent field reads
 * as null; an unknown model still fails.
 */
export const readField = localOperation({
  name: "readField",
  summary: "one field of the merged document (null when absent)",
  input: field,
  run: async ({ invoke }, input) => {
    try {
      return await invoke(getField, input);
    } catch (err) {
      if (!(err instanceof ServiceError) || err.kind !== "not_found") throw err;
      await invoke(getInfo, { id: input.id });
      return null;
    }
  },
  console: { command: "get-field" },
  mcp: {
    tool: "get_field",
    title: "Read one field",
    description: "One field of the merged document (evaluates a lazy derivation); null when absent.",
    kind: "read",
    narrowingHint: "read a deeper address, or use get_state with `paths` and `depth`",
  },
});

/** `GET /models/{id}/history`. */
export const getHistory = apiOperation({
  name: "getHistory",
  summary: "ISO-8601 commit times of retained history, chronological",
  input: BY_ID,
  output: () => z.array(INSTANT()),
  run: (api, { id }) => api.getHistory(id),
  rest: { method: "get", path: "/models/{id}/history", tag: "state", errors: { 404: UNKNOWN_MODEL } },
  console: { command: "get-history" },
  mcp: {
    tool: "get_history",
    title: "List history",
    description: "ISO-8601 commit times of the retained history, chronological (use with get_state `at`).",
    kind: "read",
  },
});

/** `GET /models/{id}/schema/{path}`. */
export const getSchema = apiOperation({
  name: "getSchema",
  summary: "effective schema of a field (static schema with live meta values)",
  input: field,
  output: EFFECTIVE_SCHEMA,
  run: (api, { id, path }) => api.getSchema(id, path),
  rest: {
    method: "get",
    path: "/models/{id}/schema/{path}",
    operationId: "getEffectiveSchema",
    tag: "state",
    errors: { 400: { description: "malformed address" }, 404: UNKNOWN_MODEL },
  },
  console: { command: "get-schema" },
  mcp: {
    tool: "get_effective_schema",
    title: "Get a field's effective schema",
    description: "The field's JSON Schema overlaid with live meta values (minimum, readOnly, relevant, " +
      "required, ...).",
    kind: "read",
  },
});

/** `GET /models/{id}/explain/{path}`. */
export const explain = apiOperation({
  name: "explain",
  summary: "trace records of a field, a meta value (<address>#<property>), $constraint:<id> or $effect:<id>",
  input: () =>
    z.object({
      id: MODEL_ID(),
      path: ADDRESS().describe(
        "a field address, <address>#<property> for one of its meta values ($.qty#required), $constraint:<id> or " +
          "$effect:<id>",
      ),
      limit: z.int().min(0).describe("only the most recent N records").optional(),
    }),
  output: () => z.array(TRACE_RECORD()),
  run: (api, { id, path, limit }) => api.explain(id, path, limit),
  rest: {
    method: "get",
    path: "/models/{id}/explain/{path}",
    summary:
      "Trace records of a field, of a meta value (`<address>%23<property>`), or of `$constraint:<id>` " +
      "(`%24constraint%3A<id>`) or `$effect:<id>`",
    tag: "state",
    query: { limit: "limit" },
    errors: {
      400: { description: "malformed address or limit" },
      404: {
        description: "unknown model, or no such field (in the schema or derived), constraint or effect",
      },
    },
  },
  console: { command: "explain" },
  mcp: {
    tool: "explain",
    title: "Explain a field",
    description: "Trace records (expression, input paths, result, error), oldest first, of a field " +
      "($.total), of one of its meta values (<address>#<property>: $.qty#required, $.qty#maximum), of " +
      "$constraint:<id> or of $effect:<id>. `limit` keeps the most recent N. [] when nothing computed it " +
      "yet; a target the model does not have (no such field in its schema or derived, constraint or effect) " +
      "is an error naming it.",
    kind: "read",
    narrowingHint: "pass `limit` to keep only the most recent trace records",
  },
});

/** `GET /models/{id}/graph`. */
export const getGraph = apiOperation({
  name: "getGraph",
  summary: "dependency graph: nodes, edges, levels",
  input: BY_ID,
  output: GRAPH_VIEW,
  run: (api, { id }) => api.getGraph(id),
  rest: { method: "get", path: "/models/{id}/graph", tag: "state", errors: { 404: UNKNOWN_MODEL } },
  console: { command: "get-graph" },
});

/** `GET /models/{id}/verification`. */
export const getVerification = apiOperation({
  name: "getVerification",
  summary: "verification report of the embedded tests (cached per version)",
  input: BY_ID,
  output: VERIFICATION_REPORT,
  run: (api, { id }) => api.getVerification(id),
  rest: { method: "get", path: "/models/{id}/verification", tag: "state", errors: { 404: UNKNOWN_MODEL } },
  console: { command: "get-verification" },
});

/** `POST /models/{id}/snapshot`. */
export const snapshot = apiOperation({
  name: "snapshot",
  summary: "an immutable copy of state",
  input: BY_ID,
  output: SNAPSHOT,
  run: (api, { id }) => api.snapshot(id),
  rest: { method: "post", path: "/models/{id}/snapshot", tag: "snapshots", errors: { 404: UNKNOWN_MODEL } },
  console: { command: "snapshot" },
  mcp: {
    tool: "snapshot",
    title: "Snapshot state",
    description: "An immutable copy of the model's state, to pass back verbatim to restore.",
    kind: "read",
    narrowingHint: "a snapshot is the whole state; read it in parts with get_state `paths` and `depth`",
  },
});

/** `POST /models/{id}/restore`. */
export const restore = apiOperation({
  name: "restore",
  summary: "restore a snapshot, values computed by the live spec (not audited; clears history and traces)",
  input: () =>
    z.object({
      id: MODEL_ID(),
      snapshot: z.record(z.string(), z.unknown()).describe("a snapshot exactly as returned by snapshot"),
    }),
  run: (api, { id, snapshot }) => api.restore(id, snapshot),
  rest: {
    method: "post",
    path: "/models/{id}/restore",
    tag: "snapshots",
    body: { member: "snapshot", description: "a snapshot as returned by snapshot" },
    status: 204,
    errors: {
      400: { description: "malformed JSON or not an object" },
      404: UNKNOWN_MODEL,
      422: { description: "snapshot of another model, or its base document violates the schema" },
      429: QUEUE_FULL,
    },
  },
  console: { command: "restore", present: () => ({ restored: true }) },
  mcp: {
    tool: "restore",
    title: "Restore a snapshot",
    description:
      "Replace the model's state with a snapshot taken by the snapshot tool; derived and meta values are computed anew by the current spec.",
    kind: "write",
    idempotent: true,
    present: () => ({ restored: true }),
    output: RESTORED,
  },
});
