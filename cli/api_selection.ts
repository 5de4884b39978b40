/**
 * Where a CLI surface (console, MCP over stdio) runs its operations: embedded
 * (an in-memory service that dies with the process) by default, or a server's
 * REST API with `--url <base>` / `SVC_URL` (SPEC.md "Run modes"), through the
 * remote invoker derived from the operations' REST bindings. The key comes
 * from `--api-key` or `SVC_API_KEY`; the command line wins over the
 * environment. With `--browser` too, the credential is the session of a
 * browser pairing (`pair_browser`, engine/operations/browser_session.ts) instead of a key.
 * A remote request waits `--timeout <ms>` or `svc.remote.timeout-ms` for the
 * server's answer (60 s by default; the command line wins).
 * Nothing here touches the network: a wrong URL or key shows up on the first
 * remote call, as that call's error.
 *
 * The mode is decided first from the arguments and the environment alone
 * ({@link planApi}); {@link openApi} then loads what that mode needs (the
 * engine, or the remote client), so that `svc mcp` can answer `initialize`
 * before any of it is loaded.
 *
 * @module
 */
import { type ConfigLookup, type EngineConfig, engineConfig, envName, readLimit } from "../engine/config.ts";
import { REQUEST_TIMEOUT_MS } from "../engine/operations/fetch_within.ts";
import type { Invoker } from "../engine/operations/invoker.ts";
import { normaliseBaseUrl } from "../engine/operations/remote.ts";
import type { ModelService } from "../engine/service/service.ts";
import type { LoadedConfig } from "../server/config.ts";
import { configWarnings } from "../server/config_keys.ts";
import { consoleLogger } from "../server/log.ts";
import { type CliArgs, parseCliArgs } from "./args.ts";
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

/** Options of {@link planApi}. */
export interface PlanOptions {
  /** Where warnings go (stderr by default). */
  warn?: (message: string) => void;
  /** The environment's variable names, checked for unknown `SVC_*` keys (the process's by default). */
  envNames?: readonly string[];
}

/** The `svc.*` keys embedded mode runs with: a `--config` file's and the environment's. */
export type EmbeddedConfig = Pick<LoadedConfig, "lookup" | "engine" | "llm" | "effects">;

/** The mode chosen, and what opening it needs. */
export type ApiPlan =
  & { args: readonly string[]; env: EnvLookup; warn: (message: string) => void }
  & (
    | { mode: "embedded"; config: EmbeddedConfig }
    | { mode: "remote"; url: string; apiKey?: string; engine: EngineConfig; timeoutMs: number }
    | { mode: "browser"; url: string; engine: EngineConfig; timeoutMs: number }
  );

/** The key of how long a remote request waits for the server (ms); `--timeout` wins over it. */
export const REMOTE_TIMEOUT_KEY = "svc.remote.timeout-ms";

/** The longest timeout: the longest delay one timer waits. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Picks the mode from the command line (`--url`, `--api-key`, `--browser`,
 * `--config`) and the environment, loading none of the engine: a malformed
 * URL or `--browser` without a server is a usage error here (a
 * {@link ServiceError}), and so is, as an `Error`, an unreadable `--config`
 * file or a malformed key the mode reads (all of them before anything
 * starts, so `svc mcp` refuses them before its handshake); typos in `SVC_*`
 * names and `--config` keys are reported (an error with `--strict-config` or
 * `svc.config.strict`) in every mode. `--config <file>` supplies `svc.*` keys
 * as `svc serve` reads them (the environment wins).
 */
