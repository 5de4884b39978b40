/**
 * Model registry routes: list, create, read info and spec, delete.
 *
 * @module
 */
import { ref } from "./schemas.ts";
import {
  ID_PARAM,
  jsonBody,
  jsonResponse,
  modelId,
  problem,
  readJson,
  type Route,
  UNKNOWN_MODEL,
} from "./route.ts";

/** The location of a model resource. */
export function modelLocation(id: string): string {
  return `/models/${encodeURIComponent(id)}`;
}

/** Registry routes. */
export const MODEL_ROUTES: Route[] = [
  {
    method: "get",
    path: "/models",
    operationId: "listModels",
    summary: "Ids of every model, alphabetical",
    tag: "models",
    responses: { 200: jsonResponse("model ids", { type: "array", items: { type: "string" } }) },
    handle: async (c, { service }) => c.json(await service.listModels()),
  },
  {
    method: "post",
    path: "/models",
    operationId: "createModel",
    summary: "Register a model from a ModelSpec",
    tag: "models",
    requestBody: { description: "the ModelSpec", content: jsonBody(ref("ModelSpec")) },
    responses: {
      201: {
        ...jsonResponse("created", ref("Created")),
        headers: { Location: { description: "/models/{id}", schema: { type: "string" } } },
      },
      400: problem("malformed JSON"),
      409: problem("duplicate model id"),
      422: problem("spec validation failed, with every finding", ref("SpecInvalidBody")),
      429: problem("svc.max-models reached"),
    },
    handle: async (c, { service }) => {
      const info = await service.createModel(await readJson(c));
      return c.json({ id: info.id, status: "created" }, 201, { Location: modelLocation(info.id) });
    },
  },
  {
    method: "get",
    path: "/models/{id}",
    operationId: "getModelInfo",
    summary: "Model id, version and section counts",
    tag: "models",
    parameters: [ID_PARAM],
    responses: { 200: jsonResponse("model info", ref("ModelInfo")), 404: UNKNOWN_MODEL },
    handle: async (c, { service }) => c.json(await service.getInfo(modelId(c))),
  },
  {
    method: "delete",
    path: "/models/{id}",
    operationId: "deleteModel",
    summary: "Remove a model, its state and its audit trail",
    tag: "models",
    parameters: [ID_PARAM],
    responses: { 204: { description: "deleted" }, 404: UNKNOWN_MODEL },
    handle: async (c, { service }) => {
      await service.deleteModel(modelId(c));
      return c.body(null, 204);
    },
  },
  {
    method: "get",
    path: "/models/{id}/spec",
    operationId: "getSpec",
    summary: "The stored ModelSpec",
    tag: "models",
    parameters: [ID_PARAM],
    responses: { 200: jsonResponse("the spec", ref("ModelSpec")), 404: UNKNOWN_MODEL },
    handle: async (c, { service }) => c.json(await service.getSpec(modelId(c))),
  },
  {
    method: "post",
    path: "/models/{id}/spec/evolve",
    operationId: "evolveSpec",
    summary: "Evolve the spec by a SpecEvolution (optimistic `expectedVersion`, optional backfill)",
    tag: "models",
    parameters: [ID_PARAM],
    requestBody: { description: "the SpecEvolution", content: jsonBody(ref("SpecEvolution")) },
    responses: {
      200: jsonResponse("evolved", ref("Evolved")),
      400: problem("malformed JSON or evolution"),
      404: UNKNOWN_MODEL,
      409: problem("expectedVersion does not match the live version", ref("VersionConflictBody")),
      422: problem(
        "the evolved spec is invalid, state would be stranded, or a removed definition or " +
          "constant is still referenced",
        { oneOf: [ref("SpecInvalidBody"), ref("Problem")] },
      ),
      429: problem("svc.mutation-queue-size exceeded for this model"),
    },
    handle: async (c, { service }) => c.json(await service.evolveSpec(modelId(c), await readJson(c))),
  },
];
