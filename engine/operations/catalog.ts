/**
 * Every operation once: its name on each surface, its arguments and its handler
 * over {@link ModelApi}. The console and MCP adapters are generated from this
 * table; REST routes map onto the same API methods.
 *
 * @module
 */
import { badRequest, ServiceError } from "../errors.ts";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { isObject, type Json } from "../json/value.ts";
import type { PatchOperation } from "../runtime/results.ts";
import type { ModelApi } from "../service/api.ts";

/** JSON types an argument may take. */
export type ArgType = "string" | "object" | "array" | "integer" | "boolean" | "any";

/** One argument of an operation. */
export interface ArgSpec {
  name: string;
  type: ArgType;
  required: boolean;
  description: string;
}

/** An operation of the catalog. */
export interface Operation {
  /** Console command (`get-state`). */
  command: string;
  summary: string;
  args: ArgSpec[];
  /** Runs the operation; the result is what the console returns. */
  run(api: ModelApi, args: Record<string, unknown>): Promise<unknown>;
}

const arg = (name: string, type: ArgType, description: string, required = true): ArgSpec => ({
  name,
  type,
  required,
  description,
});
const id = arg("id", "string", "model id");
const path = arg("path", "string", "canonical address such as $.items[0].qty");

/** Checks presence and JSON type of every declared argument. */
export function checkArgs(op: Operation, args: Record<string, unknown>): void {
  for (const spec of op.args) {
    const value = args[spec.name];
    if (value === undefined || value === null) {
      if (spec.required) throw badRequest(`Missing required field: '${spec.name}'`);
      continue;
    }
    const ok = spec.type === "any" ||
      (spec.type === "array"
        ? Array.isArray(value)
        : spec.type === "object"
        ? isObject(value)
        : spec.type === "integer"
        ? Number.isInteger(value)
        : typeof value === spec.type);
    if (!ok) {
      throw badRequest(
        `Invalid field '${spec.name}': expected ${/^[aeiou]/.test(spec.type) ? "an" : "a"} ${spec.type}`,
      );
    }
  }
}

const blobResult = (blobId: string, blob: { bytes: Uint8Array; mediaType: string }) => ({
  blobId,
  mediaType: blob.mediaType,
  data: encodeBase64(blob.bytes),
});

