/**
 * Write routes: a flat mutation map and an RFC 6902 JSON Patch.
 *
 * @module
 */
import type { Context } from "hono";
import type { Json } from "../../engine/json/value.ts";
import type { MutationResult, PatchOperation } from "../../engine/runtime/results.ts";
import type { ModelService } from "../../engine/service/service.ts";
import { ref } from "./schemas.ts";
import {
  ID_PARAM,
  jsonBody,
  jsonResponse,
  modelId,
  type ParamDoc,
  problem,
  readJson,
  type ResponseDoc,
  type Route,
} from "./route.ts";
import { checkViewId } from "./views.ts";

const WRITE_RESPONSES: Record<number, ResponseDoc> = {
  200: jsonResponse("committed", ref("MutationResponse")),
  400: problem("malformed JSON or body of the wrong shape"),
  404: problem("unknown model, or the X-View view is unknown (nothing applied)"),
  409: problem("a rollback constraint failed; nothing was applied", ref("ConstraintViolationBody")),
  422: problem("schema violation (nothing applied), or array index beyond the limit", {
    oneOf: [ref("SchemaViolationBody"), ref("Problem")],
  }),
  429: problem("svc.mutation-queue-size exceeded for this model"),
};

/** The `X-View` header. */
export const VIEW_HEADER: ParamDoc = {
  name: "X-View",
  in: "header",
  description: "a view id: the response then carries `viewDelta` for that view",
  schema: { type: "string" },
};

/**
 * Runs a write; with `X-View` the view is checked first (nothing is written
 * for an unknown view) and the committed result gains `viewDelta`.
 */
async function write(
  c: Context,
  service: ModelService,
  run: (id: string, body: unknown) => Promise<MutationResult>,
): Promise<Response> {
  const id = modelId(c);
  const viewId = c.req.header("X-View")?.trim();
  const body = await readJson(c);
  if (viewId) checkViewId(service, id, viewId);
  const result = await run(id, body);
  if (!viewId) return c.json(result);
  return c.json({ ...result, viewDelta: await service.viewDelta(id, viewId, result) });
}

/** Write routes. */
export const MUTATION_ROUTES: Route[] = [
  {
    method: "post",
    path: "/models/{id}/mutations",
    operationId: "mutate",
    summary: "Write base fields: a flat map of canonical address to value",
    tag: "mutations",
    parameters: [ID_PARAM, VIEW_HEADER],
    requestBody: { description: "address -> value", content: jsonBody(ref("Mutations")) },
    responses: WRITE_RESPONSES,
    handle: (c, { service }) =>
      write(c, service, (id, body) => service.mutate(id, body as Record<string, Json>)),
  },
  {
    method: "post",
    path: "/models/{id}/mutations/patch",
    operationId: "patchModel",
    summary: "Apply an RFC 6902 JSON Patch (array insert, remove, reorder)",
    tag: "mutations",
    parameters: [ID_PARAM, VIEW_HEADER],
    requestBody: {
      description: "RFC 6902 operations",
      content: { "application/json-patch+json": ref("JsonPatch"), "application/json": ref("JsonPatch") },
    },
    responses: WRITE_RESPONSES,
    handle: (c, { service }) => write(c, service, (id, body) => service.patch(id, body as PatchOperation[])),
  },
];
