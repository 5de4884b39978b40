/**
 * LLM-assisted generation and evolution of specs (SPEC.md item 11): prompt
 * previews, generation (blocking and as server-sent events), evolution drafts,
 * AI evolution of a live model, and the interaction log. Every one answers 503
 * when no provider is configured; the MCP tools `generate_spec` and
 * `evolve_spec_ai` are offered only where one is.
 *
 * @module
 */
import { z } from "zod";
import { ServiceError } from "../errors.ts";
import { isObject } from "../json/value.ts";
import { MAX_DESCRIPTION_CHARS, MAX_PROMPT_CHARS } from "../service/generation.ts";
import { UNKNOWN_MODEL } from "./models.ts";
import { apiOperation, type HostFeatures } from "./operation.ts";
import { component, lazySchema } from "./json_schema.ts";
import { FINDING, MODEL_ID, SPEC_ARGUMENT, STORED_SPEC, VERIFICATION_REPORT } from "./schemas.ts";

const GENERATED_ID = lazySchema(() => z.string().describe("the id the generated spec gets"));
const DESCRIPTION = lazySchema(() =>
  z.string().describe(`the domain in words (at most ${MAX_DESCRIPTION_CHARS} characters)`)
);
const PROMPT = lazySchema(() =>
  z.string().describe(
    `the full generation prompt, typically a preview's, possibly edited (at most ${MAX_PROMPT_CHARS} characters)`,
  )
);
const INCLUDE_VIEW = lazySchema(() => z.boolean().describe("also draft a viewDefinition").optional());

/** A prompt preview. */
export const PROMPT_PREVIEW = component("PromptPreview", () => z.looseObject({ prompt: z.string() }));

/** A generated, validated spec with its verification report. */
export const GENERATION_RESULT = component(
  "GenerationResult",
  () => z.looseObject({ valid: z.literal(true), spec: STORED_SPEC(), verification: VERIFICATION_REPORT() }),
);

/** A generation that produced no valid spec within its attempts. */
export const GENERATION_INVALID_BODY = component(
  "GenerationInvalid",
  () =>
    z.looseObject({
      valid: z.literal(false),
      errors: z.array(FINDING().extend({ severity: z.string() })),
      rawResponse: z.string().nullable(),
    }),
);

/** A drafted SpecEvolution. */
export const EVOLUTION_GENERATION_RESULT = component(
  "EvolutionGenerationResult",
  () => z.looseObject({ valid: z.literal(true), evolution: z.looseObject({}) }),
);

/** An evolution draft that did not apply. */
export const EVOLUTION_INVALID_BODY = component(
  "EvolutionGenerationInvalid",
  () => z.looseObject({ valid: z.literal(false), error: z.string(), rawResponse: z.string().nullable() }),
);

/** The AI evolve result. */
export const AI_EVOLUTION_RESULT = component(
  "AiEvolutionResult",
  () => z.looseObject({ version: z.string(), spec: STORED_SPEC() }),
);

/** One recorded prompt and response pair. */
export const INTERACTION_RECORD = component(
  "LlmInteraction",
  () =>
    z.looseObject({
      timestamp: z.string(),
      system: z.string().nullable(),
      user: z.string().nullable(),
      prompt: z.string(),
      response: z.string().nullable(),
      errorMessage: z.string().nullable(),
      durationMs: z.number(),
      webFetchCalls: z.array(z.looseObject({ url: z.string() })),
      provider: z.string(),
      model: z.string(),
    }),
);

const NO_PROVIDER = { description: "no LLM provider configured (svc.llm.*)" };
const LLM_FAILED = { description: "the LLM provider call failed" };
const BAD_REQUEST = { description: "malformed body, blank or over-long description or prompt" };

/** Offered only where a provider is configured. */
const withProvider = (host: HostFeatures) => host.generation;

/** A generation that found no valid spec ends its event stream with `done {valid:false, …}`. */
const invalidGeneration = (error: ServiceError): unknown =>
  isObject(error.body) && error.body.valid === false ? error.body : undefined;