/** The operations, in the order `help` lists them. */
export const OPERATIONS: readonly Operation[] = [
  {
    command: "list-models",
    summary: "ids of every model, alphabetical",
    args: [],
    run: (api) => api.listModels(),
  },
  {
    command: "create-model",
    summary: "register a model from a ModelSpec",
    args: [arg("spec", "object", "the ModelSpec")],
    run: async (api, a) => {
      const info = await api.createModel(a.spec);
      return { id: info.id, status: "created" };
    },
  },
  {
    command: "get-spec",
    summary: "the stored ModelSpec",
    args: [id],
    run: (api, a) => api.getSpec(a.id as string),
  },
  {
    command: "get-info",
    summary: "model id, version and section counts",
    args: [id],
    run: (api, a) => api.getInfo(a.id as string),
  },
  {
    command: "get-state",
    summary: "the merged document (optionally at an ISO-8601 time)",
    args: [id, arg("at", "string", "ISO-8601 instant of retained history", false)],
    run: (api, a) => api.getState(a.id as string, a.at as string | undefined),
  },
  {
    command: "get-field",
    summary: "one field of the merged document (null when absent)",
    args: [id, path],
    // Unlike REST's 404, the console answers an absent field with null; an unknown model still fails.
    run: (api, a) =>
      api.getField(a.id as string, a.path as string).catch(async (err) => {
        if (!(err instanceof ServiceError) || err.kind !== "not_found") throw err;
        await api.getInfo(a.id as string);
        return null;
      }),
  },
  {
    command: "mutate",
    summary: "write base fields: {address: value}",
    args: [id, arg("mutations", "object", "map of canonical address to value")],
    run: (api, a) => api.mutate(a.id as string, a.mutations as Record<string, Json>),
  },
  {
    command: "patch-mutate",
    summary: "apply an RFC 6902 JSON Patch",
    args: [id, arg("patch", "array", "RFC 6902 operations")],
    run: (api, a) => api.patch(a.id as string, a.patch as PatchOperation[]),
  },
  {
    command: "get-history",
    summary: "ISO-8601 commit times of retained history",
    args: [id],
    run: (api, a) => api.getHistory(a.id as string),
  },
  {
    command: "get-schema",
    summary: "effective schema of a field (static schema with live meta values)",
    args: [id, path],
    run: (api, a) => api.getSchema(a.id as string, a.path as string),
  },
  {
    command: "explain",
    summary: "trace records of a field or $constraint:<id>",
    args: [id, path, arg("limit", "integer", "most recent N records", false)],
    run: (api, a) => api.explain(a.id as string, a.path as string, a.limit as number | undefined),
  },
  {
    command: "snapshot",
    summary: "an immutable copy of state",
    args: [id],
    run: (api, a) => api.snapshot(a.id as string),
  },
  {
    command: "restore",
    summary: "restore a snapshot",
    args: [id, arg("snapshot", "object", "a snapshot as returned by snapshot")],
    run: async (api, a) => {
      await api.restore(a.id as string, a.snapshot);
      return { restored: true };
    },
  },
  {
    command: "evolve-spec",
    summary: "evolve the spec by a SpecEvolution diff, carrying state forward; returns {id, version}",
    args: [id, arg("evolution", "object", "the SpecEvolution")],
    run: (api, a) => api.evolveSpec(a.id as string, a.evolution),
  },
  {
    command: "delete-model",
    summary: "remove a model",
    args: [id],
    run: async (api, a) => {
      await api.deleteModel(a.id as string);
      return { deleted: true };
    },
  },
  {
    command: "get-graph",
    summary: "dependency graph: nodes, edges, levels",
    args: [id],
    run: (api, a) => api.getGraph(a.id as string),
  },
  {
    command: "get-verification",
    summary: "verification report of the embedded tests",
    args: [id],
    run: (api, a) => api.getVerification(a.id as string),
  },
  {
    command: "get-audit",
    summary: "audit records, newest first",
    args: [
      id,
      arg("pathPrefix", "string", "keep records touching this address prefix", false),
      arg("from", "string", "ISO-8601 lower bound (inclusive)", false),
      arg("to", "string", "ISO-8601 upper bound (exclusive)", false),
      arg("limit", "integer", "at most N records (default 100)", false),
    ],
    run: (api, a) =>
      api.getAudit(a.id as string, {
        pathPrefix: a.pathPrefix as string | undefined,
        from: a.from as string | undefined,
        to: a.to as string | undefined,
        limit: a.limit as number | undefined,
      }),
  },
  {
    command: "verify-audit",
    summary: "verify the audit hash chain",
    args: [id],
    run: (api, a) => api.verifyAudit(a.id as string),
  },
  {
    command: "upload-blob",
    summary: "store binary data (base64); returns a BlobRef",
    args: [arg("data", "string", "base64 content"), arg("mediaType", "string", "media type", false)],
    run: (api, a) => api.uploadBlob(decodeBase64(a.data as string), a.mediaType as string | undefined),
  },
  {
    command: "get-blob",
    summary: "read a blob: {blobId, mediaType, data (base64)}",
    args: [arg("blobId", "string", "blob id")],
    run: async (api, a) => blobResult(a.blobId as string, await api.getBlob(a.blobId as string)),
  },
  {
    command: "get-model-blob",
    summary: "read a blob the model's state references",
    args: [id, arg("blobId", "string", "blob id")],
    run: async (api, a) =>
      blobResult(a.blobId as string, await api.getModelBlob(a.id as string, a.blobId as string)),
  },
  {
    command: "get-view",
    summary: "the evaluated default view, or the view viewId",
    args: [id, arg("viewId", "string", "id of a view in the viewDefinition", false)],
    run: (api, a) => api.getView(a.id as string, a.viewId as string | undefined),
  },
];
