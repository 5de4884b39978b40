/**
 * The Hono application: middleware (security headers, access log, rate limit,
 * API key, body caps) and the routes of the route table, each a thin adapter
 * over the service layer. Errors become RFC 7807 problem documents
 * (see `problem.ts`).
 *
 * The browser playground and embed script are served at `/` from the web
 * build (routes/web.ts), open and under their own CSP.
 *
 * MCP Streamable HTTP mounts at `/mcp` through {@link AppOptions.mcp}: it sits
 * behind the same middleware (key, limits, headers) as every route; its own
 * Origin check (`svc.mcp.allowed-origins`) is the mount's concern.
 *
 * A request admitted with a pairing session's token runs its route over the
 * session's namespace ({@link NamespacedApi}) instead of the whole service.
 *
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { ModelService } from "../engine/service/service.ts";
import type { McpMount } from "../mcp/http.ts";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./log.ts";
import type { ServiceMetrics } from "./metrics.ts";
import { accessLog } from "./middleware/access_log/index.ts";
import { apiKeyAuth } from "./middleware/auth/index.ts";
import { bodySizeLimit } from "./middleware/body_limit/index.ts";
import { hostCheck, isLoopbackName } from "./middleware/host_check/index.ts";
import { jsonRpcErrors } from "./middleware/json_rpc_errors/index.ts";
import { corsFor } from "./middleware/cors/index.ts";
import { methodGuard } from "./middleware/method_guard/index.ts";
import { admitSession, type PairingHost, sessionOf } from "./pairing/host.ts";
import { NamespacedApi } from "./pairing/namespaced_api.ts";
import { SESSION_TOKEN_PREFIX, type SessionGrant } from "./pairing/pairings.ts";
import { rateLimit } from "./middleware/rate_limit/index.ts";
import { securityHeaders } from "./middleware/security_headers/index.ts";
import { inSequence } from "./middleware/sequence.ts";
import { openApiDocument } from "./openapi/document.ts";
import { problemResponse, serviceErrorResponse } from "./problem.ts";
import { CachedRouter } from "./route_cache.ts";
import { honoPath, ROUTES, templatePattern } from "./routes/mod.ts";
import { PAIR_PAGE } from "./routes/pairing.ts";
import { endedSessionFeed } from "./routes/subscribe.ts";
import { DEFAULT_WEB_ROOT, PAGE_CSP, webPages, webPaths } from "./routes/web.ts";
import type { Route, RouteDeps } from "./routes/route.ts";
import type { SubscriptionHub } from "./subscriptions.ts";

/** The `/mcp` mount the app accepts (mcp/ defines it; the server only hosts it). */
export type { McpMount };

/** The methods of MCP Streamable HTTP at `/mcp`; any other is a 405 there, as on the routes. */
const MCP_METHODS = ["GET", "POST", "DELETE"] as const;
const MCP_PATH = /^\/mcp$/;

/** What the app is built from. */
export interface AppOptions {
  service: ModelService;
  config: ServerConfig;
  metrics: ServiceMetrics;
  subscriptions: SubscriptionHub;
  log: Logger;
  /** Served at `/mcp` when given. */
  mcp?: McpMount;
  /** The web build served at `/` (default `dist/web` of the project; routes/web.ts). */
  webRoot?: string;
  /** The address the server listens on, once it does (the WebSocket origin rule compares against it). */
  boundAddress?: () => { hostname: string; port: number } | undefined;
  /** Why the storage refuses requests now, or `null` (default: never says). */
  storageTrouble?: () => string | null;
  /** Browser pairing (the server's, from `svc.pairing.*`; tests pass one with their own clock). */
  pairing: PairingHost;
}

/**
 * Whether a pairing session may use a path: its models and blobs, their
 * composition graph, its own description, and whether generation is
 * available (it is not, and the status read says why rather than a 403).
 */
function sessionReaches(path: string): boolean {
  return /^\/(models|blobs)(\/|$)/.test(path) ||
    ["/composition/graph", "/pair/session", "/llm/status"].includes(path);
}

/**
 * `/models/ns/name/...` with the id's slash encoded (`/models/ns%2Fname/...`),
 * or null for any other path: the route a caller most likely meant.
 */
function encodedIdPath(path: string): string | null {
  const match = /^\/models\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
  return match ? `/models/${match[1]}%2F${match[2]}${match[3] ?? ""}` : null;
}