/** `POST /models/generate/preview`. */
export const previewGeneration = apiOperation({
  name: "previewGeneration",
  summary: "build the generation prompt for a domain description without calling the LLM: {prompt}",
  input: () =>
    z.object({ modelId: GENERATED_ID(), domainDescription: DESCRIPTION(), includeView: INCLUDE_VIEW() }),
  output: PROMPT_PREVIEW,
  run: (api, input) => api.previewGeneration(input),
  rest: {
    method: "post",
    path: "/models/generate/preview",
    tag: "generation",
    body: { members: ["modelId", "domainDescription", "includeView"], description: "what to generate" },
    errors: { 400: BAD_REQUEST, 503: NO_PROVIDER },
  },
  console: { command: "preview-generation" },
});

const generateInput = lazySchema(() =>
  z.object({
    modelId: GENERATED_ID(),
    prompt: PROMPT().optional(),
    domainDescription: DESCRIPTION().describe("the domain in words, when no prompt is given").optional(),
    includeView: INCLUDE_VIEW(),
  })
);

/** `POST /models/generate` and its event stream. */
export const generateSpec = apiOperation({
  name: "generateSpec",
  summary: "generate a ModelSpec with the LLM, validated, tested and repaired: {valid, spec, verification}",
  input: generateInput,
  output: GENERATION_RESULT,
  run: (api, input, options) => api.generateSpec(input, options),
  rest: [
    {
      method: "post",
      path: "/models/generate",
      tag: "generation",
      body: {
        members: ["modelId", "prompt", "domainDescription", "includeView"],
        description:
          "{modelId, prompt} (a preview's prompt, possibly edited) or {modelId, domainDescription, " +
          "includeView}",
      },
      errors: {
        400: BAD_REQUEST,
        422: { description: "no valid spec within the attempts", body: GENERATION_INVALID_BODY },
        502: LLM_FAILED,
        503: NO_PROVIDER,
      },
    },
    {
      method: "post",
      path: "/models/generate/stream",
      operationId: "generateSpecStream",
      summary: "generate a ModelSpec, reporting progress as server-sent events (progress, then done)",
      tag: "generation",
      body: {
        members: ["modelId", "domainDescription", "includeView", "prompt"],
        description: "{modelId, domainDescription, includeView} (or {modelId, prompt})",
      },
      response: "sse",
      doneOnFailure: invalidGeneration,
      errors: { 400: BAD_REQUEST, 503: NO_PROVIDER },
    },
  ],
  console: { command: "generate-spec" },
  mcp: {
    tool: "generate_spec",
    title: "Generate a spec with the LLM",
    description:
      "Describe a domain in words (domainDescription, at most 5000 characters) and get a validated " +
      "ModelSpec with id modelId: the server's LLM drafts it, and the validator, the embedded tests and the " +
      "view lint feed its repairs. Returns {valid, spec, verification}; nothing is registered (create_model " +
      "does that). Takes a while: pass a progressToken to follow it.",
    kind: "read",
    idempotent: false,
    available: withProvider,
    narrowingHint: "ask for a smaller model (fewer fields and derivations) or leave out the view",
  },
});

/** `POST /models/generate/evolution/preview`. */
export const previewEvolution = apiOperation({
  name: "previewEvolution",
  summary: "build the evolution prompt for a change request without calling the LLM: {prompt}",
  input: () =>
    z.object({
      modelId: MODEL_ID(),
      currentSpec: SPEC_ARGUMENT().describe("the spec to evolve"),
      evolutionRequest: DESCRIPTION().describe("the change in words (at most 5000 characters)"),
      includeView: INCLUDE_VIEW(),
    }),
  output: PROMPT_PREVIEW,
  run: (api, input) => api.previewEvolution(input),
  rest: {
    method: "post",
    path: "/models/generate/evolution/preview",
    tag: "generation",
    body: {
      members: ["modelId", "currentSpec", "evolutionRequest", "includeView"],
      description: "the spec and the change",
    },
    errors: { 400: BAD_REQUEST, 503: NO_PROVIDER },
  },
  console: { command: "preview-evolution" },
});

