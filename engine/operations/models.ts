/**
 * Registry operations: list, create, read info and spec, delete, evolve; the
 * stored models that did not load (an evolution repairs one, a deletion discards it).
 *
 * @module
 */
import { z } from "zod";
import type { ModelInfo } from "../service/api.ts";
import { apiOperation } from "./operation.ts";
import {
  BY_ID,
  CREATED,
  DELETED,
  EVOLUTION_ARGUMENT,
  EVOLVED,
  FINDING,
  LIBRARY,
  MODEL_ID,
  MODEL_INFO,
  NOT_LOADED_BODY,
  PROBLEM,
  SPEC_ARGUMENT,
  SPEC_INVALID_BODY,
  STORED_SPEC,
  VERSION_CONFLICT_BODY,
} from "./schemas.ts";

/** The 404 every model route documents. */
export const UNKNOWN_MODEL = { description: "unknown model" };

/** The 409 of every operation on a stored model that did not load, but evolve and delete. */
const NOT_LOADED = {
  description: "stored, but its stored spec fails a check: evolve it to repair it, or delete it",
  body: NOT_LOADED_BODY,
};

/** The 429 of a full per-model queue. */
export const QUEUE_FULL = { description: "svc.mutation-queue-size exceeded for this model" };

/** The location of a model resource. */
export function modelLocation(id: string): string {
  return `/models/${encodeURIComponent(id)}`;
}

/** The create answer: `{id, status}`, and the spec's warnings when it has any. */
const created = (info: ModelInfo) => ({
  id: info.id,
  status: "created" as const,
  ...(info.warnings ? { warnings: info.warnings } : {}),
});

/** `GET /models`. */
export const listModels = apiOperation({
  name: "listModels",
  summary: "ids of every model, alphabetical",
  input: () => z.object({}),
  output: () => z.array(z.string()),
  run: (api) => api.listModels(),
  rest: { method: "get", path: "/models", tag: "models", errors: {} },
  console: { command: "list-models" },
  mcp: {
    tool: "list_models",
    title: "List models",
    description: "Ids of every registered model, alphabetical.",
    kind: "read",
  },
});

/** `GET /admin/unloaded-models`. */
export const listUnloadedModels = apiOperation({
  name: "listUnloadedModels",
  summary: "stored models that did not load, with their stored spec's findings (evolve to repair, or delete)",
  input: () => z.object({}),
  output: () => z.array(z.looseObject({ id: z.string(), errors: z.array(FINDING()) })),
  run: (api) => api.listUnloadedModels(),
  rest: { method: "get", path: "/admin/unloaded-models", tag: "admin", errors: {} },
  console: { command: "list-unloaded-models" },
});

/** `POST /models`. */
export const createModel = apiOperation({
  name: "createModel",
  summary: "register a model from a ModelSpec",
  input: () => z.object({ spec: SPEC_ARGUMENT().describe("the ModelSpec") }),
  output: MODEL_INFO,
  run: (api, { spec }) => api.createModel(spec),
  rest: {
    method: "post",
    path: "/models",
    tag: "models",
    body: { member: "spec", description: "the ModelSpec" },
    status: 201,
    present: created,
    presented: CREATED,
    location: (info) => modelLocation(info.id),
    // The answer is {id, status, warnings?}; the model info the operation promises is one more read.
    decode: async (body, _input, invoke) => {
      const { id, warnings } = body as { id: string; warnings?: ModelInfo["warnings"] };
      const info = await invoke(getInfo, { id });
      return warnings ? { ...info, warnings } : info;
    },
    errors: {
      400: { description: "malformed JSON" },
      409: { description: "duplicate model id" },
      422: { description: "spec validation failed, with every finding", body: SPEC_INVALID_BODY },
      429: { description: "svc.max-models reached" },
    },
  },
  console: { command: "create-model", present: created },
  mcp: {
    tool: "create_model",
    title: "Create a model",
    description: "Register a model from a ModelSpec; returns its model info (id, version and section " +
      "counts). Check the spec with validate_spec / test_spec / dry_run first. A duplicate id fails.",
    kind: "write",
  },
});

