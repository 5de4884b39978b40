/**
 * The LLM provider port: what the engine and its hosts ask of a language
 * model, without saying how it is reached. The adapters (llm/: eight provider
 * kinds through the `ai` library, and the mock) implement it outside the
 * engine; spec generation (engine/service/generation.ts) and the `llm` effect
 * executor use it.
 *
 * One call is one {@link LlmProvider.complete}: a single structured completion
 * is `complete({prompt, responseSchema})`; tools make the provider run a tool
 * loop inside that call (the model calls a tool, the tool's answer goes back,
 * until it answers with text or the iteration budget is spent).
 *
 * @module
 */
import type { Json, JsonObject } from "./json/value.ts";

/** One message of a conversation (the system prompt travels apart, in {@link LlmRequest.system}). */
export interface LlmMessage {
  role: "user" | "assistant";
  content: string;
}

/** A tool the model may call during a completion. */
export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema of the tool's input object. */
  inputSchema: JsonObject;
  /** Runs the tool; the answer goes back to the model as text. Never throws for a bad input: say so in the text. */
  execute(input: Json, signal?: AbortSignal): Promise<string>;
}

/** One completion request. */
export interface LlmRequest {
  /** The system prompt (cached where the provider offers prompt caching). */
  system?: string;
  /** A single user prompt; shorthand for `messages: [{role: "user", content: prompt}]`. */
  prompt?: string;
  /** The conversation so far, oldest first, ending with a user message. */
  messages?: LlmMessage[];
  /**
   * A JSON Schema the answer must follow, for providers with structured output
   * (the answer text is then one JSON document). Providers without it, or
   * structured output switched off, get no schema: the prompt must ask for JSON.
   */
  responseSchema?: JsonObject;
  /** A name for the structured answer (some providers show it to the model). */
  responseName?: string;
  /** Tools offered to the model. */
  tools?: readonly LlmTool[];
  /** Tool-loop steps allowed within this call (default: the provider's setting). */
  maxToolIterations?: number;
  temperature?: number;
  /** Output token budget of the answer. */
  maxTokens?: number;
  /** Cancels the call (a client that went away). */
  signal?: AbortSignal;
}

/** Why the model stopped. `length` means the answer was cut at the token budget. */
export type LlmFinishReason = "stop" | "length" | "tool-calls" | "content-filter" | "error" | "other";

/** One completion's answer. */
export interface LlmResponse {
  /** The final answer text (a JSON document when a response schema was honoured). */
  text: string;
  finishReason: LlmFinishReason;
  /** The tools called, in order. */
  toolCalls: { name: string; input: Json }[];
  usage?: { inputTokens?: number; outputTokens?: number };
}

/** A language model behind some provider. */
export interface LlmProvider {
  /** The provider kind (`anthropic`, `openai`, `ollama`, …, or `mock`). */
  readonly kind: string;
  /** The model id asked for. */
  readonly model: string;
  /**
   * Runs one completion. A provider failure (refused key, unreachable host,
   * malformed answer) throws {@link LlmCallError}; an aborted call rejects with
   * the signal's reason.
   */
  complete(request: LlmRequest): Promise<LlmResponse>;
}

/** A provider call that failed (mapped to 502 by the service). */
export class LlmCallError extends Error {
  /** The provider's HTTP status, when it answered. */
  readonly status?: number;
  constructor(message: string, status?: number) {
    super(message);
    this.name = "LlmCallError";
    this.status = status;
  }
}
