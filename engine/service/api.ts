/**
 * The one contract every surface speaks: {@link ModelService} implements it;
 * the operations of `engine/operations/` map each console command, MCP tool
 * and REST route onto it (and, remotely, onto the REST route of the same
 * operation).
 *
 * @module
 */
import type { AuditRecord, AuditVerification } from "../audit/chain.ts";
import type { PendingEffect } from "../composition/quarantine.ts";
import type { Finding } from "../errors.ts";
import type { CompositionGraph } from "./composition.ts";
import type { GraphView } from "../graph/projection.ts";
import type { Json, JsonObject } from "../json/value.ts";
import type { MutationResult, PatchOperation } from "../runtime/results.ts";
import type { Snapshot } from "../runtime/runtime.ts";
import type { VerificationReport } from "../runtime/testing.ts";
import type { TraceRecord } from "../runtime/traces.ts";
import type { ModelSpec } from "../model/types.ts";
import type { LibraryDescription } from "../model/library_description.ts";
import type { RecoveryDeletion, RecoveryRecord, RecoverySummary } from "./ports.ts";
import type { UnloadedSummary } from "./unloaded.ts";
import type { EvaluatedComponent, EvaluatedView } from "../view/evaluate.ts";
import type {
  AiEvolutionRequest,
  AiEvolutionResult,
  EvolutionGenerationRequest,
  EvolutionGenerationResult,
  EvolutionPreviewRequest,
  GenerationPreviewRequest,
  GenerationRequest,
  GenerationResult,
  GenerationStatus,
  InteractionRecord,
  PromptPreview,
  RunOptions,
} from "./generation.ts";

export type { RunOptions } from "./generation.ts";

/** Model info (DECISIONS.md "Model info"). */
export interface ModelInfo {
  id: string;
  version: string;
  derivationCount: number;
  metaDerivationCount: number;
  constraintCount: number;
  effectCount: number;
  /** Create only: the spec's validation warnings, when it has any (a likely typo, an unused definition). */
  warnings?: Finding[];
}

/** An evolution's answer: the new version, and the evolved spec's warnings when it has any (as create's). */
export interface Evolved {
  id: string;
  version: string;
  warnings?: Finding[];
}

/** A reference to a stored blob, as kept in state. */
export interface BlobRef {
  $blobId: string;
  $mediaType: string;
  $bytes: number;
}

/** A blob read back. */
export interface BlobContent {
  bytes: Uint8Array;
  mediaType: string;
}

/** Options of a write. */
export interface WriteOptions {
  /**
   * A view id: the result then carries `viewDelta`, the components of that
   * view the write touched, evaluated in the write's own queue turn. An
   * unknown view fails the write (404) before anything is applied.
   */
  viewId?: string;
}

/** A write's result, with the view delta when one was asked for. */
export type WriteResult = MutationResult & { viewDelta?: Record<string, EvaluatedComponent> };

/** What a blob garbage collection found (and deleted, when applied). */
export interface BlobGcReport {
  /** False when the blob store cannot be enumerated. */
  supported: boolean;
  /** True when the orphans were deleted. */
  applied: boolean;
  /** Blobs referenced by current state or retained history. */
  referenced: number;
  orphans: { blobId: string; bytes: number }[];
  orphanBytes: number;
}

/** Audit read parameters as callers pass them (timestamps ISO-8601). */
export interface AuditParams {
  pathPrefix?: string;
  from?: string;
  to?: string;
  before?: number;
  limit?: number;
}

