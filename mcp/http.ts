/**
 * MCP over Streamable HTTP at `/mcp` (SPEC.md "MCP over HTTP", "MCP HTTP
 * session"): `initialize` over POST creates a session (its own SDK server and
 * transport) answered with `Mcp-Session-Id`; later POSTs carry the header and
 * are answered as `application/json` (batches too, a body of only
 * notifications with 202); GET opens the session's notification stream;
 * DELETE ends it. At most `maxSessions` sessions are open at once: beyond,
 * `initialize` is refused with 503 and a JSON-RPC error (the open sessions
 * are never ended for a newcomer); sessions idle for `idleSessionMs` are
 * ended by a timer. A browser `Origin` must be listed in
 * `svc.mcp.allowed-origins` (an empty list leaves the endpoint open; no Origin
 * always passes). The API key gate is the app's middleware, as for every route.
 * A host may give each session its own target ({@link McpHttpOptions.perSession}):
 * the server's sessions pair with a browser tab through requests to the
 * server itself.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Invoker } from "../engine/operations/invoker.ts";
import type { HostFeatures } from "../engine/operations/operation.ts";
import type { ModelApi } from "../engine/service/api.ts";
import type { ModelService } from "../engine/service/service.ts";
import { normalizedOrigin } from "../engine/origin.ts";
import { type CommitEvents, serviceCommitEvents } from "./events.ts";
import { handlePost } from "./http_post.ts";
import { sessionlessRefusal } from "./lifecycle.ts";
import { createMcpServer, type McpServerOptions } from "./server.ts";

/** Sends a request to the server hosting `/mcp`, in process, as the client of the request being served. */
export type SelfFetch = (request: Request) => Promise<Response>;

/** What one MCP session runs on, when the host makes it per session. */
export interface McpSessionTarget {
  target: ModelApi | Invoker;
  events?: CommitEvents;
  features?: Partial<HostFeatures>;
}

/**
 * Makes a session's target when it opens: `baseUrl` is the server as the
 * client reached it, `fetch` reaches it in process.
 */
export type McpSessionFactory = (self: { baseUrl: string; fetch: SelfFetch }) => McpSessionTarget;

/** Options of {@link createMcpHttpMount}. */
export interface McpHttpOptions extends Omit<McpServerOptions, "notificationsReady" | "mode"> {
  /** `svc.mcp.allowed-origins`: browser origins accepted; empty (or `*`) accepts every origin. */
  allowedOrigins: readonly string[];
  /** Named in the readiness line (default `server`). */
  mode?: string;
  /**
   * A session without a request for this long is ended (clients that vanish
   * without DELETE): at the next request to `/mcp` of any client, and by a
   * timer at most a minute later; default one hour.
   */
  idleSessionMs?: number;
  /** `svc.mcp.max-sessions`: sessions open at once (default {@link MAX_SESSIONS}). */
  maxSessions?: number;
  /**
   * `svc.http.max-body-size`: the largest POST body read (default the SDK's 4 MiB). The host's
   * own body cap answers first; without this the SDK would refuse bodies the host accepts.
   */
  maxBodyBytes?: number;
  /** Clock of the idle check (tests). */
  now?: () => number;
  /** Gives each session its own target (default: every session runs on the mount's). */
  perSession?: McpSessionFactory;
}

/** A surface served at `/mcp` (GET, POST, DELETE): MCP Streamable HTTP. */
export interface McpMount {
  /** Serves a request; `self` reaches the hosting server in process (needed by {@link McpHttpOptions.perSession}). */
  handle(request: Request, self?: SelfFetch): Promise<Response>;
  /** Ends sessions at shutdown. */
  close?(): Promise<void>;
}

/** Default of {@link McpHttpOptions.idleSessionMs}. */
export const IDLE_SESSION_MS = 60 * 60 * 1000;

/** Default of {@link McpHttpOptions.maxSessions}. */
export const MAX_SESSIONS = 1000;

/** How often idle sessions are looked for (by the timer, and by requests to existing sessions). */
const SWEEP_EVERY_MS = 60 * 1000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  /** When the session last saw a request. */
  lastUsed: number;
  /** The in-process route to the server, as the client of the latest request. */
  self?: SelfFetch;
  close(): Promise<void>;
  /** Called once the GET stream is open: notifications can now reach the client. */
  streamOpened(): void;
}

/** What a client without a (live) session does next: the SDK's own words for it name neither step. */
const START_SESSION = "POST initialize without Mcp-Session-Id; its answer's Mcp-Session-Id header names " +
  "the session, to send on every later request";

/** A JSON-RPC error response with an HTTP status, as the SDK transport writes them. */
function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}

/** The refusal of a request other than `initialize` without a session. */
const NO_SESSION = `Bad Request: Mcp-Session-Id header is required: ${START_SESSION}`;

/** A request other than `initialize` without a session. */
const noSession = (): Response => jsonRpcError(400, -32000, NO_SESSION);

