/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the REST bodies, shared
 * by the route table and the generated `/v3/api-docs` document. ModelSpec and
 * SpecEvolution are the engine's own schemas (each an embedded resource with
 * its `$id`, so its `#/$defs/...` references resolve inside it).
 *
 * @module
 */
import { MODEL_SPEC_SCHEMA } from "../../engine/model/model_spec_schema.ts";
import { SPEC_EVOLUTION_SCHEMA } from "../../engine/evolve/schema.ts";

/** A JSON Schema object. */
export type JsonSchema = { [keyword: string]: unknown };

/** A `$ref` to a component schema. */
export const ref = (name: keyof typeof COMPONENT_SCHEMAS): JsonSchema => ({
  $ref: `#/components/schemas/${name}`,
});

const str = (description?: string): JsonSchema =>
  description ? { type: "string", description } : { type: "string" };
const int = (description?: string): JsonSchema =>
  description ? { type: "integer", description } : { type: "integer" };
const strings: JsonSchema = { type: "array", items: { type: "string" } };
const anyJson: JsonSchema = {};
const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra = false): JsonSchema => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
  ...(extra ? {} : { additionalProperties: false }),
});

const constraintViolation = obj({
  constraintId: str(),
  message: str(),
  policy: { enum: ["rollback", "flag"] },
}, ["constraintId", "message", "policy"]);
const trace = obj({
  targetPath: str(),
  expression: str(),
  inputPaths: strings,
  result: anyJson,
  constraintPassed: { type: ["boolean", "null"] },
  errorMessage: { type: ["string", "null"] },
}, ["targetPath", "expression", "inputPaths", "result", "constraintPassed", "errorMessage"]);
const finding = obj({ location: str(), message: str() }, ["location", "message"]);

