/**
 * The MCP tools (SPEC.md "MCP tools"): names, arguments, titles, annotations,
 * input and output schemas, and each handler as a thin mapping onto
 * {@link ModelApi} (through the operations catalog where the console command
 * behaves the same) or onto the local {@link AuthoringEngine}.
 *
 * `pair_browser` belongs to remote-with-browser mode and is not listed here.
 *
 * @module
 */
import { guidance, GUIDANCE_TOPIC_IDS, GUIDANCE_TOPICS } from "../engine/authoring/mod.ts";
import { MODEL_SPEC_SCHEMA } from "../engine/model/model_spec_schema.ts";
import { badRequest } from "../engine/errors.ts";
import { SPEC_EVOLUTION_SCHEMA } from "../engine/evolve/schema.ts";
import { isObject, type Json, type JsonObject } from "../engine/json/value.ts";
import { OPERATIONS } from "../engine/operations/catalog.ts";
import type { MutationResult, PatchOperation } from "../engine/runtime/results.ts";
import type { ModelApi } from "../engine/service/api.ts";
import type { AuthoringEngine } from "./authoring.ts";
import { OUTPUT_SCHEMAS } from "./output_schemas.ts";
import { narrowState } from "./state_view.ts";

/** What a tool handler works with. */
export interface ToolContext {
  /** The model registry: local service or remote client. */
  api: ModelApi;
  /** Pure authoring functions, always local. */
  authoring: AuthoringEngine;
}

/** MCP tool annotations (all four hints are always given). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** One tool: its listing and its handler. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObject;
  /** Declared only by tools that always return an object. */
  outputSchema?: JsonObject;
  annotations: ToolAnnotations;
  /** Runs the tool on checked arguments; the value becomes the result. */
  run(context: ToolContext, args: Record<string, unknown>): Promise<unknown>;
}

type Kind = "read" | "write" | "destructive";

/** Hints from the kind of tool: reads are read-only and idempotent. */
function hints(kind: Kind, idempotent: boolean): ToolAnnotations {
  return {
    readOnlyHint: kind === "read",
    destructiveHint: kind === "destructive",
    idempotentHint: kind === "read" || idempotent,
    openWorldHint: false,
  };
}

/** An object input schema; every property listed in `required` must be present. */
function input(properties: Record<string, JsonObject>, required: string[] = []): JsonObject {
  return { type: "object", properties, required, additionalProperties: false };
}

const id: JsonObject = { type: "string", description: "the model id" };
const path: JsonObject = {
  type: "string",
  description: "canonical JSON Path address such as $.total or $.items[0].qty",
};
const includeTraces: JsonObject = {
  type: "boolean",
  description: "also return the trace record of every expression evaluated (large; default false)",
};
const mutationsMap: JsonObject = {
  type: "object",
  description: 'map of canonical address to new value, e.g. {"$.qty": 3, "$.items[0].price": 9.5}',
  additionalProperties: true,
};

/** The console command's handler from the operations catalog (one behaviour, one place). */
function operation(command: string): (api: ModelApi, args: Record<string, unknown>) => Promise<unknown> {
  const op = OPERATIONS.find((o) => o.command === command);
  if (!op) throw new Error(`no operation '${command}' in the catalog`);
  return op.run;
}

/** A mutation result for MCP: traces only when asked for (SPEC.md "MutationResponse"). */
function mutationResult(result: MutationResult, withTraces: unknown): unknown {
  if (withTraces === true) return result;
  const { traces: _traces, ...rest } = result;
  return rest;
}

