/**
 * The shapes operations take and return, once: MCP output schemas and the
 * OpenAPI document's components are generated from these declarations.
 * Result objects are open (`looseObject`): a client must tolerate members
 * added later, and MCP clients validate structured content against them.
 *
 * @module
 */
import { z } from "zod";
import type { Json } from "../json/value.ts";
import { MODEL_SPEC_SCHEMA } from "../model/model_spec_schema.ts";
import { SPEC_EVOLUTION_SCHEMA } from "../evolve/schema.ts";
import { component, lazySchema, publishedAs } from "./json_schema.ts";

const count = lazySchema(() => z.int().min(0));
const strings = lazySchema(() => z.array(z.string()));
/** Any JSON value (the service checks what it must). */
const json = lazySchema(() => z.custom<Json>());

// ------------------------------------------------------------------ arguments

/** A model id argument. */
export const MODEL_ID = lazySchema(() => z.string().describe("the model id"));

/** The input of an operation on one model that takes nothing else. */
export const BY_ID = lazySchema(() => z.object({ id: MODEL_ID() }));

/** A canonical address argument. */
export const ADDRESS = lazySchema(() =>
  z.string().describe("canonical JSON Path address such as $.total or $.items[0].qty")
);

/** An ISO-8601 instant argument. */
export const INSTANT = lazySchema(() => z.string().describe("ISO-8601 instant"));

/** A ModelSpec argument: any JSON value at the door; the spec validator reports every finding. */
export const SPEC_ARGUMENT = publishedAs(() => z.unknown(), MODEL_SPEC_SCHEMA, "ModelSpec");

/** A SpecEvolution argument: checked against its JSON Schema by the service (400 with every problem). */
export const EVOLUTION_ARGUMENT = publishedAs(() => z.unknown(), SPEC_EVOLUTION_SCHEMA, "SpecEvolution");

/** A flat mutation map. */
export const MUTATIONS = component(
  "Mutations",
  () =>
    z.record(z.string(), json()).describe(
      'map of canonical address to new value, e.g. {"$.qty": 3, "$.items[0].price": 9.5}',
    ),
);

/** One RFC 6902 operation. */
export const PATCH_OPERATION = lazySchema(() =>
  z.looseObject({
    op: z.enum(["add", "remove", "replace", "move", "copy", "test"]),
    path: z.string().describe("RFC 6901 JSON Pointer such as /items/0/qty"),
    from: z.string().describe("RFC 6901 JSON Pointer").optional(),
    value: json().optional(),
  })
);

/** An RFC 6902 JSON Patch. */
export const JSON_PATCH = component(
  "JsonPatch",
  () =>
    z.array(PATCH_OPERATION()).describe("RFC 6902 operations; paths are JSON Pointers such as /items/0/qty"),
);

// -------------------------------------------------------------------- results

/** Model info (DECISIONS.md "Model info"). */
export const MODEL_INFO = component(
  "ModelInfo",
  () =>
    z.looseObject({
      id: z.string(),
      version: z.string(),
      derivationCount: count(),
      metaDerivationCount: count(),
      constraintCount: count(),
      effectCount: count(),
    }),
);

/** A validation finding. */
export const FINDING = lazySchema(() => z.looseObject({ location: z.string(), message: z.string() }));

/** A create's or an evolution's `warnings`. */
const WARNINGS = () =>
  z.array(FINDING()).describe("the spec's validation warnings, when it has any").optional();

/** The REST create answer. */
export const CREATED = component(
  "Created",
  () =>
    z.looseObject({
      id: z.string(),
      status: z.literal("created"),
      warnings: WARNINGS(),
    }),
);

/** An evolution's answer. */
export const EVOLVED = component(
  "Evolved",
  () =>
    z.looseObject({
      id: z.string(),
      version: z.string(),
      warnings: WARNINGS(),
    }),
);

/** A stored ModelSpec as read back. */
export const STORED_SPEC = lazySchema(() =>
  z.looseObject({ id: z.string(), version: z.string().optional() })
);

/** A model's library (`GET /models/{id}/library`). */
export const LIBRARY = component(
  "Library",
  () =>
    z.looseObject({
      description: z.string().optional(),
      layers: z.array(z.looseObject({
        origin: z.string().describe('"local", or "ref@version" for a layer inherited from a template'),
        ref: z.string().optional(),
        version: z.string().optional(),
        digest: z.string().optional(),
        define: z.string(),
      })).describe("the layers in evaluation order; a later layer wins a name clash"),
      exports: z.array(z.looseObject({
        name: z.string(),
        kind: z.enum(["function", "constant"]),
        signature: z.string().optional(),
        arity: count().optional().describe("omitted for a variadic function"),
        value: json().optional().describe("a constant's value, computed once"),
        origin: z.string(),
      })).describe("functions first (called $name(...)), then constants (read as $name)"),
    }),
);

