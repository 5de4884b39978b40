/**
 * The evaluated view of a model: the default view or a named one.
 *
 * @module
 */
import { z } from "zod";
import { apiOperation } from "./operation.ts";
import { EVALUATED_VIEW, MODEL_ID } from "./schemas.ts";

/** `GET /models/{id}/view` and `GET /models/{id}/view/{viewId}`. */
export const getView = apiOperation({
  name: "getView",
  summary: "the evaluated default view, or the view viewId",
  input: () =>
    z.object({
      id: MODEL_ID(),
      viewId: z.string().describe("id of a view in the viewDefinition").optional(),
    }),
  output: EVALUATED_VIEW,
  run: (api, { id, viewId }) => api.getView(id, viewId),
  rest: [
    {
      method: "get",
      path: "/models/{id}/view",
      operationId: "getDefaultView",
      summary: "The evaluated default view",
      tag: "views",
      errors: { 404: { description: "unknown model, or the model has no view definition" } },
    },
    {
      method: "get",
      path: "/models/{id}/view/{viewId}",
      summary: "An evaluated named view",
      tag: "views",
      errors: { 404: { description: "unknown model, no view definition, or unknown view" } },
    },
  ],
  console: { command: "get-view" },
  mcp: {
    tool: "get_view",
    title: "Evaluate a view",
    description: "The evaluated default view of the model, or the view viewId.",
    kind: "read",
  },
});
