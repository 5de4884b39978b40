/**
 * LLM-assisted generation and evolution of specs (SPEC.md item 11): the
 * request and result shapes, the limits and argument rules every surface
 * shares, and the {@link SpecGenerator} port a host injects into
 * `ModelService.open({generator})`. The generator itself (prompts, the
 * validate-and-repair loop, the tools, the provider adapters) lives in llm/.
 * Without a generator every generation operation fails with 503.
 *
 * @module
 */
import { badRequest, describeFindings, type Finding, ServiceError, unavailable } from "../errors.ts";
import type { Json, JsonObject } from "../json/value.ts";
import type { VerificationReport } from "../runtime/testing.ts";
import type { ModelSpec } from "../model/types.ts";
import { idProblem } from "../model/model_spec_schema.ts";
import type { AuthoringEngine } from "./authoring.ts";

/** The longest `domainDescription` or AI-evolve `description` (SPEC.md "Limits"). */
export const MAX_DESCRIPTION_CHARS = 5000;
/** The longest prompt sent to the LLM (SPEC.md "Limits"). */
export const MAX_PROMPT_CHARS = 100_000;

/** What a running operation may report (SSE `progress` frames, MCP `notifications/progress`). */
export type ProgressEvent = { type: string } & Record<string, Json>;

/** A link handed to the person at the caller's side, and what became of it. */
export interface LinkHandOver {
  /** True once the person agreed to open the link; false when they declined or the caller could not ask. */
  accepted: Promise<boolean>;
  /** Tells the caller that what the link was for is done. */
  complete(): Promise<void>;
  /** Withdraws the request when the operation stops waiting before the person answered. */
  withdraw(): void;
}

/** What a caller may hand a running operation besides its input. */
export interface RunOptions {
  /** Aborted when the caller goes away (a closed event stream, a cancelled MCP request). */
  signal?: AbortSignal;
  /** Receives progress reports of long operations. */
  progress?(event: ProgressEvent): void;
  /**
   * Hands a link to the person at the caller's side (MCP URL-mode
   * elicitation); absent where the surface cannot.
   */
  handOver?(link: { url: string; message: string }): LinkHandOver;
}

/** `POST /models/generate/preview` and the stream's input. */
export interface GenerationPreviewRequest {
  modelId: string;
  domainDescription: string;
  includeView?: boolean;
}

/** `POST /models/generate`: a (possibly edited) preview prompt, or a description to build one from. */
export interface GenerationRequest {
  modelId: string;
  prompt?: string;
  domainDescription?: string;
  includeView?: boolean;
}

/** `POST /models/generate/evolution/preview`. */
export interface EvolutionPreviewRequest {
  modelId: string;
  currentSpec: unknown;
  evolutionRequest: string;
  includeView?: boolean;
}

/** `POST /models/generate/evolution`: an evolution prompt; `currentSpec` (or the live model `modelId`) checks the draft. */
export interface EvolutionGenerationRequest {
  modelId: string;
  prompt: string;
  currentSpec?: unknown;
}

/** `POST /models/{id}/spec/evolve/ai`. */
export interface AiEvolutionRequest {
  description: string;
  /** `undefined`: yes when the spec has a view. */
  includeView?: boolean;
}

/** Whether generation works on a host; `message` says why not. */
export interface GenerationStatus {
  available: boolean;
  message?: string;
}

/** A prompt built without calling the LLM. */
export interface PromptPreview {
  prompt: string;
}

/** A finding of a generated spec that did not validate. */
export interface GenerationFinding {
  location: string;
  message: string;
  severity: "error" | "warning";
}

/** A generated spec that validated (tests and view lint may still have findings: best effort). */
export interface GenerationResult {
  valid: true;
  spec: ModelSpec;
  verification: VerificationReport;
}

/** A drafted SpecEvolution that applies to the current spec. */
export interface EvolutionGenerationResult {
  valid: true;
  evolution: JsonObject;
}

/** The AI evolve result: the applied version and the evolved spec. */
export interface AiEvolutionResult {
  version: string;
  spec: ModelSpec;
}

/** One web fetch made by the `web_fetch` tool during a call. */
export interface WebFetchRecord {
  url: string;
  responseCode: number | null;
  mediaType: string | null;
  rawLength: number;
  extractedLength: number;
}

/** One recorded prompt and response pair (`GET /llm/interactions`). */
export interface InteractionRecord {
  timestamp: string;
  system: string | null;
  user: string | null;
  prompt: string;
  response: string | null;
  errorMessage: string | null;
  durationMs: number;
  webFetchCalls: WebFetchRecord[];
  provider: string;
  model: string;
}

