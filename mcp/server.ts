/**
 * The MCP server: one SDK `Server` per session (stdio process or HTTP session)
 * with the tools derived from the operations, the resources, subscriptions,
 * logging and version negotiation of SPEC.md "MCP over stdio". Tools run
 * through an invoker, so the same server serves embedded and remote modes.
 *
 * The low-level SDK `Server` is used rather than `McpServer` because the tool
 * schemas are JSON Schemas generated from the operations (with the embedded
 * ModelSpec and SpecEvolution schemas), not zod shapes the SDK would convert.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js";
import type { JsonSchemaType, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
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
import { z } from "zod";
import { ServiceError } from "../engine/errors.ts";
import { checkInput } from "../engine/operations/input.ts";
import { type Invoker, invokerOf } from "../engine/operations/invoker.ts";
import type { HostFeatures } from "../engine/operations/operation.ts";
import type { ModelApi, RunOptions } from "../engine/service/api.ts";
import type { ProgressEvent } from "../engine/service/generation.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import type { CommitEvents } from "./events.ts";
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from "./handshake.ts";
import { lifecycleTransport } from "./lifecycle.ts";
import { MAX_LINE_BYTES } from "./lines.ts";
import { negotiatingTransport } from "./negotiation.ts";
import { invalidParams, ProtocolError } from "./protocol_error.ts";
import { listResources, readResource, RESOURCE_TEMPLATES, ResourceSubscriptions } from "./resources.ts";
import { committedSuccess, toolFailure, toolSuccess } from "./results.ts";
import { argumentHolding, NO_FEATURES, type ToolDefinition, toolsFor } from "./tools.ts";

export { negotiateVersion, PROTOCOL_VERSIONS } from "./negotiation.ts";

/** Log levels by increasing severity. */
const SEVERITY: readonly LoggingLevel[] = LoggingLevelSchema.options;
/** Below this, messages are suppressed until the client sets a level (per-call debug lines are noise). */
const DEFAULT_LOG_LEVEL: LoggingLevel = "info";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Named in the readiness log line: `embedded`, `remote`, `server`. */
  mode: string;
  /** Commit events for resource subscriptions; without them subscriptions stay silent. */
  events?: CommitEvents;
  /**
   * Resolves when notifications can reach the client; the readiness line waits
   * for it (over HTTP, the session's GET stream).
   */
  notificationsReady?: Promise<void>;
  /** Diagnostics (never protocol output). */
  onError?: (error: Error) => void;
  /** Optional features of the host (an LLM provider: the generation tools); default none. */
  features?: Partial<HostFeatures>;
}

/** An MCP session's server, connected through version negotiation. */
export interface McpSession {
  server: Server;
  /** Connects the server to a transport (wrapped for version negotiation). */
  connect(transport: Transport): Promise<void>;
}

/** A request schema of the SDK: parses a whole request, names its method. */
// deno-lint-ignore no-explicit-any
type RequestSchema = { shape: { method: { value: string } }; safeParse(value: unknown): any };

/**
 * The SDK's base registration: `Server`'s own checks a `tools/call` first and answers a malformed one with
 * zod's issues dumped as JSON (and the code twice in the message), before {@link handle} could name them.
 */
const register = Object.getPrototypeOf(Server.prototype).setRequestHandler as Server["setRequestHandler"];

/**
 * Registers `handler` for the method of `schema`, answering params that fail
 * the schema with -32602 (invalid params) naming each issue, rather than the
 * SDK's -32603. The handler also gets the request as sent: zod's copy of a
 * record drops an own `__proto__` member, which a tool call must refuse.
 */
function handle<S extends RequestSchema>(
  server: Server,
  schema: S,
  handler: (
    request: NonNullable<ReturnType<S["safeParse"]>["data"]>,
    extra: HandlerExtra,
    sent: NonNullable<ReturnType<S["safeParse"]>["data"]>,
  ) => unknown,
): void {
  const method = schema.shape.method.value;
  register.call(server, z.looseObject({ method: z.literal(method) }), (request: unknown, extra) => {
    const parsed = schema.safeParse(request);
    if (!parsed.success) throw invalidParams(method, parsed.error.issues ?? []);
    // deno-lint-ignore no-explicit-any
    return handler(parsed.data, extra as any, request as any) as any;
  });
}

/** What the SDK hands a request handler besides the request (the parts used here). */
interface HandlerExtra {
  signal: AbortSignal;
  requestId: string | number;
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
}

/** A one-line reading of a progress report, for `notifications/progress` messages. */
export function progressMessage(event: ProgressEvent): string {
  const { type, ...rest } = event;
  const detail = Object.entries(rest).map(([k, v]) =>
    `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`
  );
  return detail.length ? `${type} ${detail.join(" ")}` : type;
}

/**
 * Hands a link to the person through URL-mode elicitation (protocol
 * 2025-11-25), for clients that declare `elicitation.url`: `elicitation/create`
 * with the link, then `notifications/elicitation/complete` once done.
 */
function elicitationHandOver(
  server: Server,
  extra: HandlerExtra,
  onError?: (error: Error) => void,
): RunOptions["handOver"] {
  if (!server.getClientCapabilities()?.elicitation?.url) return undefined;
  return ({ url, message }) => {
    const elicitationId = crypto.randomUUID();
    const withdrawn = new AbortController();
    const accepted = server.elicitInput(
      { mode: "url", url, message, elicitationId },
      { signal: withdrawn.signal, relatedRequestId: extra.requestId },
    ).then((result) => result.action === "accept", () => false);
    return {
      accepted,
      complete: () =>
        server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: extra.requestId })()
          .catch((err) => onError?.(err as Error)),
      withdraw: () => withdrawn.abort(),
    };
  };
}