/** A constraint violation (rollback bodies and `flaggedConstraints`). */
export const CONSTRAINT_VIOLATION = lazySchema(() =>
  z.looseObject({
    constraintId: z.string(),
    message: z.string(),
    policy: z.enum(["rollback", "flag"]),
  })
);

/** A schema violation found before any write. */
export const SCHEMA_VIOLATION = lazySchema(() =>
  z.looseObject({ path: z.string(), keyword: z.string(), message: z.string() })
);

/** A trace record (SPEC.md "Mutation result"). */
export const TRACE_RECORD = component(
  "TraceRecord",
  () =>
    z.looseObject({
      targetPath: z.string(),
      expression: z.string(),
      inputPaths: strings(),
      result: json(),
      constraintPassed: z.boolean().nullable(),
      errorMessage: z.string().nullable(),
    }),
);

/** The result of a committed mutation. */
export const MUTATION_RESULT = component(
  "MutationResponse",
  () =>
    z.looseObject({
      success: z.boolean(),
      mutatedPaths: strings(),
      derivedUpdated: strings(),
      metaUpdated: strings(),
      flaggedConstraints: z.array(CONSTRAINT_VIOLATION()),
      dispatchedEffects: z.array(z.looseObject({ effectId: z.string(), emit: json(), payload: json() })),
      traces: z.array(TRACE_RECORD()).optional(),
      viewDelta: z.record(z.string(), z.looseObject({})).describe(
        "evaluated components by id; only when a view was asked for (REST `X-View`)",
      ).optional(),
    }),
);

/** The merged document (or a narrowed part of it). */
export const STATE = lazySchema(() =>
  z.looseObject({}).describe("the merged document (or the selected subtrees)")
);

/** An effective schema: a JSON Schema fragment with live meta values. */
export const EFFECTIVE_SCHEMA = lazySchema(() =>
  z.looseObject({}).describe("a JSON Schema with live meta values")
);

/** A snapshot (DECISIONS.md "Snapshot"). */
export const SNAPSHOT = component(
  "Snapshot",
  () =>
    z.looseObject({
      modelId: z.string(),
      modelVersion: z.string(),
      baseDoc: json(),
      derivedCache: z.record(z.string(), json()),
      metaCache: z.record(z.string(), json()),
    }),
);

/** The dependency graph projection (DECISIONS.md "Dependency graph"). */
export const GRAPH_VIEW = component(
  "GraphView",
  () =>
    z.looseObject({
      modelId: z.string(),
      nodes: z.array(z.looseObject({
        key: z.string(),
        kind: z.enum(["BASE", "DERIVED", "META", "CONSTRAINT", "EFFECT"]),
        label: z.string(),
        expression: z.string().nullable(),
      })),
      edges: z.array(z.looseObject({ from: z.string(), to: z.string().describe("reads from `from`") })),
      levels: z.array(strings()),
    }),
);

/** The verification report (DECISIONS.md "Verification report"). */
export const VERIFICATION_REPORT = component(
  "VerificationReport",
  () =>
    z.looseObject({
      modelId: z.string(),
      specVersion: z.string(),
      state: z.enum(["green", "amber", "neutral"]),
      checkedCount: count(),
      passedCount: count(),
      unverifiableCount: count(),
      cases: z.array(z.looseObject({
        description: z.string(),
        verifiable: z.boolean(),
        passed: z.boolean(),
        given: json(),
        expect: json(),
        actual: json(),
        reason: z.string().nullable(),
      })),
    }),
);

/** An audit record (DECISIONS.md "Audit record"). */
export const AUDIT_RECORD = component(
  "AuditRecord",
  () =>
    z.looseObject({
      modelId: z.string(),
      sequence: count(),
      timestamp: z.string().describe("ISO-8601 instant"),
      modelVersion: z.string(),
      source: z.enum(["client", "patch", "foldback"]),
      mutations: json(),
      derivedUpdated: strings(),
      flaggedConstraints: strings(),
      dispatchedEffects: strings(),
      traces: z.array(TRACE_RECORD()),
      prevHash: z.string(),
      hash: z.string(),
    }),
);

/** The verdict of an audit chain check. */
export const AUDIT_VERIFICATION = component(
  "AuditVerification",
  () =>
    z.looseObject({
      valid: z.boolean(),
      recordsChecked: count(),
      firstBrokenSequence: z.int().nullable(),
      detail: z.string(),
    }),
);

/** An evaluated view (SPEC.md "View definition"). */
export const EVALUATED_VIEW = component(
  "EvaluatedView",
  () =>
    z.looseObject({
      modelId: z.string(),
      viewId: z.string(),
      title: z.string(),
      layout: z.string(),
      components: z.array(z.looseObject({})),
    }),
);