/** What the generator works with on each call. */
export interface GenerationContext extends RunOptions {
  /** Validation, tests and expression evaluation of candidate specs. */
  authoring: AuthoringEngine;
}

/**
 * The generation port: prompt building, the validate-and-repair loop over an
 * LLM provider, and the interaction log. Arguments reach it checked (limits,
 * blank descriptions); it throws {@link ServiceError}s: 422 for a spec that
 * could not be repaired, 502 for a provider failure.
 */
export interface SpecGenerator {
  /** The provider kind and model, for messages and progress. */
  readonly provider: string;
  readonly model: string;
  previewGeneration(request: GenerationPreviewRequest): PromptPreview;
  previewEvolution(request: EvolutionPreviewRequest): PromptPreview;
  generate(
    request: { modelId: string; prompt: string },
    context: GenerationContext,
  ): Promise<GenerationResult>;
  generateEvolution(
    request: { modelId: string; prompt: string; currentSpec?: ModelSpec },
    context: GenerationContext,
  ): Promise<EvolutionGenerationResult>;
  /**
   * Drafts a SpecEvolution of `currentSpec` from a description and hands each acceptable draft to `apply`
   * when given (the evolve path): one it refuses with 400, 413 or 422 is repaired like an invalid draft, its
   * other errors end the drafting; 502 when no draft was accepted within budget.
   */
  draftEvolution(
    request: {
      currentSpec: ModelSpec;
      description: string;
      includeView: boolean;
      apply?(draft: JsonObject): Promise<void>;
    },
    context: GenerationContext,
  ): Promise<JsonObject>;
  /** Recorded interactions, newest first (content redacted unless capture is on). */
  interactions(): InteractionRecord[];
}

/** The 503 of every generation operation when no provider is configured. */
export function noProvider(): ServiceError {
  return unavailable(
    "No LLM provider configured: set svc.llm.provider (anthropic, openai, ollama, openrouter, groq, mistral, " +
      "gemini, cerebras) with svc.llm.api-key (ollama needs none), optionally svc.llm.model and " +
      "svc.llm.base-url; or svc.llm.mock=true for a canned answer",
  );
}

/** The 422 of a generation whose every attempt failed validation: `{valid:false, errors, rawResponse}`. */
export function generationInvalid(errors: GenerationFinding[], rawResponse: string | null): ServiceError {
  const detail = describeFindings(errors.slice(0, 5));
  return new ServiceError("validation_failed", `Generated spec is invalid: ${detail}`, {
    valid: false,
    errors: errors as unknown as Json,
    rawResponse,
  });
}

/** The 422 of an evolution draft that did not apply: `{valid:false, error, rawResponse}`. */
export function evolutionInvalid(error: string, rawResponse: string | null): ServiceError {
  return new ServiceError("validation_failed", `Generated evolution is invalid: ${error}`, {
    valid: false,
    error,
    rawResponse,
  });
}

/** Checks a description: required, not blank, at most {@link MAX_DESCRIPTION_CHARS}. */
export function checkDescription(value: unknown, name: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw badRequest(`${name} is required and must not be blank`);
  }
  if (value.length > MAX_DESCRIPTION_CHARS) {
    throw badRequest(`${name} has ${value.length} characters; at most ${MAX_DESCRIPTION_CHARS} are allowed`);
  }
  return value;
}

/** Checks a prompt: required, not blank, at most {@link MAX_PROMPT_CHARS}. */
export function checkPrompt(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw badRequest("prompt is required and must not be blank");
  }
  if (value.length > MAX_PROMPT_CHARS) {
    throw badRequest(`prompt has ${value.length} characters; at most ${MAX_PROMPT_CHARS} are allowed`);
  }
  return value;
}

/**
 * Checks a model id for a generated spec by the rule a spec's `id` follows, so
 * an id no spec can have is refused before any paid call.
 */
export function checkModelId(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw badRequest("modelId is required and must not be blank");
  }
  const id = value.trim();
  const problem = idProblem(id);
  if (problem) throw badRequest(`modelId: ${problem}`);
  return id;
}

/** Findings of a validation report as generation findings. */
export function generationFindings(
  errors: Finding[],
  severity: "error" | "warning" = "error",
): GenerationFinding[] {
  return errors.map((f) => ({ location: f.location, message: f.message, severity }));
}