/** `POST /models/generate/evolution`. */
export const generateEvolution = apiOperation({
  name: "generateEvolution",
  summary: "draft a SpecEvolution with the LLM from an evolution prompt, without applying it",
  input: () =>
    z.object({
      modelId: MODEL_ID(),
      prompt: PROMPT().describe("the evolution prompt (a preview's, possibly edited)"),
      currentSpec: SPEC_ARGUMENT().describe("the spec the draft must apply to (default: the live model's)")
        .optional(),
    }),
  output: EVOLUTION_GENERATION_RESULT,
  run: (api, input, options) => api.generateEvolution(input, options),
  rest: {
    method: "post",
    path: "/models/generate/evolution",
    tag: "generation",
    body: { members: ["modelId", "prompt", "currentSpec"], description: "the evolution prompt" },
    errors: {
      400: BAD_REQUEST,
      404: UNKNOWN_MODEL,
      422: { description: "no applicable evolution within the attempts", body: EVOLUTION_INVALID_BODY },
      502: LLM_FAILED,
      503: NO_PROVIDER,
    },
  },
  console: { command: "generate-evolution" },
});

const evolveAiInput = lazySchema(() =>
  z.object({
    id: MODEL_ID(),
    description: DESCRIPTION().describe("the change in words (at most 5000 characters)"),
    includeView: z.boolean().describe("let the draft change the view (default: when the spec has one)")
      .optional(),
  })
);

const EVOLVE_AI_ERRORS = {
  400: { description: "description missing, blank or over 5000 characters" },
  404: UNKNOWN_MODEL,
  409: { description: "the model was evolved meanwhile (expectedVersion)" },
  422: { description: "the evolved spec is invalid or would strand state" },
  502: { description: "the LLM call failed or drafted no valid evolution within the attempts" },
  503: NO_PROVIDER,
};

/** `POST /models/{id}/spec/evolve/ai` and its event stream. */
export const evolveSpecAi = apiOperation({
  name: "evolveSpecAi",
  summary: "describe a change in words: the LLM drafts a SpecEvolution, applied at once: {version, spec}",
  input: evolveAiInput,
  output: AI_EVOLUTION_RESULT,
  run: (api, { id, ...request }, options) => api.evolveSpecAi(id, request, options),
  rest: [
    {
      method: "post",
      path: "/models/{id}/spec/evolve/ai",
      tag: "generation",
      body: { members: ["description", "includeView"], description: "{description}" },
      errors: EVOLVE_AI_ERRORS,
    },
    {
      method: "post",
      path: "/models/{id}/spec/evolve/ai/stream",
      operationId: "evolveSpecAiStream",
      summary: "AI evolution reporting progress as server-sent events (progress, then done or error)",
      tag: "generation",
      body: { members: ["description", "includeView"], description: "{description}" },
      response: "sse",
      errors: { 400: EVOLVE_AI_ERRORS[400], 404: UNKNOWN_MODEL, 503: NO_PROVIDER },
    },
  ],
  console: { command: "evolve-spec-ai" },
  mcp: {
    tool: "evolve_spec_ai",
    title: "Evolve the spec with the LLM",
    description: "Describe a change to a live model in words (at most 5000 characters): the server's LLM " +
      "drafts a SpecEvolution, checked against the current spec, and it is applied at once like evolve_spec " +
      "(state carried forward; a concurrent change is a version conflict). Returns {version, spec}. Pass a " +
      "progressToken to follow it.",
    kind: "destructive",
    available: withProvider,
  },
});

/** Whether generation works where the operation runs, and why not when it does not. */
export const GENERATION_STATUS = component(
  "GenerationStatus",
  () =>
    z.looseObject({
      available: z.boolean(),
      message: z.string().describe("why not: the keys to set, or what the caller may not do").optional(),
    }),
);

/**
 * `GET /llm/status`: lets a client offer generation (the playground's panels,
 * remote-mode MCP's tool list) only where it works, without provoking a 503.
 */
export const getGenerationStatus = apiOperation({
  name: "getGenerationStatus",
  summary: "whether LLM generation is available here: {available, message?}",
  input: () => z.object({}),
  output: GENERATION_STATUS,
  run: (api) => api.getGenerationStatus(),
  rest: { method: "get", path: "/llm/status", tag: "generation", errors: {} },
  console: { command: "generation-status" },
});

/** `GET /llm/interactions`. */
export const getLlmInteractions = apiOperation({
  name: "getLlmInteractions",
  summary: "recorded LLM prompt and response pairs, newest first (content redacted unless captured)",
  input: () => z.object({}),
  output: () => z.array(INTERACTION_RECORD()),
  run: (api) => api.getLlmInteractions(),
  rest: { method: "get", path: "/llm/interactions", tag: "generation", errors: {} },
  console: { command: "get-llm-interactions" },
});
