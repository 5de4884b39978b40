/**
 * The MCP server over {@link ModelApi}: one SDK `Server` per session (stdio
 * process or HTTP session) with the tools, the resources, subscriptions,
 * logging and version negotiation of SPEC.md "MCP over stdio".
 *
 * The low-level SDK `Server` is used rather than `McpServer` because the tool
 * schemas are plain JSON Schemas (the embedded ModelSpec and SpecEvolution
 * schemas), which `McpServer`'s Zod-based registration cannot carry.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  InitializeRequestSchema,
  type InitializeResult,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { ServiceError } from "../engine/errors.ts";
import type { ModelApi } from "../engine/service/api.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import { type AuthoringEngine, localAuthoring } from "./authoring.ts";
import type { CommitEvents } from "./events.ts";
import { ProtocolError } from "./protocol_error.ts";
import { listResources, readResource, RESOURCE_TEMPLATES, ResourceSubscriptions } from "./resources.ts";
import { toolFailure, toolSuccess } from "./results.ts";
import { checkArguments, type ToolDefinition, TOOLS } from "./tools.ts";

/** Protocol versions negotiated, newest first (SPEC.md "Versioning"). */
export const PROTOCOL_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/** The version answered to a client that asked for `requested`. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : PROTOCOL_VERSIONS[0];
}

/** Log levels by increasing severity. */
const SEVERITY: readonly LoggingLevel[] = LoggingLevelSchema.options;
/** Below this, messages are suppressed until the client sets a level (per-call debug lines are noise). */
const DEFAULT_LOG_LEVEL: LoggingLevel = "info";

/** Usage instructions returned by `initialize`: the agent loop. */
export const INSTRUCTIONS =
  `This server hosts reactive models. A model is created from a declarative ModelSpec (JSON \
Schema of base fields, JSONata derivations, meta derivations, constraints, effects, tests, views); after every write \
it recomputes derived values, checks constraints and commits or rolls back as a whole.

The loop:
1. Author a spec. Read svc://guide/model-spec-format and svc://guide/jsonata-gotchas, look at svc://examples/*, \
ask get_domain_guidance for worked patterns. Try expressions with eval_expression.
2. Check before registering: validate_spec, then test_spec (embedded tests or ad-hoc cases), then dry_run with \
sample mutations. These never touch the registry.
3. create_model, then write only base fields with mutate ({"$.qty": 3}) or patch_model (RFC 6902, for array \
insert/remove/reorder). Derived fields are read-only.
4. Read the merged state with get_state (narrow large documents with paths and depth) or get_field; \
get_effective_schema shows live meta values.
5. explain a field or $constraint:<id> to see the expressions, inputs and results behind a value.
6. Change a live model with evolve_spec (svc://guide/spec-evolution; pass expectedVersion), state carried forward.
Addresses are canonical JSON Path ($.items[0].qty). Failures come back as isError results with a structured body: \
a rolled-back constraint, a schema violation, a version conflict. Subscribe to svc://state/<modelId> to hear about \
commits.`;

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Named in the readiness log line: `embedded`, `remote`, `server`. */
  mode: string;
  /** The pure authoring tools; local engine functions by default (never the API). */
  authoring?: AuthoringEngine;
  /** Commit events for resource subscriptions; without them subscriptions stay silent. */
  events?: CommitEvents;
  /**
   * Resolves when notifications can reach the client; the readiness line waits
   * for it (over HTTP, the session's GET stream).
   */
  notificationsReady?: Promise<void>;
  /** Diagnostics (never protocol output). */
  onError?: (error: Error) => void;
}

/** The SDK's own initialize handler, which records the client's capabilities and info. */
type SdkInitialize = (request: unknown) => Promise<InitializeResult>;