export async function planApi(
  args: readonly string[],
  env: EnvLookup = processEnv,
  options: PlanOptions = {},
): Promise<ApiPlan> {
  const parsed = parseCliArgs(args);
  const warn = options.warn ?? consoleLogger.warn;
  const names = options.envNames ?? (env === processEnv ? Object.keys(Deno.env.toObject()) : []);
  // The `--config` file's keys, under the environment's (as for `serve`); both are checked for typos.
  const fromFile = parsed.config === undefined
    ? new Map<string, string>()
    // Loaded on demand: the YAML parser is only needed with a file.
    : await (await import("../server/config.ts")).readConfigFile(parsed.config);
  const lookup: ConfigLookup = (key) => env(envName(key)) ?? fromFile.get(key);
  configWarnings(args, lookup, names, [...fromFile.keys()]).forEach(warn);
  const given = parsed.url ?? nonEmpty(env("SVC_URL"));
  if (parsed.browser && given === undefined) {
    throw badRequest(
      "--browser pairs with a server's browser tab: give the server with --url <base> (or SVC_URL)",
    );
  }
  const common = { args, env, warn };
  if (given === undefined) {
    if (parsed.timeout !== undefined) warn("--timeout is not used without --url: nothing is remote");
    return { ...common, mode: "embedded", config: await embeddedConfig(lookup) };
  }
  const url = normaliseBaseUrl(given);
  const engine = engineConfig(lookup);
  const timeoutMs = remoteTimeout(parsed, lookup);
  if (parsed.browser) {
    if (parsed.apiKey !== undefined) {
      warn("--api-key is not used with --browser: a person approves the pairing");
    }
    return { ...common, mode: "browser", url, engine, timeoutMs };
  }
  const apiKey = parsed.apiKey ?? nonEmpty(env("SVC_API_KEY"));
  return { ...common, mode: "remote", url, apiKey, engine, timeoutMs };
}

/**
 * How long a remote request waits: `--timeout` (a usage error unless a whole
 * number of ms from 1 to the longest timer), else {@link REMOTE_TIMEOUT_KEY}
 * (a configuration error likewise), else 60 s.
 */
function remoteTimeout(parsed: CliArgs, lookup: ConfigLookup): number {
  if (parsed.timeout === undefined) {
    return readLimit(lookup, REMOTE_TIMEOUT_KEY, REQUEST_TIMEOUT_MS, { max: MAX_TIMEOUT_MS });
  }
  const value = /^\d+$/.test(parsed.timeout.trim()) ? Number(parsed.timeout) : NaN;
  if (!(value >= 1 && value <= MAX_TIMEOUT_MS)) {
    throw badRequest(
      `Option --timeout must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got '${parsed.timeout}'`,
    );
  }
  return value;
}

/** The keys of embedded mode (each reader throws on a malformed value). */
async function embeddedConfig(lookup: ConfigLookup): Promise<EmbeddedConfig> {
  const [{ llmConfig }, { effectsConfig }] = await Promise.all([
    import("../llm/config.ts"),
    import("../server/executors/config.ts"),
  ]);
  return { lookup, engine: engineConfig(lookup), llm: llmConfig(lookup), effects: effectsConfig(lookup) };
}

/** Opens the API of a plan: the in-memory service in embedded mode, or the remote client; each loaded on demand. */
export async function openApi(plan: ApiPlan): Promise<ApiSelection> {
  if (plan.mode === "embedded") return await (await import("./embedded_api.ts")).openEmbeddedApi(plan);
  const { remoteInvoker } = await import("../engine/operations/remote.ts");
  const { url, engine: config, timeoutMs } = plan;
  // Loaded on first use: remote mode starts without the spec compiler.
  const authoring = async () => (await import("../engine/service/authoring.ts")).localAuthoring({ config });
  const send = (request: Request) => fetch(request);
  if (plan.mode === "browser") {
    const { BrowserSession } = await import("../engine/operations/browser_session.ts");
    const pairing = new BrowserSession({ baseUrl: url, fetch: send, timeoutMs });
    const apiKey = () => pairing.credential();
    const invoker = remoteInvoker({ baseUrl: url, apiKey, fetch: send, authoring, pairing, timeoutMs });
    return { invoker, mode: "browser", url, apiKey, close: () => Promise.resolve() };
  }
  const invoker = remoteInvoker({ baseUrl: url, apiKey: plan.apiKey, fetch: send, authoring, timeoutMs });
  return { invoker, mode: "remote", url, apiKey: plan.apiKey, close: () => Promise.resolve() };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}