/** Builds the application. */
export function createApp(options: AppOptions, routes: readonly Route[] = ROUTES): Hono {
  const { service, config, metrics, subscriptions, log } = options;
  let document: Record<string, unknown> | undefined;
  const { pairing } = options;
  // A session's token ends with its session, and so do the feeds it opened.
  pairing.pairings.onEnded((namespaceId) => subscriptions.endSession(namespaceId));
  pairing.pairings.onRevoked((namespaceId, party) => subscriptions.endSession(namespaceId, party));
  const deps: RouteDeps = {
    api: service,
    config,
    metrics,
    subscriptions,
    pairing,
    apiDocument: () => document ??= openApiDocument(routes),
    boundAddress: options.boundAddress ?? (() => undefined),
    storageTrouble: options.storageTrouble ?? (() => null),
  };
  /** The deps of a request: scoped to its session's namespace when it came with a session token. */
  const depsOf = (c: Context): RouteDeps => {
    const grant = sessionOf(c);
    if (!grant) return deps;
    const session = new NamespacedApi(service, grant.namespaceId, pairing.blobs);
    return { ...deps, api: session, session };
  };
  const queryTokenPatterns = routes.filter((r) => r.queryToken).map((r) => templatePattern(r.path));
  const allowedMethods = [
    ...routes.map((r) => ({ pattern: templatePattern(r.path), method: r.method.toUpperCase() })),
    ...(options.mcp ? MCP_METHODS.map((method) => ({ pattern: MCP_PATH, method })) : []),
  ];
  /** The methods the routes of `path` serve, for `Allow`. */
  const allowedOn = (path: string) => [
    ...new Set(allowedMethods.filter((r) => r.pattern.test(path)).map((r) => r.method)),
  ];

  const webRoot = options.webRoot ?? DEFAULT_WEB_ROOT;
  const built = webPaths(webRoot);
  // The approve page of pairing links is the playground too.
  const pages = new Set([...built, "/", ...(pairing.enabled ? [PAIR_PAGE] : [])]);
  const uploadRoutes = routes.filter((r) => r.requestBody?.content["multipart/form-data"])
    .map((r) => ({ pattern: templatePattern(r.path), method: r.method.toUpperCase() }));
  const openPaths = new Set([...routes.filter((r) => r.open).map((r) => r.path), ...pages]);

  const app = new Hono({ router: new CachedRouter() });
  // Outermost: every refusal on /mcp below (405, 403, 429, 413) is answered as a JSON-RPC error there.
  // Mounted on /mcp alone, so no other request passes through it.
  if (options.mcp) app.use("/mcp", jsonRpcErrors(new Set(["/mcp"])));
  app.use("*", methodGuard(allowedOn));
  const crossOrigin = corsFor(config.corsAllowedOrigins);
  if (crossOrigin) app.use("*", crossOrigin);
  app.use(
    "*",
    securityHeaders({
      contentSecurityPolicy: config.contentSecurityPolicy,
      pages: { paths: pages, contentSecurityPolicy: PAGE_CSP },
    }),
  );
  if (config.accessLog) app.use("*", accessLog(log));
  // The checks that refuse or pass a request, in this order, as one middleware (server/middleware/sequence.ts).
  const checks: MiddlewareHandler[] = [];
  if (isLoopbackName(config.host)) {
    checks.push(
      hostCheck({
        allowedOrigins: [
          ...config.websocketAllowedOrigins ?? [],
          ...config.mcpAllowedOrigins,
          ...config.corsAllowedOrigins,
        ],
      }),
    );
  }
  if (config.rateLimit.enabled) checks.push(rateLimit({ ...config.rateLimit, exempt: openPaths }));
  checks.push(
    apiKeyAuth({
      apiKey: config.apiKey,
      openPaths,
      acceptsQueryToken: (path) => queryTokenPatterns.some((p) => p.test(path)),
      sessions: {
        claims: (token) => token.startsWith(SESSION_TOKEN_PREFIX),
        resolve: (token) => pairing.pairings.session(token),
        moved: (token) => pairing.pairings.moved(token),
        reaches: sessionReaches,
        admit: (c, grant: SessionGrant) => admitSession(c, grant),
        endedHandshake: endedSessionFeed,
      },
    }),
    bodySizeLimit(
      config.bodyLimits,
      (method, path) => uploadRoutes.some((r) => r.method === method && r.pattern.test(path)),
    ),
  );
  app.use("*", inSequence(checks));
  // Pages answer GET (and HEAD, which Hono routes as GET) only: other requests do not pass through it.
  app.get("*", webPages(webRoot, built, pairing.enabled ? { [PAIR_PAGE]: "/" } : {}));

  for (const route of routes) {
    app.on(route.method.toUpperCase(), honoPath(route.path), (c) => route.handle(c, depsOf(c)));
  }
  if (options.mcp) {
    const mcp = options.mcp;
    // A session's own requests to this server (its browser pairing) go in process, as this client's.
    app.on(
      [...MCP_METHODS],
      "/mcp",
      (c) => mcp.handle(c.req.raw, async (sent) => await app.fetch(sent, c.env)),
    );
  }

  app.notFound((c) => {
    const allowed = allowedOn(c.req.path);
    if (allowed.length) {
      return problemResponse(405, `${c.req.method} is not supported on ${c.req.path}`, undefined, {
        Allow: allowed.join(", "),
      });
    }
    const encoded = encodedIdPath(c.req.path);
    const hint = encoded && allowedMethods.some((r) => r.pattern.test(encoded))
      ? `. A namespaced model id is one path segment: write its '/' as %2F (${encoded})`
      : "";
    return problemResponse(404, `No route for ${c.req.method} ${c.req.path}${hint}`);
  });
  app.onError((err, c) => {
    const mapped = serviceErrorResponse(err);
    if (mapped) return mapped;
    if (c.req.raw.signal.aborted) {
      // The client left (a blocking generation it gave up on): nobody reads the answer, and nothing failed.
      log.info(`${c.req.method} ${c.req.path}: the client went away before the answer`);
      return problemResponse(499, "The client went away");
    }
    log.error(`${c.req.method} ${c.req.path} failed: ${(err as Error)?.stack ?? String(err)}`);
    return problemResponse(500, "Internal server error");
  });
  return app;
}