/**
 * The run options of a tool call: the request's abort signal, progress as
 * `notifications/progress` when the caller passed a progressToken, and a link
 * hand-over for clients with URL-mode elicitation.
 */
function runOptions(
  server: Server,
  extra: HandlerExtra,
  progressToken: string | number | undefined,
  onError?: (error: Error) => void,
): RunOptions {
  const handOver = elicitationHandOver(server, extra, onError);
  if (progressToken === undefined) return { signal: extra.signal, handOver };
  let progress = 0;
  return {
    signal: extra.signal,
    handOver,
    progress: (event) => {
      progress += 1;
      extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken, progress, message: progressMessage(event) },
      }).catch((err) => onError?.(err as Error));
    },
  };
}

/** Runs a tool: arguments checked, the operation invoked, its result presented. */
async function callTool(
  tool: ToolDefinition,
  invoker: Invoker,
  args: Record<string, unknown>,
  options: RunOptions,
): Promise<unknown> {
  const input = checkInput(tool.op, args, {
    args: tool.args,
    strictFor: tool.name,
    ownerOf: (member) => argumentHolding(tool, member),
  });
  const result = await invoker.invoke(tool.op, input, options);
  return tool.binding.present ? tool.binding.present(result, input) : result;
}

/** Creates one session's MCP server over a {@link ModelApi} (in-process) or an {@link Invoker}. */
export function createMcpServer(target: ModelApi | Invoker, options: McpServerOptions): McpSession {
  const invoker = invokerOf(target);
  const tools = toolsFor({ ...NO_FEATURES, ...options.features });
  const server = new Server(
    // Copies: the handshake's constants are shared by every session (and the lazy stdio front).
    { ...SERVER_INFO },
    {
      capabilities: structuredClone(SERVER_CAPABILITIES),
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: LAZY_VALIDATOR,
    },
  );
  // One server per session, so the level set by logging/setLevel is this session's.
  let minimum: LoggingLevel = DEFAULT_LOG_LEVEL;
  handle(server, SetLevelRequestSchema, (request) => {
    minimum = request.params.level;
    return {};
  });
  const log = async (level: LoggingLevel, data: string) => {
    if (SEVERITY.indexOf(level) < SEVERITY.indexOf(minimum)) return;
    await server.sendLoggingMessage({ level, logger: SERVICE_NAME, data })
      .catch((err) => options.onError?.(err as Error));
  };
  const subscriptions = new ResourceSubscriptions(
    invoker,
    options.events,
    (uri) => {
      server.sendResourceUpdated({ uri }).catch((err) => options.onError?.(err as Error));
    },
    (level, message) => void log(level, message),
  );
  server.onclose = () => subscriptions.close();
  server.onerror = (err) => options.onError?.(err);
  server.oninitialized = () => {
    const announce = () =>
      log("info", `${SERVICE_NAME} ${SERVICE_VERSION} ready: mode ${options.mode}, ${tools.length} tools`);
    if (options.notificationsReady) options.notificationsReady.then(announce);
    else announce();
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(listing) }));
  const byName = new Map(tools.map((t) => [t.name, t]));
  handle(server, CallToolRequestSchema, async (request, extra, sent): Promise<CallToolResult> => {
    const { name } = request.params;
    const args = sent.params.arguments ?? {};
    const progressToken = request.params._meta?.progressToken as string | number | undefined;
    const tool = byName.get(name);
    if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const started = performance.now();
    let result: CallToolResult;
    try {
      const run = runOptions(server, extra, progressToken, options.onError);
      const value = await callTool(tool, invoker, args, run);
      result = tool.binding.kind === "read"
        ? toolSuccess(
          value,
          tool.binding.narrowingHint,
          tool.binding.largeResult ? MAX_LINE_BYTES : undefined,
        )
        : committedSuccess(value);
    } catch (err) {
      // Service errors are the caller's business, and so is whatever a cancelled call stopped with;
      // anything else is a defect worth a diagnostic too.
      if (!(err instanceof ServiceError) && !extra.signal.aborted) options.onError?.(err as Error);
      result = toolFailure(err);
    }
    const ms = (performance.now() - started).toFixed(1);
    await log("debug", `${name} ${result.isError ? "failed" : "succeeded"} in ${ms} ms`);
    return result;
  });

  handle(server, ListResourcesRequestSchema, async () => ({ resources: await listResources(invoker) }));
  handle(server, ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }));
  handle(server, ReadResourceRequestSchema, (request) => readResource(invoker, request.params.uri));
  handle(server, SubscribeRequestSchema, async (request) => {
    await subscriptions.subscribe(request.params.uri);
    return {};
  });
  handle(server, UnsubscribeRequestSchema, (request) => {
    subscriptions.unsubscribe(request.params.uri);
    return {};
  });
  // The lifecycle gate sees what the client sent, before negotiation fills in a version.
  return {
    server,
    connect: (transport) => server.connect(negotiatingTransport(lifecycleTransport(transport))),
  };
}

/**
 * The SDK's JSON Schema validator (it checks elicitation answers, which this
 * server never asks for), made on first use: the SDK would otherwise set up an
 * Ajv instance for every server, about 5 ms of each `svc mcp` start.
 */
const LAZY_VALIDATOR: jsonSchemaValidator = (() => {
  let validator: AjvJsonSchemaValidator | undefined;
  return {
    getValidator<T>(schema: JsonSchemaType) {
      return (validator ??= new AjvJsonSchemaValidator()).getValidator<T>(schema);
    },
  };
})();

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
