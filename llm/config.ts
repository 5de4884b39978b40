/**
 * The `svc.llm.*` keys (SPEC.md "Limits", decisions/llm.md): provider
 * selection, the repair loop's budget and temperatures, structured output,
 * prompt caching, the tools and the interaction log. A malformed value aborts
 * startup naming the key; nothing falls back to a provider's own environment
 * variables (`ANTHROPIC_API_KEY` and the like are never read).
 *
 * @module
 */
import { type ConfigLookup, envName, readBool, readChoice, readInt, shownValue } from "../engine/config.ts";
import { maskCredentials } from "../engine/quoted.ts";

/** The eight provider kinds. */
export const PROVIDER_KINDS = [
  "anthropic",
  "openai",
  "ollama",
  "openrouter",
  "groq",
  "mistral",
  "gemini",
  "cerebras",
] as const;

/** A provider kind. */
export type ProviderKind = typeof PROVIDER_KINDS[number];

/** How a JSON answer is asked for: a JSON Schema, plain JSON mode, or only the prompt. */
export type StructuredOutputMode = "schema" | "json" | "none";

/** The keyless web search, or one of the two keyed ones. */
export type WebSearchProvider = "duckduckgo" | "brave" | "tavily";

/** Everything `svc.llm.*` configures. */
export interface LlmConfig {
  /** `svc.llm.provider` (default anthropic). */
  provider: ProviderKind;
  /** `svc.llm.api-key`; never logged. */
  apiKey: string | null;
  /** `svc.llm.model` (default: the kind's default model). */
  model: string | null;
  /** `svc.llm.base-url`: replaces the kind's endpoint (a gateway, a local stub). */
  baseUrl: string | null;
  /** `svc.llm.mock`: a canned answer instead of a provider. */
  mock: boolean;
  maxTokens: number;
  maxTokensHard: number;
  maxRetries: number;
  maxRetriesHard: number;
  generationTemperature: number;
  repairTemperature: number;
  repairTemperatureStep: number;
  repairTemperatureMax: number;
  /** `svc.llm.structured-output.enabled`. */
  structuredOutput: boolean;
  /** `svc.llm.structured-output.mode`: schema (default), json or none. */
  structuredOutputMode: StructuredOutputMode;
  /** `svc.llm.prompt-cache.enabled` (Anthropic). */
  promptCache: boolean;
  /** `svc.llm.tool-loop.max-iterations`: tool-loop steps within one call. */
  toolLoopMaxIterations: number;
  /** `svc.llm.max-concurrent-requests`: provider calls at once (more wait). */
  maxConcurrentRequests: number;
  /** `svc.llm.timeout-ms`: how long one provider call (its tool loop included) may take. */
  timeoutMs: number;
  webFetch: { enabled: boolean; maxCalls: number; maxChars: number };
  webSearch: {
    enabled: boolean;
    provider: WebSearchProvider;
    apiKey: string | null;
    maxCalls: number;
    maxResults: number;
  };
  /** `svc.llm.eval-tool.enabled`: the `eval_jsonata` tool. */
  evalTool: { enabled: boolean };
  /** `svc.llm.domain-guidance.enabled`: the `get_domain_guidance` tool. */
  domainGuidance: { enabled: boolean };
  /** `svc.llm.log.capture-content`: keep prompts and responses in the interaction log (default false). */
  captureContent: boolean;
}

/** Every key {@link llmConfig} reads (for the unknown-key check). */
export const LLM_KEYS: readonly string[] = [
  "svc.llm.api-key",
  "svc.llm.base-url",
  "svc.llm.domain-guidance.enabled",
  "svc.llm.eval-tool.enabled",
  "svc.llm.generation-temperature",
  "svc.llm.log.capture-content",
  "svc.llm.max-concurrent-requests",
  "svc.llm.max-retries",
  "svc.llm.max-retries-hard",
  "svc.llm.max-tokens",
  "svc.llm.max-tokens-hard",
  "svc.llm.mock",
  "svc.llm.model",
  "svc.llm.prompt-cache.enabled",
  "svc.llm.provider",
  "svc.llm.repair-temperature",
  "svc.llm.repair-temperature-max",
  "svc.llm.repair-temperature-step",
  "svc.llm.structured-output.enabled",
  "svc.llm.structured-output.mode",
  "svc.llm.timeout-ms",
  "svc.llm.tool-loop.max-iterations",
  "svc.llm.web-fetch.enabled",
  "svc.llm.web-fetch.max-calls",
  "svc.llm.web-fetch.max-chars",
  "svc.llm.web-search.api-key",
  "svc.llm.web-search.enabled",
  "svc.llm.web-search.max-calls",
  "svc.llm.web-search.max-results",
  "svc.llm.web-search.provider",
];

