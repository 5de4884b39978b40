/**
 * Where a CLI surface (console, MCP over stdio) runs its operations: embedded
 * (an in-memory service that dies with the process) by default, or a server's
 * REST API with `--url <base>` / `SVC_URL` (SPEC.md "Run modes"), through the
 * remote invoker derived from the operations' REST bindings. The key comes
 * from `--api-key` or `SVC_API_KEY`; the command line wins over the
 * environment. With `--browser` too, the credential is the session of a
 * browser pairing (`pair_browser`, engine/operations/browser_session.ts) instead of a key.
 * Nothing here touches the network: a wrong URL or key shows up on the first
 * remote call, as that call's error.
 *
 * @module
 */
import { engineConfig, envName } from "../engine/config.ts";
import { type Invoker, localInvoker } from "../engine/operations/invoker.ts";
import { normaliseBaseUrl, remoteInvoker } from "../engine/operations/remote.ts";
import type { SpecGenerator } from "../engine/service/generation.ts";
import type { ModelService } from "../engine/service/service.ts";
import type { LlmConfig } from "../llm/config.ts";
import type { EngineConfig } from "../engine/config.ts";
import { type EffectExecutor, lazyExecutor, TIMER_EXECUTOR } from "../engine/effects/executor.ts";
import type { LlmProvider } from "../engine/llm.ts";
import { type EffectsConfig, effectsConfig } from "../server/executors/config.ts";
import { configWarnings } from "../server/config_keys.ts";
import { parseCliArgs } from "./args.ts";
import { BrowserSession } from "../engine/operations/browser_session.ts";
import { badRequest } from "../engine/errors.ts";

/** Reads an environment variable (`SVC_URL`). */
export type EnvLookup = (name: string) => string | undefined;

const processEnv: EnvLookup = (name) => Deno.env.get(name);

/** The selected mode. */
export interface ApiSelection {
  /** Runs the operations: in-process, or on the server. */
  invoker: Invoker;
  mode: "embedded" | "remote" | "browser";
  /** The server's base URL in remote mode (never carries the key). */
  url?: string;
  /**
   * The credential in remote mode, for other connections to the same server
   * (the WebSocket change feed): the API key, or in browser mode the pairing
   * session's token, read when needed; never print or log it.
   */
  apiKey?: string | (() => string);
  /** The in-process service in embedded mode (its event hook tells subscribers about commits). */
  service?: ModelService;
  /** Releases the API (closes the embedded service). */
  close(): Promise<void>;
}

/** Options of {@link resolveApi}. */
export interface ResolveOptions {
  /** Where warnings go (stderr by default). */
  warn?: (message: string) => void;
  /** The environment's variable names, checked for unknown `SVC_*` keys (the process's by default). */
  envNames?: readonly string[];
}

/**
 * Picks the mode from the command line (`--url`, `--api-key`, `--config`) and
 * the environment. In embedded mode, `--config <file>` supplies `svc.*` engine
 * keys as `svc serve` reads them (the environment wins).
 */
export async function resolveApi(
  args: readonly string[],
  env: EnvLookup = processEnv,
  options: ResolveOptions = {},
): Promise<ApiSelection> {
  const parsed = parseCliArgs(args);
  const warn = options.warn ?? ((message: string) => console.error(`warning: ${message}`));
  const lookup = (key: string) => env(envName(key));
  // Typos in SVC_* names are reported (an error with --strict-config) in every mode.
  const names = options.envNames ?? (env === processEnv ? Object.keys(Deno.env.toObject()) : []);
  configWarnings(args, lookup, names).forEach(warn);
  const given = parsed.url ?? nonEmpty(env("SVC_URL"));
  if (parsed.browser && given === undefined) {
    throw badRequest(
      "--browser pairs with a server's browser tab: give the server with --url <base> (or SVC_URL)",
    );
  }
  if (given !== undefined) {
    const url = normaliseBaseUrl(given);
    const config = engineConfig(lookup);
    // Loaded on first use: remote mode starts without the spec compiler.
    const authoring = async () => (await import("../engine/service/authoring.ts")).localAuthoring({ config });
    const send = (request: Request) => fetch(request);
    if (parsed.browser) {
      if (parsed.apiKey !== undefined) {
        warn("--api-key is not used with --browser: a person approves the pairing");
      }
      const pairing = new BrowserSession({ baseUrl: url, fetch: send });
      const apiKey = () => pairing.credential();
      const invoker = remoteInvoker({ baseUrl: url, apiKey, fetch: send, authoring, pairing });
      return { invoker, mode: "browser", url, apiKey, close: () => Promise.resolve() };
    }
    const apiKey = parsed.apiKey ?? nonEmpty(env("SVC_API_KEY"));
    const invoker = remoteInvoker({ baseUrl: url, apiKey, fetch: send, authoring });
    return { invoker, mode: "remote", url, apiKey, close: () => Promise.resolve() };
  }
  const loaded = parsed.config === undefined
    ? undefined
    // Loaded on demand: the YAML parser is only needed with a file.
    : await (await import("../server/config.ts")).loadConfig(args, env);
  const config = loaded?.engine ?? engineConfig(lookup);
  // Loaded on demand: remote mode, --help and --version do not start the engine.
  const { ModelService: Service } = await import("../engine/service/service.ts");
  const llm = await embeddedLlm(loaded?.llm, lookup);
  const executors = await embeddedExecutors(loaded?.effects ?? effectsConfig(lookup), config, llm?.provider);
  const repositories = await embeddedRepositories(
    (loaded?.lookup ?? lookup)("svc.composition.repositories"),
    warn,
  );
  const service = await Service.open({
    config,
    observer: { warn },
    generator: llm?.generator,
    executors,
    repositories,
  });
  return { invoker: localInvoker(service), mode: "embedded", service, close: () => service.close() };
}

/**
 * The provider and generator of `svc.llm.*` (the file's, or the
 * environment's), loaded only when a provider is configured: without one the
 * AI libraries stay unloaded and generation answers 503.
 */
async function embeddedLlm(
  fromFile: LlmConfig | undefined,
  lookup: (key: string) => string | undefined,
): Promise<{ provider?: LlmProvider; generator?: SpecGenerator } | undefined> {
  const { llmConfig, providerConfigured } = await import("../llm/config.ts");
  const config = fromFile ?? llmConfig(lookup);
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

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}