/** Every advertised tool, in listing order. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: "list_models",
    title: "List models",
    description: "Ids of every registered model, alphabetical.",
    inputSchema: input({}),
    annotations: hints("read", true),
    run: ({ api }) => api.listModels(),
  },
  {
    name: "create_model",
    title: "Create a model",
    description: "Register a model from a ModelSpec; returns its model info (id, version and section " +
      "counts). Check the spec with validate_spec / test_spec / dry_run first. A duplicate id fails.",
    inputSchema: input({ spec: MODEL_SPEC_SCHEMA }, ["spec"]),
    outputSchema: OUTPUT_SCHEMAS.modelInfo,
    annotations: hints("write", false),
    run: ({ api }, a) => api.createModel(a.spec),
  },
  {
    name: "get_model_info",
    title: "Get model info",
    description: "Model id, version and counts of derivations, meta derivations, constraints and effects.",
    inputSchema: input({ id }, ["id"]),
    outputSchema: OUTPUT_SCHEMAS.modelInfo,
    annotations: hints("read", true),
    run: ({ api }, a) => operation("get-info")(api, a),
  },
  {
    name: "get_spec",
    title: "Get the spec",
    description: "The stored ModelSpec of a model.",
    inputSchema: input({ id }, ["id"]),
    outputSchema: OUTPUT_SCHEMAS.spec,
    annotations: hints("read", true),
    run: ({ api }, a) => operation("get-spec")(api, a),
  },
  {
    name: "get_state",
    title: "Read merged state",
    description: "The merged document (base fields with derived values spliced in). `paths` keeps only " +
      "those subtrees at their addresses (absent ones skipped); `depth` then collapses containers nested " +
      'deeper than it into markers such as "<object with 3 fields>"; `at` reads retained history.',
    inputSchema: input({
      id,
      at: { type: "string", description: "ISO-8601 instant: the state as of that time" },
      paths: { type: "array", items: path, description: "addresses of the subtrees to return" },
      depth: { type: "integer", minimum: 0, description: "container levels below the root to expand" },
    }, ["id"]),
    outputSchema: OUTPUT_SCHEMAS.state,
    annotations: hints("read", true),
    run: async ({ api }, a) =>
      narrowState(await api.getState(a.id as string, a.at as string | undefined), {
        paths: a.paths as string[] | undefined,
        depth: a.depth as number | undefined,
      }),
  },
  {
    name: "get_field",
    title: "Read one field",
    description: "One field of the merged document (evaluates a lazy derivation); null when absent.",
    inputSchema: input({ id, path }, ["id", "path"]),
    annotations: hints("read", true),
    run: ({ api }, a) => operation("get-field")(api, a),
  },
  {
    name: "get_effective_schema",
    title: "Get a field's effective schema",
    description: "The field's JSON Schema overlaid with live meta values (minimum, readOnly, relevant, " +
      "required, ...).",
    inputSchema: input({ id, path }, ["id", "path"]),
    outputSchema: OUTPUT_SCHEMAS.effectiveSchema,
    annotations: hints("read", true),
    run: ({ api }, a) => operation("get-schema")(api, a),
  },
  {
    name: "mutate",
    title: "Write base fields",
    description: "Write base fields in one transaction: schema check, derivations, meta, constraints, " +
      "effects, then commit or roll back as a whole. Returns mutatedPaths, derivedUpdated, metaUpdated, " +
      "flaggedConstraints and dispatchedEffects.",
    inputSchema: input({ id, mutations: mutationsMap, includeTraces }, ["id", "mutations"]),
    outputSchema: OUTPUT_SCHEMAS.mutation,
    annotations: hints("write", false),
    run: async ({ api }, a) =>
      mutationResult(
        await api.mutate(a.id as string, a.mutations as Record<string, Json>),
        a.includeTraces,
      ),
  },
  {
    name: "patch_model",
    title: "Apply a JSON Patch",
    description: "Apply an RFC 6902 JSON Patch (array insert, remove, reorder) as one transaction; " +
      "same result as mutate.",
    inputSchema: input({
      id,
      patch: {
        type: "array",
        description: "RFC 6902 operations; paths are JSON Pointers such as /items/0/qty",
        items: {
          type: "object",
          properties: {
            op: { enum: ["add", "remove", "replace", "move", "copy", "test"] },
            path: { type: "string" },
            from: { type: "string" },
            value: {},
          },
          required: ["op", "path"],
        },
      },
      includeTraces,
    }, ["id", "patch"]),
    outputSchema: OUTPUT_SCHEMAS.mutation,
    annotations: hints("write", false),
    run: async ({ api }, a) =>
      mutationResult(await api.patch(a.id as string, a.patch as PatchOperation[]), a.includeTraces),
  },
  {
    name: "explain",
    title: "Explain a field",
    description: "Trace records of a field or of $constraint:<id>: expression, input paths, result, " +
      "error. `limit` keeps the most recent N.",
    inputSchema: input({
      id,
      path: { ...path, description: "a field address, or $constraint:<id>" },
      limit: { type: "integer", minimum: 1, description: "only the most recent N records" },
    }, ["id", "path"]),
    annotations: hints("read", true),
    run: ({ api }, a) => operation("explain")(api, a),
  },
  {
    name: "get_history",
    title: "List history",
    description: "ISO-8601 commit times of the retained history, chronological (use with get_state `at`).",
    inputSchema: input({ id }, ["id"]),
    annotations: hints("read", true),
    run: ({ api }, a) => operation("get-history")(api, a),
  },
  {
    name: "get_audit",
    title: "Read the audit trail",
    description: "Audit records, newest first (default limit 100).",
    inputSchema: input({
      id,
      pathPrefix: { type: "string", description: "keep records touching this address prefix" },
      from: { type: "string", description: "ISO-8601 lower bound (inclusive)" },
      to: { type: "string", description: "ISO-8601 upper bound (exclusive)" },
      limit: { type: "integer", minimum: 1, description: "at most N records (default 100)" },
    }, ["id"]),
    annotations: hints("read", true),
    run: ({ api }, a) => operation("get-audit")(api, a),
  },
  {
    name: "verify_audit",
    title: "Verify the audit trail",
    description: "Checks the audit hash chain; reports valid, records checked and the first broken record.",
    inputSchema: input({ id }, ["id"]),
    outputSchema: OUTPUT_SCHEMAS.auditVerification,
    annotations: hints("read", true),
    run: ({ api }, a) => operation("verify-audit")(api, a),
  },
  {
    name: "snapshot",
    title: "Snapshot state",
    description: "An immutable copy of the model's state, to pass back verbatim to restore.",
    inputSchema: input({ id }, ["id"]),
    outputSchema: OUTPUT_SCHEMAS.snapshot,
    annotations: hints("read", true),
    run: ({ api }, a) => operation("snapshot")(api, a),
  },
  {
    name: "restore",
    title: "Restore a snapshot",
    description: "Replace the model's state with a snapshot taken by the snapshot tool.",
    inputSchema: input({
      id,
      snapshot: { type: "object", description: "a snapshot exactly as returned by snapshot" },
    }, ["id", "snapshot"]),
    outputSchema: OUTPUT_SCHEMAS.restored,
    annotations: hints("write", true),
    run: ({ api }, a) => operation("restore")(api, a),
  },
  {
    name: "evolve_spec",
    title: "Evolve the spec",
    description: "Apply a SpecEvolution diff to a live model, carrying its state forward; all or nothing. " +
      "Pass expectedVersion to guard against concurrent changes. Returns the new version.",
    inputSchema: input({ id, evolution: SPEC_EVOLUTION_SCHEMA }, ["id", "evolution"]),
    outputSchema: OUTPUT_SCHEMAS.evolved,
    annotations: hints("destructive", false),
    run: ({ api }, a) => operation("evolve-spec")(api, a),
  },
  {
    name: "delete_model",
    title: "Delete a model",
    description: "Remove a model and its state.",
    inputSchema: input({ id }, ["id"]),
    outputSchema: OUTPUT_SCHEMAS.deleted,
    annotations: hints("destructive", true),
    run: ({ api }, a) => operation("delete-model")(api, a),
  },
  {
    name: "get_view",
    title: "Evaluate a view",
    description: "The evaluated default view of the model, or the view viewId.",
    inputSchema: input({
      id,
      viewId: { type: "string", description: "id of a view in the viewDefinition" },
    }, ["id"]),
    outputSchema: OUTPUT_SCHEMAS.view,
    annotations: hints("read", true),
    run: ({ api }, a) => operation("get-view")(api, a),
  },
  {
    name: "upload_blob",
    title: "Upload a blob",
    description: "Store binary content (base64); returns a BlobRef to write into state.",
    inputSchema: input({
      data: { type: "string", description: "base64 content" },
      mediaType: { type: "string", description: "media type (default application/octet-stream)" },
    }, ["data"]),
    outputSchema: OUTPUT_SCHEMAS.blobRef,
    annotations: hints("write", true),
    run: ({ api }, a) => operation("upload-blob")(api, a),
  },
  {
    name: "download_blob",
    title: "Download a blob",
    description: "Read a blob as base64; with modelId only if that model's state references it.",
    inputSchema: input({
      blobId: { type: "string", description: "the blob id ($blobId of a BlobRef)" },
      modelId: { type: "string", description: "read through this model" },
    }, ["blobId"]),
    outputSchema: OUTPUT_SCHEMAS.blob,
    annotations: hints("read", true),
    run: ({ api }, a) =>
      a.modelId === undefined
        ? operation("get-blob")(api, a)
        : operation("get-model-blob")(api, { id: a.modelId, blobId: a.blobId }),
  },
  {
    name: "get_domain_guidance",
    title: "Domain guidance",
    description: "Worked JSONata patterns as spec fragments with a sample run: " +
      GUIDANCE_TOPICS.map((t) => `${t.id} (${t.title})`).join(", ") + ".",
    inputSchema: input({
      topics: {
        type: "array",
        items: { enum: [...GUIDANCE_TOPIC_IDS] },
        minItems: 1,
        uniqueItems: true,
        description: "topic ids from the menu",
      },
    }, ["topics"]),
    outputSchema: OUTPUT_SCHEMAS.guidance,
    annotations: hints("read", true),
    run: (_, a) => Promise.resolve({ topics: guidance(a.topics as string[]) }),
  },
  {
    name: "validate_spec",
    title: "Validate a spec",
    description: "Validate a candidate ModelSpec without registering it: {valid, errors, warnings}, each " +
      "finding with a location and a message.",
    inputSchema: input({ spec: MODEL_SPEC_SCHEMA }, ["spec"]),
    outputSchema: OUTPUT_SCHEMAS.validation,
    annotations: hints("read", true),
    run: ({ authoring }, a) => Promise.resolve(authoring.validateSpec(a.spec)),
  },
  {
    name: "eval_expression",
    title: "Evaluate a JSONata expression",
    description: "Evaluate a JSONata expression against a sample input (constants bound as $const): " +
      "{result, type}, type 'undefined' meaning no value; or the exact compile or evaluation error.",
    inputSchema: input({
      expr: { type: "string", description: "the JSONata expression" },
      input: { description: "the sample document the expression reads (default null)" },
      constants: { type: "object", description: "values bound as $const.<name>" },
    }, ["expr"]),
    outputSchema: OUTPUT_SCHEMAS.evaluation,
    annotations: hints("read", true),
    run: ({ authoring }, a) =>
      authoring.evalExpression(
        a.expr as string,
        a.input as Json | undefined,
        a.constants as Record<string, Json> | undefined,
      ),
  },
  {
    name: "test_spec",
    title: "Run spec tests",
    description: "Run the spec's embedded tests, or the ad-hoc `tests` instead ({given, expect} keyed by " +
      "address), each in a throwaway runtime: pass or fail with per-field failures.",
    inputSchema: input({
      spec: MODEL_SPEC_SCHEMA,
      tests: {
        type: "array",
        items: { $ref: "svc://schema/model-spec#/$defs/TestCase" },
        description: "cases to run instead of the spec's own",
      },
    }, ["spec"]),
    outputSchema: OUTPUT_SCHEMAS.testRun,
    annotations: hints("read", true),
    run: ({ authoring }, a) => authoring.testSpec(a.spec, a.tests as unknown[] | undefined),
  },
  {
    name: "dry_run",
    title: "Dry-run a spec",
    description: "Compile a candidate spec in an isolated runtime, apply optional mutations in order and " +
      "return the merged state and each step's result; nothing is registered.",
    inputSchema: input({
      spec: MODEL_SPEC_SCHEMA,
      mutations: {
        description: "mutation maps applied one after another (a single map is one step)",
        anyOf: [mutationsMap, { type: "array", items: mutationsMap }],
      },
    }, ["spec"]),
    outputSchema: OUTPUT_SCHEMAS.dryRun,
    annotations: hints("read", true),
    run: ({ authoring }, a) =>
      authoring.dryRun(
        a.spec,
        a.mutations === undefined
          ? []
          : (Array.isArray(a.mutations) ? a.mutations : [a.mutations]) as Record<string, Json>[],
      ),
  },
];

/** The JSON type names an input schema's `type` may use, checked at the top level. */
function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "integer":
      return Number.isInteger(value);
    case "null":
      return value === null;
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    default:
      return true;
  }
}

