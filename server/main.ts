/**
 * Starts the HTTP server: configuration, storage, the service with its metrics
 * observer, the WebSocket hub and the Hono app on `Deno.serve`; one startup
 * line; graceful shutdown on SIGINT/SIGTERM.
 *
 * @module
 */
import { commitBatches } from "../engine/service/write_batch.ts";
import { ed25519Signer } from "../engine/audit/signing.ts";
import type { Hono } from "hono";
import { ModelService } from "../engine/service/service.ts";
import { MAX_QUOTED_WORD, quoted } from "../engine/quoted.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import { describeLlm, generatorOf, type LlmHostOptions, providerOf } from "../llm/mod.ts";
import { hostExecutors } from "./executors/mod.ts";
import { createServiceMcpMount, type McpMount } from "../mcp/http.ts";
import { createApp } from "./app.ts";
import { failureAbout } from "./config_failure.ts";
import { isLoopbackName } from "./middleware/host_check/index.ts";
import { loadConfig, type LoadedConfig, type ServerConfig } from "./config.ts";
import { llmEgress } from "./llm_egress.ts";
import { consoleLogger, type Logger } from "./log.ts";
import { ServiceMetrics } from "./metrics.ts";
import { PairingHost } from "./pairing/host.ts";
import { hostedPairingSessions } from "./pairing/hosted_mcp.ts";
import { serverPlatform } from "./platform.ts";
import { openStorage, type Storage } from "./stores/mod.ts";
import { openRepositories } from "../repositories/mod.ts";
import { SubscriptionHub } from "./subscriptions.ts";
import { guardUnsignedHeads } from "./unsigned_head_guard.ts";
import { keepServingOnUnhandledRejections } from "./unhandled_rejections.ts";

/** Options of {@link startServer}. */
export interface ServerOptions {
  config: LoadedConfig;
  log?: Logger;
  /** Storage to use instead of the configured one. */
  storage?: Storage;
  /**
   * Builds the `/mcp` surface once the service is open; {@link startServer}
   * defaults to MCP over the service (mcp/http.ts), whose sessions pair
   * through the server's `pairing`.
   */
  mcp?: (service: ModelService, config: ServerConfig, pairing: PairingHost) => McpMount;
  /** The web build served at `/` (default `dist/web` of the project). */
  webRoot?: string;
  /** The address the server listens on, once it does. */
  boundAddress?: () => { hostname: string; port: number } | undefined;
  /** Ports of LLM generation (tests route the provider and web calls to loopback stubs). */
  llm?: LlmHostOptions;
  /** Browser pairing instead of one from `svc.pairing.*` (tests pass their own clock). */
  pairing?: PairingHost;
}

/** A running server. */
export interface RunningServer {
  /** Base URL (`http://127.0.0.1:8080`). */
  url: string;
  port: number;
  service: ModelService;
  metrics: ServiceMetrics;
  subscriptions: SubscriptionHub;
  /** Closes subscriptions, waits for in-flight requests, then releases storage. */
  close(): Promise<void>;
}

/** The wired application, before it listens. */
export interface ServerParts {
  app: Hono;
  service: ModelService;
  metrics: ServiceMetrics;
  subscriptions: SubscriptionHub;
  storage: Storage;
  mcp?: McpMount;
}

/** Opens the service on its storage and wires metrics, subscriptions and the app. */
export async function assembleServer(options: ServerOptions): Promise<ServerParts> {
  const { server: config, engine } = options.config;
  const log = options.log ?? consoleLogger;
  const warn = (message: string) => log.warn(message);
  const storage = options.storage ?? await openStorage(options.config.lookup, warn);
  const metrics = new ServiceMetrics();
  let service: ModelService;
  try {
    const auditSigner = config.auditSigningKey === null
      ? undefined
      : await ed25519Signer(config.auditSigningKey, config.auditRetiredPublicKeys).catch((err) => {
        throw new Error(
          `Configuration svc.audit.signing-key (SVC_AUDIT_SIGNING_KEY): ${(err as Error).message}`,
        );
      });
    // Public: an operator who replaces the key lists this one as retired, so its records still verify.
    if (auditSigner) {
      log.info(
        `audit records are signed (Ed25519 public key ${auditSigner.publicKey}; after replacing ` +
          "svc.audit.signing-key, list it in svc.audit.retired-public-keys)",
      );
    }
    const llm = { egress: llmEgress(), ...options.llm };
    const provider = providerOf(options.config.llm, llm);
    const executors = await hostExecutors({
      config: options.config.effects,
      kindsEnabled: engine.effectKindsEnabled,
      llm: provider,
    });
    service = await ModelService.open({
      config: engine,
      platform: serverPlatform(),
      // With a key, no write signs over an unsigned head nobody checked.
      store: config.auditSigningKey === null
        ? storage.store
        : guardUnsignedHeads(storage.store, config.auditAcceptUnsignedHeads),
      blobs: storage.blobs,
      observer: { ...metrics.observer(), warn },
      // Destructive administration needs a key: in open mode anyone could run it.
      adminWrites: config.apiKey !== null,
      generator: generatorOf(options.config.llm, llm, provider),
      executors,
      repositories: await openRepositories(options.config.lookup("svc.composition.repositories"), warn),
      // A model's queued writes share one durable write where the store can (Deno KV).
      writeBatcher: commitBatches,
      auditSigner,
    });
  } catch (err) {
    await storage.store.close();
    await storage.blobs.close();
    throw err;
  }
  metrics.countModels(() => service.modelCount);
  metrics.watchStorage(storage.full ?? (() => false));
  const subscriptions = new SubscriptionHub(service, config.websocketMaxBufferedBytes);
  const pairing = options.pairing ??
    new PairingHost({ enabled: config.pairing.enabled, expiresInSec: config.pairing.expiresInSeconds });
  const mcp = options.mcp?.(service, config, pairing);
  const app = createApp({
    service,
    config,
    metrics,
    subscriptions,
    log,
    mcp,
    boundAddress: options.boundAddress,
    storageTrouble: storage.trouble,
    webRoot: options.webRoot,
    pairing,
  });
  return { app, service, metrics, subscriptions, storage, mcp };
}