/** `GET /models/{id}`. */
export const getInfo = apiOperation({
  name: "getInfo",
  summary: "model id, version and section counts",
  input: BY_ID,
  output: MODEL_INFO,
  run: (api, { id }) => api.getInfo(id),
  rest: {
    method: "get",
    path: "/models/{id}",
    operationId: "getModelInfo",
    tag: "models",
    errors: { 404: UNKNOWN_MODEL, 409: NOT_LOADED },
  },
  console: { command: "get-info" },
  mcp: {
    tool: "get_model_info",
    title: "Get model info",
    description: "Model id, version and counts of derivations, meta derivations, constraints and effects.",
    kind: "read",
  },
});

/** `GET /models/{id}/spec`. */
export const getSpec = apiOperation({
  name: "getSpec",
  summary: "the stored ModelSpec",
  input: BY_ID,
  output: STORED_SPEC,
  run: (api, { id }) => api.getSpec(id),
  rest: { method: "get", path: "/models/{id}/spec", tag: "models", errors: { 404: UNKNOWN_MODEL } },
  console: { command: "get-spec" },
  mcp: {
    tool: "get_spec",
    title: "Get the spec",
    description: "The stored ModelSpec of a model.",
    kind: "read",
  },
});

/** `GET /models/{id}/library`. */
export const getLibrary = apiOperation({
  name: "getLibrary",
  summary: "the model's library: its layers and exports",
  input: BY_ID,
  output: LIBRARY,
  run: (api, { id }) => api.getLibrary(id),
  rest: {
    method: "get",
    path: "/models/{id}/library",
    tag: "models",
    errors: { 404: { description: "unknown model, or the model has no library" } },
  },
  console: { command: "get-library" },
  mcp: {
    tool: "get_library",
    title: "Get the library",
    description: "The JSONata library of a model: its layers (origin, pin, define) and its exports, " +
      "functions (signature, arity) then constants (value).",
    kind: "read",
  },
});

/** `DELETE /models/{id}`. */
export const deleteModel = apiOperation({
  name: "deleteModel",
  summary: "remove a model, its state and its audit trail",
  input: BY_ID,
  run: (api, { id }) => api.deleteModel(id),
  rest: {
    method: "delete",
    path: "/models/{id}",
    tag: "models",
    status: 204,
    errors: { 404: UNKNOWN_MODEL },
  },
  console: { command: "delete-model", present: () => ({ deleted: true }) },
  mcp: {
    tool: "delete_model",
    title: "Delete a model",
    description: "Remove a model and its state.",
    kind: "destructive",
    idempotent: true,
    present: () => ({ deleted: true }),
    output: DELETED,
  },
});

/** `POST /models/{id}/spec/evolve`. */
export const evolveSpec = apiOperation({
  name: "evolveSpec",
  summary:
    "evolve the spec by a SpecEvolution diff, carrying state forward; returns {id, version, warnings?}",
  input: () => z.object({ id: MODEL_ID(), evolution: EVOLUTION_ARGUMENT().describe("the SpecEvolution") }),
  output: EVOLVED,
  run: (api, { id, evolution }) => api.evolveSpec(id, evolution),
  rest: {
    method: "post",
    path: "/models/{id}/spec/evolve",
    summary: "Evolve the spec by a SpecEvolution (optimistic `expectedVersion`, optional backfill)",
    tag: "models",
    body: { member: "evolution", description: "the SpecEvolution" },
    errors: {
      400: { description: "malformed JSON or evolution" },
      404: UNKNOWN_MODEL,
      409: { description: "expectedVersion does not match the live version", body: VERSION_CONFLICT_BODY },
      422: {
        description: "the evolved spec is invalid, state would be stranded, or a removed definition or " +
          "constant is still referenced; a repair: the findings left, or a stored write it refuses",
        body: [SPEC_INVALID_BODY, PROBLEM],
      },
      429: QUEUE_FULL,
    },
  },
  console: { command: "evolve-spec" },
  mcp: {
    tool: "evolve_spec",
    title: "Evolve the spec",
    description: "Apply a SpecEvolution diff to a live model, carrying its state forward; all or nothing. " +
      "Pass expectedVersion (inside evolution) to guard against concurrent changes. Returns the new version, " +
      "with the evolved spec's warnings (likely typos) as validate_spec gives them.",
    kind: "destructive",
  },
});