/** The defaults of SPEC.md "Limits". */
export const LLM_DEFAULTS = Object.freeze({
  maxTokens: 8192,
  maxTokensHard: 16384,
  maxRetries: 6,
  maxRetriesHard: 10,
  generationTemperature: 0.0,
  repairTemperature: 0.2,
  repairTemperatureStep: 0.15,
  repairTemperatureMax: 0.8,
  toolLoopMaxIterations: 40,
  maxConcurrentRequests: 4,
  timeoutMs: 120_000,
  webFetchMaxCalls: 5,
  webFetchMaxChars: 8000,
  webSearchMaxCalls: 3,
  webSearchMaxResults: 5,
});

function fail(key: string, expected: string, raw: string): never {
  throw new Error(`Configuration ${key} (${envName(key)}) must be ${expected}, got ${shownValue(raw)}`);
}

function readText(lookup: ConfigLookup, key: string): string | null {
  const raw = lookup(key)?.trim();
  return raw ? raw : null;
}

function readCount(lookup: ConfigLookup, key: string, fallback: number, min: number): number {
  const value = readInt(lookup, key, fallback);
  if (value < min) fail(key, `an integer of at least ${min}`, String(value));
  return value;
}

/** A plain decimal (`0.7`, `1`, `.5`): no hex, exponent or sign forms Number() would also take. */
const DECIMAL = /^(\d+\.?\d*|\.\d+)$/;

function readNumber(lookup: ConfigLookup, key: string, fallback: number, min: number, max: number): number {
  const raw = readText(lookup, key);
  if (raw === null) return fallback;
  const value = DECIMAL.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) fail(key, `a number from ${min} to ${max}`, raw);
  return value;
}

/**
 * An http(s) URL without credentials: like an effect's URL, `user:password@`
 * is refused rather than sent (it would go out as Basic auth next to the key,
 * and show in logs); the message never repeats them.
 */
function readUrl(lookup: ConfigLookup, key: string): string | null {
  const raw = readText(lookup, key);
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(key, "an http or https URL", maskCredentials(raw));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    fail(key, "an http or https URL", maskCredentials(raw));
  }
  if (url.username !== "" || url.password !== "") {
    throw new Error(
      `Configuration ${key} (${envName(key)}) must not carry credentials (user:password@): put the key in ` +
        "svc.llm.api-key (SVC_LLM_API_KEY)",
    );
  }
  return raw.replace(/\/+$/, "");
}