/** The `/mcp` surface over an in-process {@link ModelApi} or an {@link Invoker}. */
export function createMcpHttpMount(target: ModelApi | Invoker, options: McpHttpOptions): McpMount {
  // Normalized here too: a host may hand the mount a list as an operator wrote it.
  const allowed = new Set(options.allowedOrigins.map(normalizedOrigin));
  // An empty list leaves the endpoint open (SPEC.md), as `*` does.
  const anyOrigin = allowed.size === 0 || allowed.has("*");
  const sessions = new Map<string, Session>();
  const now = options.now ?? Date.now;
  const idleMs = options.idleSessionMs ?? IDLE_SESSION_MS;
  const maxSessions = options.maxSessions ?? MAX_SESSIONS;
  const sweepEveryMs = Math.min(idleMs, SWEEP_EVERY_MS);
  // Swept on requests (at most every sweepEveryMs, and whenever a session opens, so the cap counts
  // live sessions only) and by a timer, so abandoned sessions go even when no client calls any more.
  let sweptAt = now();
  /** `initialize` calls being answered: their sessions count against the cap before they are registered. */
  let opening = 0;
  const sweepIdle = () => {
    sweptAt = now();
    for (const session of sessions.values()) {
      if (sweptAt - session.lastUsed > idleMs) void session.close();
    }
  };
  const sweeper = setInterval(sweepIdle, sweepEveryMs);
  // The timer never keeps a process alive on its own; close() stops it.
  Deno.unrefTimer(sweeper);

  /** A 503 for an `initialize` beyond the cap, with when the least recently used session may idle out. */
  const full = (): Response => {
    let oldest = now();
    for (const session of sessions.values()) oldest = Math.min(oldest, session.lastUsed);
    const retryAfter = Math.max(1, Math.ceil((oldest + idleMs - now()) / 1000));
    const response = jsonRpcError(
      503,
      -32000,
      `Too many MCP sessions: ${maxSessions} are open (svc.mcp.max-sessions); end unused ones with DELETE ` +
        "/mcp, or retry once idle ones have expired",
    );
    response.headers.set("Retry-After", String(retryAfter));
    return response;
  };

  const openSession = (request: Request, self?: SelfFetch): Session => {
    const ready = Promise.withResolvers<void>();
    const own = options.perSession?.({
      baseUrl: new URL(request.url).origin,
      fetch: (sent) =>
        session.self ? session.self(sent) : Promise.reject(new Error("no route to the server")),
    });
    const { server, connect } = createMcpServer(own?.target ?? target, {
      ...options,
      events: own?.events ?? options.events,
      features: { ...options.features, ...own?.features },
      mode: options.mode ?? "server",
      notificationsReady: ready.promise,
    });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      maxRequestBodySize: options.maxBodyBytes,
      onsessioninitialized: (id) => {
        sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    let closing: Promise<void> | undefined;
    const session: Session = {
      transport,
      lastUsed: now(),
      self,
      streamOpened: () => ready.resolve(),
      close: () =>
        closing ??= (async () => {
          if (transport.sessionId) sessions.delete(transport.sessionId);
          await server.close();
        })(),
    };
    const closeSubscriptions = server.onclose;
    server.onclose = () => {
      closeSubscriptions?.();
      void session.close();
    };
    connect(transport).catch((err) => options.onError?.(err as Error));
    return session;
  };

  return {
    async handle(request, self) {
      const origin = request.headers.get("origin");
      if (origin !== null && !anyOrigin && !allowed.has(normalizedOrigin(origin))) {
        return jsonRpcError(403, -32000, `Forbidden: origin '${origin}' is not allowed`);
      }
      const sessionId = request.headers.get("mcp-session-id");
      if (now() - sweptAt >= sweepEveryMs) sweepIdle();
      if (sessionId !== null) {
        const session = sessions.get(sessionId);
        // One idle too long is ended at its own request too: the sweep may not have come by yet.
        if (!session || now() - session.lastUsed > idleMs) {
          void session?.close();
          return jsonRpcError(
            404,
            -32001,
            `Session not found (ended by DELETE, idle too long or a server restart): ${START_SESSION}`,
          );
        }
        session.lastUsed = now();
        session.self = self;
        const response = request.method === "POST"
          ? await handlePost(session.transport, request)
          : await session.transport.handleRequest(request);
        if (request.method === "GET" && response.ok) session.streamOpened();
        return response;
      }
      if (request.method !== "POST") {
        return noSession();
      }
      // A POST without a session must be `initialize`; otherwise the transport refuses it and the
      // unused session is dropped.
      sweepIdle();
      if (sessions.size + opening >= maxSessions) {
        await request.body?.cancel();
        return full();
      }
      opening++;
      // The body again, read only when the transport refused it as no `initialize`.
      const copy = request.clone();
      try {
        const session = openSession(request, self);
        const response = await handlePost(session.transport, request);
        if (session.transport.sessionId === undefined) {
          await session.close();
          // Not `initialize`: the SDK says "Server not initialized", which reads as a server fault. A
          // malformed `initialize` is not one to the SDK either, and a batch holding one gets "Only one
          // initialization request is allowed": the client is told what is wrong, member by member.
          if (
            response.status === 400 &&
            /not initialized|Only one initialization/.test(
              (await response.clone().json().catch(() => null))?.error?.message,
            )
          ) {
            await response.body?.cancel();
            const refusal = sessionlessRefusal(await copy.json().catch(() => null), NO_SESSION);
            return refusal ? Response.json(refusal, { status: 400 }) : noSession();
          }
        }
        return response;
      } finally {
        if (!copy.bodyUsed) await copy.body?.cancel();
        opening--;
      }
    },
    async close() {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map((s) => s.close()));
    },
  };
}

/**
 * The server's own `/mcp`: MCP over its service, commits from its event hook;
 * with `perSession`, each session's own target (the server's browser pairing).
 */
export function createServiceMcpMount(
  service: ModelService,
  options: Pick<McpHttpOptions, "allowedOrigins" | "maxSessions" | "perSession" | "maxBodyBytes">,
): McpMount {
  return createMcpHttpMount(service, {
    ...options,
    events: serviceCommitEvents(service),
    features: { generation: service.generationAvailable },
  });
}
