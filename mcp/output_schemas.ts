/**
 * Output schemas of the tools that always return an object (SPEC.md "MCP
 * tools"). Each is the union of the success shape and the failure body: a
 * failed call also carries `structuredContent` (the rollback, schema-violation
 * and version-conflict bodies, or `{error}`), and MCP clients validate
 * structured content against the declared schema even on `isError` results.
 *
 * @module
 */
import type { JsonObject } from "../engine/json/value.ts";

const str: JsonObject = { type: "string" };
const int: JsonObject = { type: "integer", minimum: 0 };
const bool: JsonObject = { type: "boolean" };
const any: JsonObject = {};
const strings: JsonObject = { type: "array", items: str };

/** An object schema whose members are all required unless listed in `optional`. */
function shape(properties: Record<string, JsonObject>, optional: string[] = []): JsonObject {
  return {
    type: "object",
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
  };
}
const arrayOf = (items: JsonObject): JsonObject => ({ type: "array", items });

/** Every failure body: `{error}` plus the structured members of its kind. */
export const FAILURE_BODY: JsonObject = {
  type: "object",
  properties: { error: { type: "string", description: "what went wrong" } },
  required: ["error"],
};

/** A tool's declared output schema: its success shape, or a failure body. */
function output(success: JsonObject): JsonObject {
  return { type: "object", anyOf: [success, FAILURE_BODY] };
}

const violation = shape({ constraintId: str, message: str, policy: { enum: ["rollback", "flag"] } });
const dispatched = shape({ effectId: str, emit: any, payload: any });
const trace = shape({
  targetPath: str,
  expression: str,
  inputPaths: strings,
  result: any,
  constraintPassed: { type: ["boolean", "null"] },
  errorMessage: { type: ["string", "null"] },
});
const mutationResult = shape({
  success: bool,
  mutatedPaths: strings,
  derivedUpdated: strings,
  metaUpdated: strings,
  flaggedConstraints: arrayOf(violation),
  dispatchedEffects: arrayOf(dispatched),
  traces: arrayOf(trace),
}, ["traces"]);
const finding = shape({ location: str, message: str });

/** Output schemas by tool name. */
export const OUTPUT_SCHEMAS = {
  modelInfo: output(shape({
    id: str,
    version: str,
    derivationCount: int,
    metaDerivationCount: int,
    constraintCount: int,
    effectCount: int,
  })),
  spec: output({ type: "object", properties: { id: str, version: str }, required: ["id"] }),
  state: output({ type: "object", description: "the merged document (or the selected subtrees)" }),
  effectiveSchema: output({ type: "object", description: "a JSON Schema with live meta values" }),
  mutation: output(mutationResult),
  auditVerification: output(shape({
    valid: bool,
    recordsChecked: int,
    firstBrokenSequence: { type: ["integer", "null"] },
    detail: str,
  })),
  snapshot: output(shape({
    modelId: str,
    modelVersion: str,
    baseDoc: any,
    derivedCache: { type: "object" },
    metaCache: { type: "object" },
  })),
  restored: output(shape({ restored: { const: true } })),
  deleted: output(shape({ deleted: { const: true } })),
  evolved: output(shape({ id: str, version: str })),
  view: output(shape({
    modelId: str,
    viewId: str,
    title: str,
    layout: str,
    components: { type: "array" },
  })),
  blobRef: output(shape({ $blobId: str, $mediaType: str, $bytes: int })),
  blob: output(shape({ blobId: str, mediaType: str, data: { type: "string", description: "base64" } })),
  guidance: output(shape({
    topics: arrayOf(shape({
      id: str,
      title: str,
      whenToUse: str,
      fragment: { type: "object" },
      sample: { type: "object" },
      notes: strings,
    })),
  })),
  validation: output(shape({ valid: bool, errors: arrayOf(finding), warnings: arrayOf(finding) })),
  evaluation: output(shape({
    result: any,
    type: { enum: ["null", "boolean", "number", "string", "array", "object", "undefined"] },
  })),
  testRun: output(shape({
    passed: bool,
    total: int,
    passedCount: int,
    failedCount: int,
    cases: arrayOf(shape({
      description: str,
      passed: bool,
      failures: arrayOf(shape({ path: str, expected: any, actual: any, message: str })),
      error: { type: ["string", "null"] },
      state: any,
      actual: { type: "object" },
    })),
  })),
  dryRun: output(shape({ state: any, steps: arrayOf(mutationResult) })),
} satisfies Record<string, JsonObject>;