/**
 * Checks the arguments' top level against the tool's input schema: required
 * members present, no unknown members, declared JSON types and minimums. Deeper content
 * (a spec, an evolution) is judged by the service, whose findings are precise.
 */
export function checkArguments(tool: ToolDefinition, args: Record<string, unknown>): void {
  const properties = tool.inputSchema.properties as Record<string, JsonObject>;
  for (const name of tool.inputSchema.required as string[]) {
    if (args[name] === undefined || args[name] === null) {
      throw badRequest(`Missing required field: '${name}'`);
    }
  }
  for (const [name, value] of Object.entries(args)) {
    const schema = properties[name];
    if (!schema) {
      throw badRequest(
        `Unknown argument '${name}' for ${tool.name}; expected: ${Object.keys(properties).join(", ")}`,
      );
    }
    if (value === undefined) continue;
    const types = typeof schema.type === "string"
      ? [schema.type]
      : schema.anyOf
      ? (schema.anyOf as JsonObject[]).map((s) => s.type as string)
      : [];
    if (types.length && !types.some((t) => hasType(value, t))) {
      throw badRequest(`Invalid field '${name}': expected ${types.join(" or ")}`);
    }
    if (typeof schema.minimum === "number" && (value as number) < schema.minimum) {
      throw badRequest(`Invalid field '${name}': must be at least ${schema.minimum}`);
    }
  }
}