/** A BlobRef as kept in state. */
export const BLOB_REF = component(
  "BlobRef",
  () =>
    z.looseObject({ $blobId: z.string().describe("SHA-256 hex"), $mediaType: z.string(), $bytes: count() }),
);

/** A blob read through a protocol surface: its bytes as base64. */
export const BLOB_CONTENT_BASE64 = lazySchema(() =>
  z.looseObject({
    blobId: z.string(),
    mediaType: z.string(),
    data: z.string().describe("base64"),
  })
);

/** What a blob garbage collection found. */
export const BLOB_GC_REPORT = component(
  "BlobGcReport",
  () =>
    z.looseObject({
      supported: z.boolean().describe("false when the blob store cannot be enumerated"),
      applied: z.boolean().describe("true when orphans were deleted"),
      referenced: count().describe("blobs referenced by current state or retained history"),
      orphans: z.array(z.looseObject({ blobId: z.string(), bytes: count() })),
      orphanBytes: count(),
    }),
);

/** A spec validation report. */
export const VALIDATION_REPORT = lazySchema(() =>
  z.looseObject({
    valid: z.boolean(),
    errors: z.array(FINDING()),
    warnings: z.array(FINDING()),
  })
);

/** An expression evaluated against a sample. */
export const EVALUATION = lazySchema(() =>
  z.looseObject({
    result: json(),
    type: z.enum(["null", "boolean", "number", "string", "array", "object", "undefined"]),
  })
);

/** A test run. */
export const TEST_RUN = lazySchema(() =>
  z.looseObject({
    passed: z.boolean(),
    total: count(),
    passedCount: count(),
    failedCount: count(),
    cases: z.array(z.looseObject({
      description: z.string(),
      passed: z.boolean(),
      failures: z.array(
        z.looseObject({ path: z.string(), expected: json(), actual: json(), message: z.string() }),
      ),
      error: z.string().nullable(),
      state: json(),
      actual: z.record(z.string(), json()),
    })),
  })
);

/** A dry run. */
export const DRY_RUN = lazySchema(() => z.looseObject({ state: json(), steps: z.array(MUTATION_RESULT()) }));

/** Guidance topics. */
export const GUIDANCE = lazySchema(() =>
  z.looseObject({
    topics: z.array(z.looseObject({
      id: z.string(),
      title: z.string(),
      whenToUse: z.string(),
      fragment: z.looseObject({}),
      sample: z.looseObject({}),
      notes: strings(),
    })),
  })
);

/** `{deleted: true}`. */
export const DELETED = lazySchema(() => z.looseObject({ deleted: z.literal(true) }));

/** `{restored: true}`. */
export const RESTORED = lazySchema(() => z.looseObject({ restored: z.literal(true) }));

// ------------------------------------------------------------- failure bodies

/** Every failure body carries `error`; structured ones add members (violations, expected, …). */
export const FAILURE_BODY = lazySchema(() =>
  z.looseObject({ error: z.string().describe("what went wrong") })
);

/** A generic RFC 7807 problem document. */
export const PROBLEM = component(
  "Problem",
  () => z.looseObject({ type: z.string(), title: z.string(), status: z.int(), detail: z.string() }).partial(),
);

/** The body of every 401: `Missing or invalid API key`, or why a pairing session's token was refused. */
export const UNAUTHORIZED = component("Unauthorized", () => z.looseObject({ error: z.string() }));

/** A rollback. */
export const CONSTRAINT_VIOLATION_BODY = component(
  "ConstraintViolationBody",
  () =>
    z.looseObject({ error: z.literal("Constraint violation"), violations: z.array(CONSTRAINT_VIOLATION()) }),
);

/** A schema violation. */
export const SCHEMA_VIOLATION_BODY = component(
  "SchemaViolationBody",
  () => z.looseObject({ error: z.literal("Schema violation"), violations: z.array(SCHEMA_VIOLATION()) }),
);

/** A spec that does not validate. */
export const SPEC_INVALID_BODY = component(
  "SpecInvalidBody",
  () =>
    z.looseObject({
      error: z.literal("Spec validation failed"),
      errors: z.array(FINDING()),
      warnings: z.array(FINDING()).optional(),
    }),
);

/** A stored model that did not load: its stored spec's findings. */
export const NOT_LOADED_BODY = component(
  "NotLoadedBody",
  () =>
    z.looseObject({
      error: z.literal("Model not loaded"),
      detail: z.string(),
      modelId: z.string(),
      errors: z.array(FINDING()),
    }),
);

/** A stale `expectedVersion`. */
export const VERSION_CONFLICT_BODY = component(
  "VersionConflictBody",
  () => z.looseObject({ error: z.literal("Version conflict"), expected: z.string(), actual: z.string() }),
);