/** Reads every `svc.llm.*` key; throws a message naming the key on a malformed value. */
export function llmConfig(lookup: ConfigLookup): LlmConfig {
  const maxTokens = readCount(lookup, "svc.llm.max-tokens", LLM_DEFAULTS.maxTokens, 1);
  const maxTokensHard = readCount(
    lookup,
    "svc.llm.max-tokens-hard",
    Math.max(LLM_DEFAULTS.maxTokensHard, maxTokens),
    1,
  );
  if (maxTokensHard < maxTokens) {
    fail("svc.llm.max-tokens-hard", `at least svc.llm.max-tokens (${maxTokens})`, String(maxTokensHard));
  }
  const maxRetries = readCount(lookup, "svc.llm.max-retries", LLM_DEFAULTS.maxRetries, 0);
  const maxRetriesHard = readCount(
    lookup,
    "svc.llm.max-retries-hard",
    Math.max(LLM_DEFAULTS.maxRetriesHard, maxRetries),
    0,
  );
  if (maxRetriesHard < maxRetries) {
    fail("svc.llm.max-retries-hard", `at least svc.llm.max-retries (${maxRetries})`, String(maxRetriesHard));
  }
  const apiKey = readText(lookup, "svc.llm.api-key");
  // The key itself is never echoed: messages name only the setting.
  if (apiKey !== null && /\s/.test(apiKey)) {
    throw new Error("Configuration svc.llm.api-key (SVC_LLM_API_KEY) must not contain whitespace");
  }
  const config: LlmConfig = {
    provider: readChoice(lookup, "svc.llm.provider", PROVIDER_KINDS, "anthropic"),
    apiKey,
    model: readText(lookup, "svc.llm.model"),
    baseUrl: readUrl(lookup, "svc.llm.base-url"),
    mock: readBool(lookup, "svc.llm.mock", false),
    maxTokens,
    maxTokensHard,
    maxRetries,
    maxRetriesHard,
    generationTemperature: readNumber(
      lookup,
      "svc.llm.generation-temperature",
      LLM_DEFAULTS.generationTemperature,
      0,
      2,
    ),
    repairTemperature: readNumber(lookup, "svc.llm.repair-temperature", LLM_DEFAULTS.repairTemperature, 0, 2),
    repairTemperatureStep: readNumber(
      lookup,
      "svc.llm.repair-temperature-step",
      LLM_DEFAULTS.repairTemperatureStep,
      0,
      2,
    ),
    repairTemperatureMax: readNumber(
      lookup,
      "svc.llm.repair-temperature-max",
      LLM_DEFAULTS.repairTemperatureMax,
      0,
      2,
    ),
    structuredOutput: readBool(lookup, "svc.llm.structured-output.enabled", true),
    structuredOutputMode: readChoice(
      lookup,
      "svc.llm.structured-output.mode",
      ["schema", "json", "none"],
      "schema",
    ),
    promptCache: readBool(lookup, "svc.llm.prompt-cache.enabled", true),
    toolLoopMaxIterations: readCount(
      lookup,
      "svc.llm.tool-loop.max-iterations",
      LLM_DEFAULTS.toolLoopMaxIterations,
      1,
    ),
    maxConcurrentRequests: readCount(
      lookup,
      "svc.llm.max-concurrent-requests",
      LLM_DEFAULTS.maxConcurrentRequests,
      1,
    ),
    timeoutMs: readCount(lookup, "svc.llm.timeout-ms", LLM_DEFAULTS.timeoutMs, 1000),
    webFetch: {
      enabled: readBool(lookup, "svc.llm.web-fetch.enabled", true),
      maxCalls: readCount(lookup, "svc.llm.web-fetch.max-calls", LLM_DEFAULTS.webFetchMaxCalls, 0),
      maxChars: readCount(lookup, "svc.llm.web-fetch.max-chars", LLM_DEFAULTS.webFetchMaxChars, 100),
    },
    webSearch: {
      enabled: readBool(lookup, "svc.llm.web-search.enabled", true),
      provider: readChoice(
        lookup,
        "svc.llm.web-search.provider",
        ["duckduckgo", "brave", "tavily"],
        "duckduckgo",
      ),
      apiKey: readText(lookup, "svc.llm.web-search.api-key"),
      maxCalls: readCount(lookup, "svc.llm.web-search.max-calls", LLM_DEFAULTS.webSearchMaxCalls, 0),
      maxResults: readCount(lookup, "svc.llm.web-search.max-results", LLM_DEFAULTS.webSearchMaxResults, 1),
    },
    evalTool: { enabled: readBool(lookup, "svc.llm.eval-tool.enabled", true) },
    domainGuidance: { enabled: readBool(lookup, "svc.llm.domain-guidance.enabled", true) },
    captureContent: readBool(lookup, "svc.llm.log.capture-content", false),
  };
  const search = config.webSearch;
  if (search.enabled && search.provider !== "duckduckgo" && search.apiKey === null) {
    throw new Error(
      `Configuration svc.llm.web-search.provider (SVC_LLM_WEB_SEARCH_PROVIDER) '${search.provider}' needs ` +
        "svc.llm.web-search.api-key (SVC_LLM_WEB_SEARCH_API_KEY)",
    );
  }
  return config;
}

/**
 * Whether a provider is configured: the mock, a key, or ollama (local and
 * keyless). Otherwise every generation operation answers 503.
 */
export function providerConfigured(config: LlmConfig): boolean {
  return config.mock || config.apiKey !== null || config.provider === "ollama";
}