/** The addresses that bind every interface: no client connects to them. */
const UNSPECIFIED = new Set(["0.0.0.0", "::"]);

/** `http://host:port`, an IPv6 address in brackets. */
function urlOf(hostname: string, port: number): string {
  return `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

/** Starts the server and prints the startup line. */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const config = options.config.server;
  const log = options.log ?? consoleLogger;
  const bound: { address?: { hostname: string; port: number } } = {};
  const { app, service, metrics, subscriptions, storage, mcp } = await assembleServer({
    ...options,
    boundAddress: () => bound.address,
    mcp: options.mcp ??
      ((svc, cfg, pairing) =>
        createServiceMcpMount(svc, {
          allowedOrigins: cfg.mcpAllowedOrigins,
          maxSessions: cfg.mcpMaxSessions,
          maxBodyBytes: cfg.bodyLimits.otherBytes,
          perSession: pairing.enabled ? hostedPairingSessions(svc, pairing) : undefined,
        })),
  });

  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({ hostname: config.host, port: config.port, onListen: () => {} }, app.fetch);
  } catch (err) {
    subscriptions.close();
    await mcp?.close?.();
    await service.close();
    // Deno's own words quote the host whole ("invalid host '…'"): both cut short.
    throw new Error(
      `cannot listen on ${quoted(config.host, MAX_QUOTED_WORD)}:${config.port}: ${
        failureAbout((err as Error).message, config.host)
      }; choose another port with SVC_PORT (svc.port) or another interface with SVC_HOST (svc.host)`,
    );
  }
  const { hostname, port } = server.addr;
  bound.address = { hostname, port };
  const everywhere = UNSPECIFIED.has(hostname);
  // No client reaches http://0.0.0.0:…: on every interface this machine's loopback address is the one to use.
  const url = urlOf(everywhere ? (hostname === "::" ? "::1" : "127.0.0.1") : hostname, port);
  const remoteUrl = everywhere ? urlOf(Deno.hostname(), port) : url;
  const interfaces = everywhere ? ` on every interface (${hostname}; from other machines ${remoteUrl})` : "";
  log.info(
    `${SERVICE_NAME} ${SERVICE_VERSION} listening on ${url}${interfaces} (storage: ${storage.description}; ` +
      `auth: ${config.apiKey === null ? "open" : "API key"})`,
  );
  if (service.generationAvailable) log.info(describeLlm(options.config.llm));
  if (config.apiKey === null) {
    // Open mode off loopback is the one setting that exposes every model to the network: say so loudly.
    const exposed = isLoopbackName(hostname)
      ? ""
      : `; ${remoteUrl} is reachable from the network, set SVC_API_KEY`;
    log.warn(`open mode: svc.api.key is not set, every request is permitted (development only)${exposed}`);
  }

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    service,
    metrics,
    subscriptions,
    close: () =>
      closing ??= (async () => {
        subscriptions.close();
        // In-flight requests are waited for: generations would hold them for minutes.
        service.stopGenerations();
        await mcp?.close?.();
        await server.shutdown();
        await service.close();
      })(),
  };
}

/**
 * `svc serve [--config <file>]`: runs until SIGINT or SIGTERM, then shuts down
 * gracefully; meanwhile an unhandled rejection is logged, not fatal
 * (unhandled_rejections.ts). Returns the process exit code.
 */
export async function runServe(args: readonly string[], log: Logger = consoleLogger): Promise<number> {
  let running: RunningServer;
  // The process's entry only: a library user or a test runner keeps Deno's own ending.
  const uninstall = keepServingOnUnhandledRejections(log);
  try {
    const config = await loadConfig(args);
    for (const warning of config.warnings) log.warn(warning);
    running = await startServer({ config, log });
  } catch (err) {
    uninstall();
    log.error((err as Error).message);
    return 1;
  }
  const stopped = Promise.withResolvers<void>();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  const onSignal = () => stopped.resolve();
  for (const signal of signals) Deno.addSignalListener(signal, onSignal);
  await stopped.promise;
  for (const signal of signals) Deno.removeSignalListener(signal, onSignal);
  log.info("shutting down");
  await running.close();
  uninstall();
  return 0;
}
