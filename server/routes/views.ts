/**
 * View routes: the evaluated default view or a named one, and the `X-View`
 * check mutations run before writing.
 *
 * @module
 */
import { notFound } from "../../engine/errors.ts";
import type { ModelService } from "../../engine/service/service.ts";
import { viewDefinitionOf } from "../../engine/view/evaluate.ts";
import { ref } from "./schemas.ts";
import { ID_PARAM, jsonResponse, modelId, problem, type Route } from "./route.ts";

/**
 * Refuses (404) an `X-View` id the model has no view for, so a mutation that
 * asks for a delta of an unknown view is rejected before anything is written.
 */
export function checkViewId(service: ModelService, id: string, viewId: string): void {
  const model = service.compiledModel(id);
  if (!viewDefinitionOf(model).views.some((view) => view.id === viewId)) {
    throw notFound(`View '${viewId}' not found in model '${id}'`);
  }
}

/** View routes. */
export const VIEW_ROUTES: Route[] = [
  {
    method: "get",
    path: "/models/{id}/view",
    operationId: "getDefaultView",
    summary: "The evaluated default view",
    tag: "views",
    parameters: [ID_PARAM],
    responses: {
      200: jsonResponse("evaluated view", ref("EvaluatedView")),
      404: problem("unknown model, or the model has no view definition"),
    },
    handle: async (c, { service }) => c.json(await service.getView(modelId(c))),
  },
  {
    method: "get",
    path: "/models/{id}/view/{viewId}",
    operationId: "getView",
    summary: "An evaluated named view",
    tag: "views",
    parameters: [ID_PARAM, {
      name: "viewId",
      in: "path",
      required: true,
      description: "a view id of the model's view definition",
      schema: { type: "string" },
    }],
    responses: {
      200: jsonResponse("evaluated view", ref("EvaluatedView")),
      404: problem("unknown model, no view definition, or unknown view"),
    },
    handle: async (c, { service }) => c.json(await service.getView(modelId(c), c.req.param("viewId") ?? "")),
  },
];
