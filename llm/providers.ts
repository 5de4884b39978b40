/**
 * The eight provider kinds through the `ai` library and its provider packages
 * (decisions/llm.md "Providers"): one {@link LlmProvider} over `streamText`,
 * the kind choosing the client. `svc.llm.base-url` replaces the default
 * endpoint of every kind (Anthropic included), so each can point at a gateway
 * or a local stub; keys come only from `svc.llm.api-key`, never from the
 * providers' own environment variables.
 *
 * Structured output: the answer schema is sent as the provider's response
 * format (`response_format` json_schema on the OpenAI-style kinds, Anthropic's
 * native output format or its forced `json` tool, Gemini's response MIME
 * type), as `svc.llm.structured-output.*` says; Groq gets none when tools are
 * offered (it refuses both at once), Gemini gets JSON mode without the schema
 * (its schema dialect has no `$ref`). Prompt caching marks the system prompt
 * cacheable on Anthropic.
 *
 * @module
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createCerebras } from "@ai-sdk/cerebras";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createGroq } from "@ai-sdk/groq";
import { createMistral } from "@ai-sdk/mistral";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  APICallError,
  jsonSchema,
  type JSONSchema7,
  type LanguageModel,
  type ModelMessage,
  Output,
  RetryError,
  stepCountIs,
  streamText,
  tool,
  type ToolSet,
} from "ai";
import type { Json } from "../engine/json/value.ts";
import {
  LlmCallError,
  type LlmFinishReason,
  type LlmProvider,
  type LlmRequest,
  type LlmResponse,
} from "../engine/llm.ts";
import type { LlmConfig, ProviderKind } from "./config.ts";

// The library prints a warning per call for schema features a provider drops (the ModelSpec schema's
// lookarounds and propertyNames): our validator checks every answer, so they are noise on stderr.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** A kind's defaults. */
export interface KindDefaults {
  model: string;
  baseUrl: string;
  /** Honours a JSON Schema response format. */
  schemaOutput: boolean;
}

/** Default model and endpoint of each kind (decisions/llm.md; Gemini through its native API). */
export const KIND_DEFAULTS: Readonly<Record<ProviderKind, KindDefaults>> = Object.freeze({
  anthropic: { model: "claude-sonnet-4-6", baseUrl: "https://api.anthropic.com/v1", schemaOutput: true },
  openai: { model: "gpt-4o", baseUrl: "https://api.openai.com/v1", schemaOutput: true },
  ollama: { model: "llama3.1", baseUrl: "http://localhost:11434/v1", schemaOutput: true },
  openrouter: {
    model: "anthropic/claude-3.7-sonnet",
    baseUrl: "https://openrouter.ai/api/v1",
    schemaOutput: true,
  },
  groq: { model: "openai/gpt-oss-120b", baseUrl: "https://api.groq.com/openai/v1", schemaOutput: true },
  mistral: { model: "mistral-large-latest", baseUrl: "https://api.mistral.ai/v1", schemaOutput: true },
  gemini: {
    model: "gemini-2.0-flash",
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    schemaOutput: false,
  },
  cerebras: { model: "llama-3.3-70b", baseUrl: "https://api.cerebras.ai/v1", schemaOutput: true },
});

/** The `fetch` the provider clients use (a test may route it). */
export type FetchFn = typeof fetch;

/**
 * `fetchFn` with each answer's body tied to the request's signal: an abort (the call's time-out, a
 * client gone) cancels the body and so closes the connection. The provider library stops reading on
 * an abort but in some phases leaves the body unread and open: a hung provider's connection then
 * stayed open for ever after the call had failed.
 */