/** Every model operation, surface-independent. */
export interface ModelApi {
  listModels(): Promise<string[]>;
  createModel(spec: unknown): Promise<ModelInfo>;
  getInfo(id: string): Promise<ModelInfo>;
  /** The spec; of a stored model that did not load, its stored spec (every other read of it is a 409). */
  getSpec(id: string): Promise<ModelSpec>;
  /** The model's library: layers and exports; 404 when it has none. */
  getLibrary(id: string): Promise<LibraryDescription>;
  deleteModel(id: string): Promise<void>;
  getState(id: string, at?: string): Promise<Json>;
  getField(id: string, path: string): Promise<Json>;
  mutate(id: string, mutations: Record<string, Json>, options?: WriteOptions): Promise<WriteResult>;
  patch(id: string, ops: PatchOperation[], options?: WriteOptions): Promise<WriteResult>;
  getHistory(id: string): Promise<string[]>;
  getSchema(id: string, path: string): Promise<JsonObject>;
  explain(id: string, path: string, limit?: number): Promise<TraceRecord[]>;
  snapshot(id: string): Promise<Snapshot>;
  restore(id: string, snapshot: unknown): Promise<void>;
  /** Applies a SpecEvolution (SPEC.md "SpecEvolution") atomically; returns the new version. */
  evolveSpec(id: string, evolution: unknown): Promise<Evolved>;
  getGraph(id: string): Promise<GraphView>;
  getVerification(id: string): Promise<VerificationReport>;
  getAudit(id: string, params?: AuditParams): Promise<AuditRecord[]>;
  verifyAudit(id: string): Promise<AuditVerification>;
  uploadBlob(bytes: Uint8Array, mediaType?: string): Promise<BlobRef>;
  getBlob(blobId: string): Promise<BlobContent>;
  getModelBlob(id: string, blobId: string): Promise<BlobContent>;
  /**
   * Lists blobs no current state or retained history references and, with
   * `apply`, deletes them (refused with 403 where destructive administration
   * is not allowed: a server in open mode).
   */
  collectBlobGarbage(apply: boolean): Promise<BlobGcReport>;
  /**
   * Stored models that did not load because their stored spec fails a check
   * (their ids stay taken): each with its findings, by id. An evolution
   * fixing the findings repairs one; a deletion discards it.
   */
  listUnloadedModels(): Promise<UnloadedSummary[]>;
  /** States a startup could not reconstruct (kept before the model was reset), without contents. */
  listRecovery(): Promise<RecoverySummary[]>;
  /** The kept states of a model; 404 when none. */
  getRecovery(id: string): Promise<RecoveryRecord[]>;
  /**
   * Removes the kept states of a model once an operator has exported them;
   * 404 when none, 403 where destructive administration is not allowed.
   */
  deleteRecovery(id: string): Promise<RecoveryDeletion>;
  /** The evaluated default view, or the view `viewId`. */
  getView(id: string, viewId?: string): Promise<EvaluatedView>;

  // LLM generation (503 without a configured provider).
  /** Whether generation works here; when not, `message` says why (the keys to set, or what is not allowed). */
  getGenerationStatus(): Promise<GenerationStatus>;
  /** The generation prompt for a domain description, without calling the LLM. */
  previewGeneration(request: GenerationPreviewRequest): Promise<PromptPreview>;
  /** A spec from a prompt or a description, through the validate-and-repair loop. */
  generateSpec(request: GenerationRequest, options?: RunOptions): Promise<GenerationResult>;
  /** The evolution prompt for a change request, without calling the LLM. */
  previewEvolution(request: EvolutionPreviewRequest): Promise<PromptPreview>;
  /** A SpecEvolution from an evolution prompt (not applied). */
  generateEvolution(
    request: EvolutionGenerationRequest,
    options?: RunOptions,
  ): Promise<EvolutionGenerationResult>;
  /** Drafts a SpecEvolution from a sentence and applies it through {@link evolveSpec}. */
  evolveSpecAi(id: string, request: AiEvolutionRequest, options?: RunOptions): Promise<AiEvolutionResult>;
  /** Recorded prompt and response pairs, newest first. */
  getLlmInteractions(): Promise<InteractionRecord[]>;
  /**
   * A candidate spec as {@link createModel} would compile it: a branch
   * flattened over its template, a library's `extends` inherited; nothing is
   * registered. 422 with the finding when a reference cannot be resolved.
   */
  flattenSpec(spec: unknown): Promise<ModelSpec>;
  /** The pinned ancestor chain of a branch, nearest first; `[]` for a model that is not one. */
  getLineage(id: string): Promise<Json[]>;
  /** Inherited effects of another owner waiting for approval. */
  getPendingEffects(id: string): Promise<PendingEffect[]>;
  /** Approves a quarantined effect at its current definitionHash. */
  approveEffect(
    id: string,
    effectId: string,
  ): Promise<{ effectId: string; definitionHash: string; approved: true }>;
  /** Publishes a model to a web repository; the model stays here. */
  promote(id: string, toRepo: string): Promise<{ id: string; promotedTo: string }>;
  /** Links and lineage among the models, computed now. */
  getCompositionGraph(): Promise<CompositionGraph>;
}
