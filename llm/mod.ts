/**
 * LLM generation for hosts (server, CLI): builds the {@link SpecGenerator}
 * that `ModelService.open({generator})` takes from the `svc.llm.*` keys, or
 * none when no provider is configured (every generation operation then
 * answers 503). The provider port itself is `engine/llm.ts`; the `llm` effect
 * executor can take {@link providerOf}'s provider for its single structured
 * completions.
 *
 * @module
 */
import type { LlmProvider } from "../engine/llm.ts";
import type { SpecGenerator } from "../engine/service/generation.ts";
import { type LlmConfig, providerConfigured } from "./config.ts";
import { maskCredentials } from "../engine/quoted.ts";
import { type GuardedFetch, noEgress } from "./egress.ts";
import { LlmSpecGenerator } from "./generator.ts";
import { MockProvider } from "./mock.ts";
import { AiProvider, type FetchFn, KIND_DEFAULTS } from "./providers.ts";
import { webSearchOf } from "./web.ts";

export { type LlmConfig, llmConfig, PROVIDER_KINDS, providerConfigured } from "./config.ts";
export { KIND_DEFAULTS } from "./providers.ts";

/** Ports a host may replace. */
export interface LlmHostOptions {
  /** The fetch of the provider clients (default: global fetch). */
  providerFetch?: FetchFn;
  /** The guarded egress of `web_fetch` (server/llm_egress.ts); without it web fetches are refused. */
  egress?: GuardedFetch;
  /** The fetch of the web search back end (default: global fetch). */
  searchFetch?: typeof fetch;
  now?: () => number;
}

/** The configured provider, or `undefined` when none is configured. */
export function providerOf(config: LlmConfig, options: LlmHostOptions = {}): LlmProvider | undefined {
  if (config.mock) return new MockProvider();
  if (!providerConfigured(config)) return undefined;
  return new AiProvider(config, options.providerFetch);
}

/** The generator of the configuration, or `undefined` when no provider is configured. */
export function generatorOf(
  config: LlmConfig,
  options: LlmHostOptions = {},
  provider: LlmProvider | undefined = providerOf(config, options),
): SpecGenerator | undefined {
  if (!provider) return undefined;
  return new LlmSpecGenerator({
    config,
    provider,
    web: {
      fetch: options.egress ?? noEgress,
      search: webSearchOf({
        provider: config.webSearch.provider,
        apiKey: config.webSearch.apiKey,
        fetch: options.searchFetch,
      }),
    },
    now: options.now,
  });
}

/** One line for the startup log: which provider and model, never the key nor the base URL's credentials. */
export function describeLlm(config: LlmConfig): string {
  if (config.mock) return "llm: mock";
  if (!providerConfigured(config)) return "llm: none (generation answers 503)";
  const model = config.model ?? KIND_DEFAULTS[config.provider].model;
  return `llm: ${config.provider} ${model}${config.baseUrl ? ` at ${maskCredentials(config.baseUrl)}` : ""}`;
}