export function cancellingFetch(fetchFn: FetchFn = fetch): FetchFn {
  return async (input, init) => {
    const response = await fetchFn(input, init);
    const signal = init?.signal;
    if (!signal || !response.body) return response;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    // An abort stops the pipe and cancels the source; the reader then sees the abort as an error.
    response.body.pipeTo(writable, { signal }).catch(() => {});
    return new Response(readable, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The language model of the configured kind. */
export function languageModelOf(config: LlmConfig, fetchFn?: FetchFn): LanguageModel {
  const kind = config.provider;
  const defaults = KIND_DEFAULTS[kind];
  const model = config.model ?? defaults.model;
  const baseURL = config.baseUrl ?? defaults.baseUrl;
  const apiKey = config.apiKey ?? undefined;
  const common = { baseURL, fetch: cancellingFetch(fetchFn) };
  switch (kind) {
    case "anthropic":
      return createAnthropic({ ...common, apiKey })(model);
    case "openai":
      // Chat Completions: the wire format gateways and OpenAI-compatible stubs speak.
      return createOpenAI({ ...common, apiKey }).chat(model);
    case "ollama":
    case "openrouter":
      return createOpenAICompatible({
        ...common,
        name: kind,
        apiKey,
        supportsStructuredOutputs: true,
        includeUsage: true,
      }).chatModel(model);
    case "groq":
      return createGroq({ ...common, apiKey })(model);
    case "mistral":
      return createMistral({ ...common, apiKey })(model);
    case "gemini":
      return createGoogleGenerativeAI({ ...common, apiKey })(model);
    case "cerebras":
      return createCerebras({ ...common, apiKey })(model);
  }
}

const FINISH: Record<string, LlmFinishReason> = {
  stop: "stop",
  length: "length",
  "tool-calls": "tool-calls",
  "content-filter": "content-filter",
  error: "error",
};

/** Secrets a provider error may echo: the configured key and the base URL's user and password. */
function secretsOf(config: LlmConfig): string[] {
  const secrets = [config.apiKey ?? ""];
  if (config.baseUrl) {
    try {
      const url = new URL(config.baseUrl);
      for (const part of [url.username, url.password]) secrets.push(part, safeDecode(part));
    } catch {
      // Not a URL: the client refuses it without echoing credentials.
    }
  }
  // Longest first, so a secret containing another is masked whole; short ones would mask ordinary words.
  return [...new Set(secrets)].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
}

/** `text` percent-decoded, or as it is when it does not decode. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `text` with every credential masked: the configured secrets, the token of any
 * `Bearer`/`Basic` scheme or `x-api-key`-style echo (a gateway may repeat the
 * `Authorization` header in its 401 body), and a URL's `user:password@`.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join("[redacted]");
  return out
    .replace(/\b(Bearer|Basic)(\s+)[\w.~+/=:-]{8,}/gi, "$1$2[redacted]")
    .replace(/\b((?:x-)?api[-_]?key["']?\s*[:=]\s*["']?)[\w.~+/=:-]{8,}/gi, "$1[redacted]")
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"']+@/gi, "$1[redacted]@");
}

/**
 * A provider failure as a message that names the provider and never a credential:
 * the one place provider errors are made, so the REST, MCP and console answers,
 * an `llm` effect's status document (and so the audit trail) and the interaction
 * log all get the scrubbed text.
 */
function failure(kind: string, err: unknown, secrets: readonly string[]): LlmCallError {
  // The library retries a 429 or 5xx itself and wraps the last answer: name its status, as for any other.
  if (RetryError.isInstance(err) && APICallError.isInstance(err.lastError)) {
    const last = failure(kind, err.lastError, secrets);
    return new LlmCallError(`${last.message} (after ${err.errors.length} tries)`, last.status);
  }
  if (APICallError.isInstance(err)) {
    // Scrubbed before the body is cut, so a cut cannot leave half a key unmatched.
    const message = scrubSecrets(err.message, secrets);
    const body = scrubSecrets(err.responseBody ?? "", secrets).slice(0, 300);
    return new LlmCallError(
      `${kind} answered HTTP ${err.statusCode ?? "?"}: ${message}${
        body && !message.includes(body) ? ` (${body})` : ""
      }`,
      err.statusCode,
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new LlmCallError(scrubSecrets(`${kind} call failed: ${message}`, secrets));
}

/** An {@link LlmProvider} over the `ai` library. */
export class AiProvider implements LlmProvider {
  readonly kind: string;
  readonly model: string;
  readonly #config: LlmConfig;
  readonly #languageModel: LanguageModel;
  readonly #secrets: readonly string[];

  constructor(config: LlmConfig, fetchFn?: FetchFn) {
    this.#config = config;
    this.#secrets = secretsOf(config);
    this.kind = config.provider;
    this.model = config.model ?? KIND_DEFAULTS[config.provider].model;
    this.#languageModel = languageModelOf(config, fetchFn);
  }

  /** The response format asked for, if any. */
  #output(request: LlmRequest) {
    const config = this.#config;
    if (!request.responseSchema || !config.structuredOutput || config.structuredOutputMode === "none") {
      return undefined;
    }
    if (config.provider === "groq" && request.tools?.length) return undefined;
    const name = request.responseName;
    if (config.structuredOutputMode === "json" || !KIND_DEFAULTS[config.provider].schemaOutput) {
      return Output.json({ name });
    }
    // Our validator judges the answer: the schema shapes the request, the library does not validate it.
    return Output.object({ schema: jsonSchema(request.responseSchema as JSONSchema7), name });
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    // A provider that never answers must not hold a generation (and its concurrency slot) for ever.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), this.#config.timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
    try {
      return await this.#complete(request, signal);
    } catch (err) {
      request.signal?.throwIfAborted();
      if (timeout.signal.aborted) {
        throw new LlmCallError(
          `${this.kind} did not answer within ${this.#config.timeoutMs} ms (svc.llm.timeout-ms)`,
        );
      }
      // Whatever else failed (a client refusing its settings) goes through the same scrubbing.
      throw err instanceof LlmCallError ? err : failure(this.kind, err, this.#secrets);
    } finally {
      clearTimeout(timer);
    }
  }

  async #complete(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
    const config = this.#config;
    const messages: ModelMessage[] = [];
    if (request.system) {
      messages.push({
        role: "system",
        content: request.system,
        ...(config.provider === "anthropic" && config.promptCache
          ? { providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } }
          : {}),
      });
    }
    if (request.prompt !== undefined) messages.push({ role: "user", content: request.prompt });
    for (const message of request.messages ?? []) {
      messages.push({ role: message.role, content: message.content });
    }

    const tools: ToolSet = {};
    for (const t of request.tools ?? []) {
      tools[t.name] = tool({
        description: t.description,
        inputSchema: jsonSchema(t.inputSchema as JSONSchema7),
        execute: (input: unknown, options: { abortSignal?: AbortSignal }) =>
          t.execute(input as Json, options.abortSignal ?? signal),
      });
    }
    const hasTools = Object.keys(tools).length > 0;
    const toolCalls: { name: string; input: Json }[] = [];
    let streamError: unknown;
    const result = streamText({
      model: this.#languageModel,
      messages,
      allowSystemInMessages: true,
      ...(hasTools
        ? { tools, stopWhen: stepCountIs(request.maxToolIterations ?? config.toolLoopMaxIterations) }
        : {}),
      output: this.#output(request),
      temperature: request.temperature,
      maxOutputTokens: request.maxTokens,
      abortSignal: signal,
      providerOptions: { openai: { strictJsonSchema: false } },
      onError: ({ error }) => {
        streamError ??= error;
      },
    });
    let finishReason: string = "other";
    let usage: LlmResponse["usage"];
    try {
      for await (const part of result.fullStream) {
        if (part.type === "tool-call") {
          toolCalls.push({ name: part.toolName, input: (part.input ?? null) as Json });
        } else if (part.type === "error") streamError ??= part.error;
        else if (part.type === "finish") {
          finishReason = part.finishReason;
          usage = { inputTokens: part.totalUsage.inputTokens, outputTokens: part.totalUsage.outputTokens };
        }
      }
    } catch (err) {
      streamError ??= err;
    }
    signal.throwIfAborted();
    if (streamError !== undefined) throw failure(this.kind, streamError, this.#secrets);
    let text: string;
    try {
      text = await result.text;
    } catch (err) {
      throw failure(this.kind, err, this.#secrets);
    }
    return { text, finishReason: FINISH[finishReason] ?? "other", toolCalls, usage };
  }
}
