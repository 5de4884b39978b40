/**
 * The effect executors of a Deno host: `timer`, `server` (HTTP through the
 * egress guard), `llm` (when a provider is configured) and the plugins of
 * `svc.effects.plugins`, restricted to `svc.effects.kinds.enabled` when it is
 * set. A kind enabled there with no executor here is a startup error, not a
 * silent failure later.
 *
 * @module
 */
import { shownValue } from "../../engine/config.ts";
import { type EffectExecutor, TIMER_EXECUTOR } from "../../engine/effects/executor.ts";
import { llmExecutor } from "../../engine/effects/llm_executor.ts";
import type { LlmProvider } from "../../engine/llm.ts";
import type { Resolver } from "../egress/mod.ts";
import type { EffectsConfig } from "./config.ts";
import { httpExecutor } from "./http_executor.ts";
import { loadPlugins } from "./plugins.ts";

export { DEFAULT_MAX_RESPONSE_BYTES, EFFECT_KEYS, type EffectsConfig, effectsConfig } from "./config.ts";
export { httpExecutor } from "./http_executor.ts";
export { type EffectPlugin, loadPlugins, type PluginRequest } from "./plugins.ts";

/** What a host's executors are built from. */
export interface HostEffects {
  config: EffectsConfig;
  /** `svc.effects.kinds.enabled`; null: every kind. */
  kindsEnabled: readonly string[] | null;
  /** The LLM provider, when one is configured. */
  llm?: LlmProvider;
  /** The DNS port of the egress guard (tests). */
  resolve?: Resolver;
}

/** The executors of this host. */
export async function hostExecutors(host: HostEffects): Promise<EffectExecutor[]> {
  const all = [
    TIMER_EXECUTOR,
    httpExecutor({
      policy: host.config.egress,
      maxResponseBytes: host.config.maxResponseBytes,
      resolve: host.resolve,
    }),
    ...(host.llm ? [llmExecutor(host.llm)] : []),
    ...await loadPlugins(host.config.plugins),
  ];
  const enabled = host.kindsEnabled;
  if (!enabled) return all;
  const missing = enabled.filter((kind) => kind !== "caller" && !all.some((e) => e.kind === kind));
  if (missing.length) {
    throw new Error(
      `svc.effects.kinds.enabled (SVC_EFFECTS_KINDS_ENABLED) lists ${
        missing.map(shownValue).join(", ")
      } but no executor is installed ` +
        "for it (a built-in kind, or a module in svc.effects.plugins)",
    );
  }
  return all.filter((e) => enabled.includes(e.kind));
}
