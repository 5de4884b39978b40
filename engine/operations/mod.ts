/**
 * Every operation once. The console commands, the MCP tools, the REST routes
 * (and so the OpenAPI document) and the remote client are all derived from
 * this list; adding an operation means declaring it here and implementing its
 * {@link ModelApi} method (see README "Adding an operation").
 *
 * @module
 */
import { getAudit, verifyAudit } from "./audit.ts";
import { dryRun, evalExpression, getDomainGuidance, testSpec, validateSpec } from "./authoring.ts";
import {
  collectBlobGarbage,
  downloadBlob,
  getBlob,
  getModelBlob,
  uploadBlob,
  uploadBlobData,
} from "./blobs.ts";
import {
  evolveSpecAi,
  generateEvolution,
  generateSpec,
  getGenerationStatus,
  getLlmInteractions,
  previewEvolution,
  previewGeneration,
} from "./generation.ts";
import {
  approveEffect,
  flattenSpec,
  getCompositionGraph,
  getLineage,
  getPendingEffects,
  promote,
} from "./composition.ts";
import {
  createModel,
  deleteModel,
  evolveSpec,
  getInfo,
  getLibrary,
  getSpec,
  listModels,
  listUnloadedModels,
} from "./models.ts";
import type { AnyOperation } from "./operation.ts";
import { pairBrowser } from "./pairing.ts";
import {
  explain,
  getField,
  getGraph,
  getHistory,
  getSchema,
  getState,
  getVerification,
  readField,
  restore,
  snapshot,
} from "./reads.ts";
import { deleteRecovery, getRecovery, listRecovery } from "./recovery.ts";
import { getView } from "./views.ts";
import { mutate, patch } from "./writes.ts";

export * from "./audit.ts";
export * from "./authoring.ts";
export * from "./blobs.ts";
export * from "./composition.ts";
export * from "./generation.ts";
export * from "./input.ts";
export * from "./invoker.ts";
export * from "./json_schema.ts";
export * from "./models.ts";
export * from "./operation.ts";
export * from "./pairing.ts";
export * from "./reads.ts";
export * from "./recovery.ts";
export * from "./remote.ts";
export * from "./views.ts";
export * from "./writes.ts";

/** Every operation, in the order surfaces list them. */
export const OPERATIONS: readonly AnyOperation[] = [
  listModels,
  createModel,
  getSpec,
  getLibrary,
  getInfo,
  getState,
  getField,
  readField,
  getSchema,
  mutate,
  patch,
  getHistory,
  explain,
  getAudit,
  verifyAudit,
  snapshot,
  restore,
  evolveSpec,
  deleteModel,
  getGraph,
  getVerification,
  getView,
  uploadBlob,
  uploadBlobData,
  getBlob,
  getModelBlob,
  downloadBlob,
  collectBlobGarbage,
  listUnloadedModels,
  listRecovery,
  getRecovery,
  deleteRecovery,
  pairBrowser,
  getDomainGuidance,
  validateSpec,
  evalExpression,
  testSpec,
  dryRun,
  previewGeneration,
  generateSpec,
  previewEvolution,
  generateEvolution,
  evolveSpecAi,
  getLlmInteractions,
  getGenerationStatus,
  flattenSpec,
  getLineage,
  getPendingEffects,
  approveEffect,
  promote,
  getCompositionGraph,
];