/** Creates one session's MCP server; connect it to a transport to serve. */
export function createMcpServer(api: ModelApi, options: McpServerOptions): Server {
  const authoring = options.authoring ?? localAuthoring();
  const server = new Server(
    { name: SERVICE_NAME, version: SERVICE_VERSION },
    {
      capabilities: { tools: {}, resources: { subscribe: true }, logging: {} },
      instructions: INSTRUCTIONS,
    },
  );
  // One server per session, so the level set by logging/setLevel is this session's.
  let minimum: LoggingLevel = DEFAULT_LOG_LEVEL;
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    minimum = request.params.level;
    return {};
  });
  const log = async (level: LoggingLevel, data: string) => {
    if (SEVERITY.indexOf(level) < SEVERITY.indexOf(minimum)) return;
    await server.sendLoggingMessage({ level, logger: SERVICE_NAME, data })
      .catch((err) => options.onError?.(err as Error));
  };
  const subscriptions = new ResourceSubscriptions(api, options.events, (uri) => {
    server.sendResourceUpdated({ uri }).catch((err) => options.onError?.(err as Error));
  });
  server.onclose = () => subscriptions.close();
  server.onerror = (err) => options.onError?.(err);

  // The SDK echoes every version it knows (including 2024-10-07); the spec negotiates exactly four.
  const sdkInitialize = (server as unknown as { _oninitialize: SdkInitialize })._oninitialize.bind(server);
  server.setRequestHandler(InitializeRequestSchema, (request) =>
    sdkInitialize({
      ...request,
      params: { ...request.params, protocolVersion: negotiateVersion(request.params.protocolVersion) },
    }));
  server.oninitialized = () => {
    const announce = () =>
      log("info", `${SERVICE_NAME} ${SERVICE_VERSION} ready: mode ${options.mode}, ${TOOLS.length} tools`);
    if (options.notificationsReady) options.notificationsReady.then(announce);
    else announce();
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS.map(listing) }));
  const byName = new Map(TOOLS.map((t) => [t.name, t]));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    const tool = byName.get(name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const started = performance.now();
    let result: CallToolResult;
    try {
      checkArguments(tool, args);
      result = toolSuccess(name, await tool.run({ api, authoring }, args));
    } catch (err) {
      // Service errors are the caller's business; anything else is a defect worth a diagnostic too.
      if (!(err instanceof ServiceError)) options.onError?.(err as Error);
      result = toolFailure(name, err);
    }
    const ms = (performance.now() - started).toFixed(1);
    await log("debug", `${name} ${result.isError ? "failed" : "succeeded"} in ${ms} ms`);
    return result;
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(api) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [...RESOURCE_TEMPLATES],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(api, request.params.uri));
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    await subscriptions.subscribe(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });
  reportInvalidParams(server);
  return server;
}

type RequestHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/**
 * Params that fail the SDK's request schema (a `tools/call` without `name`)
 * reach the client as -32603 with Zod's message; JSON-RPC calls them -32602.
 * The SDK parses before calling a handler, so its stored handlers are wrapped.
 */
function reportInvalidParams(server: Server): void {
  const handlers = (server as unknown as { _requestHandlers: Map<string, RequestHandler> })._requestHandlers;
  for (const [method, handler] of handlers) {
    handlers.set(method, async (request, extra) => {
      try {
        return await handler(request, extra);
      } catch (err) {
        // Zod's errors (classic or core, by whichever zod the SDK resolved) carry an `issues` list.
        const issues = (err as { issues?: { path: PropertyKey[]; message: string }[] })?.issues;
        if (!Array.isArray(issues)) throw err;
        const detail = issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`).join("; ");
        throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${detail}`);
      }
    });
  }
}

/** A tool as `tools/list` shows it. */
function listing(tool: ToolDefinition) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as { type: "object"; [key: string]: unknown },
    ...(tool.outputSchema
      ? { outputSchema: tool.outputSchema as { type: "object"; [key: string]: unknown } }
      : {}),
    annotations: { title: tool.title, ...tool.annotations },
  };
}