/** Every named schema of the document's `components.schemas`. */
export const COMPONENT_SCHEMAS = {
  ModelSpec: MODEL_SPEC_SCHEMA,
  SpecEvolution: SPEC_EVOLUTION_SCHEMA,
  ModelInfo: obj({
    id: str(),
    version: str(),
    derivationCount: int(),
    metaDerivationCount: int(),
    constraintCount: int(),
    effectCount: int(),
  }, ["id", "version", "derivationCount", "metaDerivationCount", "constraintCount", "effectCount"]),
  Created: obj({ id: str(), status: { const: "created" } }, ["id", "status"]),
  Evolved: obj({ id: str(), version: str() }, ["id", "version"]),
  Mutations: {
    type: "object",
    description: "flat map of canonical address to new value",
    additionalProperties: anyJson,
    examples: [{ "$.order.qty": 3 }],
  },
  JsonPatch: {
    type: "array",
    items: obj({
      op: { enum: ["add", "remove", "replace", "move", "copy", "test"] },
      path: str("RFC 6901 JSON Pointer"),
      from: str("RFC 6901 JSON Pointer"),
      value: anyJson,
    }, ["op", "path"]),
  },
  MutationResponse: obj({
    success: { type: "boolean" },
    mutatedPaths: strings,
    derivedUpdated: strings,
    metaUpdated: strings,
    flaggedConstraints: { type: "array", items: constraintViolation },
    dispatchedEffects: { type: "array", items: obj({ effectId: str(), emit: anyJson, payload: anyJson }) },
    traces: { type: "array", items: trace },
    viewDelta: {
      type: "object",
      additionalProperties: { type: "object" },
      description: "evaluated components by id; only with the X-View header",
    },
  }, ["success", "mutatedPaths", "derivedUpdated", "flaggedConstraints", "dispatchedEffects"]),
  TraceRecord: trace,
  Snapshot: obj({
    modelId: str(),
    modelVersion: str(),
    baseDoc: { type: "object" },
    derivedCache: { type: "object", additionalProperties: anyJson },
    metaCache: { type: "object", additionalProperties: anyJson },
  }, ["baseDoc"]),
  GraphView: obj({
    modelId: str(),
    nodes: {
      type: "array",
      items: obj({
        key: str(),
        kind: { enum: ["BASE", "DERIVED", "META", "CONSTRAINT", "EFFECT"] },
        label: str(),
        expression: { type: ["string", "null"] },
      }),
    },
    edges: { type: "array", items: obj({ from: str(), to: str("reads from `from`") }) },
    levels: { type: "array", items: strings },
  }, ["modelId", "nodes", "edges", "levels"]),
  VerificationReport: obj({
    modelId: str(),
    specVersion: str(),
    state: { enum: ["green", "amber", "neutral"] },
    checkedCount: int(),
    passedCount: int(),
    unverifiableCount: int(),
    cases: {
      type: "array",
      items: obj({
        description: str(),
        verifiable: { type: "boolean" },
        passed: { type: "boolean" },
        given: anyJson,
        expect: anyJson,
        actual: anyJson,
        reason: { type: ["string", "null"] },
      }),
    },
  }),
  AuditRecord: obj({
    modelId: str(),
    sequence: int(),
    timestamp: { type: "string", format: "date-time" },
    modelVersion: str(),
    source: { enum: ["client", "patch", "foldback"] },
    mutations: anyJson,
    derivedUpdated: strings,
    flaggedConstraints: strings,
    dispatchedEffects: strings,
    traces: { type: "array", items: trace },
    prevHash: str(),
    hash: str(),
  }),
  AuditVerification: obj({
    valid: { type: "boolean" },
    recordsChecked: int(),
    firstBrokenSequence: { type: ["integer", "null"] },
    detail: str(),
  }, ["valid", "recordsChecked", "firstBrokenSequence", "detail"]),
  EvaluatedView: obj(
    {
      modelId: str(),
      viewId: str(),
      title: { type: ["string", "null"] },
      layout: str(),
      components: { type: "array", items: { type: "object" } },
    },
    ["modelId", "viewId", "components"],
    true,
  ),
  BlobRef: obj({ $blobId: str("SHA-256 hex"), $mediaType: str(), $bytes: int() }, [
    "$blobId",
    "$mediaType",
    "$bytes",
  ]),
  BlobUpload: obj({
    file: { type: "string", contentMediaType: "application/octet-stream", description: "the content" },
    mediaType: str("overrides the file part's type"),
  }, ["file"]),
  BlobGcReport: obj({
    supported: { type: "boolean", description: "false when the blob store cannot be enumerated" },
    applied: { type: "boolean", description: "true when orphans were deleted" },
    referenced: int("blobs referenced by current state or retained history"),
    orphans: { type: "array", items: obj({ blobId: str(), bytes: int() }) },
    orphanBytes: int(),
  }, ["supported", "applied", "orphans", "orphanBytes"]),
  Problem: obj(
    {
      type: str(),
      title: str(),
      status: int(),
      detail: str(),
    },
    [],
    true,
  ),
  ApiKeyError: obj({ error: { const: "Missing or invalid API key" } }, ["error"]),
  ConstraintViolationBody: obj({
    error: { const: "Constraint violation" },
    violations: { type: "array", items: constraintViolation },
  }, ["error", "violations"]),
  SchemaViolationBody: obj({
    error: { const: "Schema violation" },
    violations: { type: "array", items: obj({ path: str(), keyword: str(), message: str() }) },
  }, ["error", "violations"]),
  SpecInvalidBody: obj(
    {
      error: { const: "Spec validation failed" },
      errors: { type: "array", items: finding },
      warnings: { type: "array", items: finding },
    },
    ["error", "errors"],
    true,
  ),
  VersionConflictBody: obj({ error: { const: "Version conflict" }, expected: str(), actual: str() }, [
    "error",
    "expected",
    "actual",
  ]),
  Health: obj({ status: { enum: ["UP", "DOWN"] }, components: { type: "object" } }, ["status"]),
  Info: obj({ app: obj({ name: str(), version: str() }) }),
  MetricNames: obj({ names: strings }, ["names"]),
  Metric: obj({
    name: str(),
    description: str(),
    baseUnit: { type: ["string", "null"] },
    measurements: {
      type: "array",
      items: obj({ statistic: { enum: ["COUNT", "TOTAL_TIME", "MAX", "VALUE"] }, value: { type: "number" } }),
    },
    availableTags: { type: "array", items: obj({ tag: str(), values: strings }) },
  }),
} as const satisfies Record<string, JsonSchema>;
