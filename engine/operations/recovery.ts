/**
 * Operator access to states that could not be reconstructed at startup: the
 * service loads such a model spec-only with state reset, keeps what was stored
 * (base state and log) under a recovery key and names the model in the log;
 * these operations list and export what was kept, and remove it once an
 * operator has exported it.
 *
 * @module
 */
import { z } from "zod";
import { MODEL_ID } from "./schemas.ts";
import { apiOperation } from "./operation.ts";
import { lazySchema } from "./json_schema.ts";

const RECOVERY_SUMMARY = lazySchema(() =>
  z.looseObject({
    modelId: z.string(),
    detectedAt: z.string().describe("when a startup found the state unreadable (ISO-8601)"),
    reason: z.string(),
    logEntries: z.number().int(),
  })
);

const RECOVERY_RECORD = lazySchema(() =>
  z.looseObject({
    modelId: z.string(),
    detectedAt: z.string(),
    reason: z.string(),
    spec: z.looseObject({}),
    base: z.unknown().describe("the stored base state {doc, meta, stale}, null when unreadable"),
    baseAt: z.number().nullable(),
    log: z.array(z.unknown()).describe(
      "the logged writes after the base {at, source, request}, oldest first",
    ),
  })
);

/** `GET /admin/recovery`. */
export const listRecovery = apiOperation({
  name: "listRecovery",
  summary: "list the states kept because a startup could not reconstruct them",
  input: () => z.object({}),
  output: () => z.array(RECOVERY_SUMMARY()),
  run: (api) => api.listRecovery(),
  rest: { method: "get", path: "/admin/recovery", tag: "admin", errors: {} },
  console: { command: "list-recovery" },
});

/** `GET /admin/recovery/{id}`. */
export const getRecovery = apiOperation({
  name: "getRecovery",
  summary: "export the kept states of a model (spec, base state, log)",
  input: () => z.object({ id: MODEL_ID() }),
  output: () => z.array(RECOVERY_RECORD()),
  run: (api, { id }) => api.getRecovery(id),
  rest: {
    method: "get",
    path: "/admin/recovery/{id}",
    tag: "admin",
    errors: { 404: { description: "nothing kept for this model" } },
  },
  console: { command: "get-recovery" },
});

/** `DELETE /admin/recovery/{id}`. */
export const deleteRecovery = apiOperation({
  name: "deleteRecovery",
  summary: "remove the kept states of a model (export them first with getRecovery)",
  input: () => z.object({ id: MODEL_ID() }),
  output: () =>
    z.object({
      modelId: z.string(),
      deleted: z.number().int().describe("how many kept records were removed"),
    }),
  run: (api, { id }) => api.deleteRecovery(id),
  rest: {
    method: "delete",
    path: "/admin/recovery/{id}",
    tag: "admin",
    errors: {
      403: { description: "in open mode (no svc.api.key)" },
      404: { description: "nothing kept for this model" },
    },
  },
  console: { command: "delete-recovery" },
});
