/**
 * Embedded mode of the CLI (cli/api_selection.ts): an in-memory
 * {@link ModelService} configured from `svc.*` keys (a `--config` file's, or
 * the environment's), with the effect executors, LLM provider and composition
 * repositories that configuration asks for, each loaded only when configured.
 *
 * @module
 */
import type { EngineConfig } from "../engine/config.ts";
import { type EffectExecutor, lazyExecutor, TIMER_EXECUTOR } from "../engine/effects/executor.ts";
import type { LlmProvider } from "../engine/llm.ts";
import { localInvoker } from "../engine/operations/invoker.ts";
import { type Hasher, type Platform, webPlatform } from "../engine/ports.ts";
import type { SpecGenerator } from "../engine/service/generation.ts";
import { ModelService } from "../engine/service/service.ts";
import type { LlmConfig } from "../llm/config.ts";
import type { EffectsConfig } from "../server/executors/config.ts";
import type { ApiPlan, ApiSelection } from "./api_selection.ts";

/** Opens the in-memory service of an embedded {@link ApiPlan}. */
export async function openEmbeddedApi(plan: ApiPlan & { mode: "embedded" }): Promise<ApiSelection> {
  const { warn } = plan;
  const { engine: config, lookup } = plan.config;
  const llm = await embeddedLlm(plan.config.llm);
  const executors = await embeddedExecutors(plan.config.effects, config, llm?.provider);
  const repositories = await embeddedRepositories(lookup("svc.composition.repositories"), warn);
  const service = await ModelService.open({
    config,
    platform: embeddedPlatform(),
    observer: { warn },
    generator: llm?.generator,
    executors,
    repositories,
  });
  return { invoker: localInvoker(service), mode: "embedded", service, close: () => service.close() };
}

/**
 * The portable platform with the server's SHA-256 (`node:crypto`, several
 * times faster than Web Crypto for small audit records; the same digests),
 * loaded on the first audit record rather than at start.
 */
function embeddedPlatform(): Platform {
  let hasher: Promise<Hasher> | undefined;
  let loaded: Hasher | undefined;
  const serverHasher = () =>
    hasher ??= import("../server/platform.ts").then((module) => loaded = module.serverHasher);
  return {
    ...webPlatform(),
    hasher: {
      sha256Hex: async (data) => (await serverHasher()).sha256Hex(data),
      // Until the first record loaded it, a record is hashed through the promise above, then at once.
      sha256HexNow: (data) => loaded?.sha256HexNow?.(data),
    },
  };
}

/**
 * The provider and generator of `svc.llm.*`, loaded only when a provider is
 * configured: without one the AI libraries stay unloaded and generation
 * answers 503.
 */
async function embeddedLlm(
  config: LlmConfig,
): Promise<{ provider?: LlmProvider; generator?: SpecGenerator } | undefined> {
  const { providerConfigured } = await import("../llm/config.ts");
  if (!providerConfigured(config) && !config.mock) return undefined;
  const { llmEgress } = await import("../server/llm_egress.ts");
  const llm = await import("../llm/mod.ts");
  const options = { egress: llmEgress() };
  const provider = llm.providerOf(config, options);
  return { provider, generator: llm.generatorOf(config, options, provider) };
}

/** `svc.composition.repositories`, loaded only when configured. */
async function embeddedRepositories(raw: string | undefined, warn: (message: string) => void) {
  if (raw === undefined || raw.trim() === "") return [];
  return await (await import("../repositories/mod.ts")).openRepositories(raw, warn);
}

/**
 * The effect executors of an embedded process: timers at once, HTTP loaded on
 * its first request (the console starts fast), the LLM and plugins when configured.
 */
async function embeddedExecutors(
  effects: EffectsConfig,
  config: EngineConfig,
  provider?: LlmProvider,
): Promise<EffectExecutor[]> {
  if (effects.plugins.length || config.effectKindsEnabled || provider) {
    const { hostExecutors } = await import("../server/executors/mod.ts");
    return await hostExecutors({ config: effects, kindsEnabled: config.effectKindsEnabled, llm: provider });
  }
  const server = lazyExecutor("server", async () => {
    const { httpExecutor } = await import("../server/executors/http_executor.ts");
    return httpExecutor({ policy: effects.egress, maxResponseBytes: effects.maxResponseBytes });
  });
  return [TIMER_EXECUTOR, server];
}
