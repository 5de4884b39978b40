/**
 * What an operation is: its name, its typed input (a zod object, from which
 * the argument checks, MCP input schemas and OpenAPI parameters are derived),
 * the shape of its result, its handler, and how each surface shows it: the
 * REST binding (method, path, where each argument comes from, success status),
 * the MCP tool (name, title, annotations, narrowing hint) and the console
 * command. Every surface is generated from these declarations
 * (`engine/operations/mod.ts` lists them). The zod schemas are declared as
 * {@link Lazy} and built on first use, so a start pays only for the
 * operations it runs.
 *
 * Two kinds:
 * - an **API operation** is one {@link ModelApi} method; it has a REST route,
 *   so the remote client reaches it over HTTP;
 * - a **local operation** composes other operations (through `invoke`) or
 *   runs the pure authoring tools; it runs in the caller's process on every
 *   surface, local or remote.
 *
 * @module
 */
import type { z } from "zod";
import type { ServiceError } from "../errors.ts";
import { type Lazy, lazySchema } from "./json_schema.ts";
import type { AuthoringEngine } from "../service/authoring.ts";
import type { ModelApi, RunOptions } from "../service/api.ts";
import type { BrowserPairing } from "./pairing.ts";

export type { RunOptions } from "../service/api.ts";

/**
 * Invokes an operation with its input, wherever it runs (in-process or on a
 * server); `options` carry an abort signal and a progress listener to
 * operations that take them.
 */
export type InvokeFn = <I, O>(op: Operation<I, O>, input: I, options?: RunOptions) => Promise<O>;

/** What a surface's host offers, for bindings that exist only on some hosts. */
export interface HostFeatures {
  /** An LLM provider is configured (`svc.llm.*`): the generation tools work. */
  generation: boolean;
  /** Remote-with-browser mode (`--url --browser`) or the server's own `/mcp`: `pair_browser` works. */
  pairing: boolean;
}

/** What a local operation runs with. */
export interface LocalContext {
  /** Invokes another operation through the same invoker (so remote stays remote). */
  invoke: InvokeFn;
  /** The pure authoring tools, always in this process (created on first use: they load the compiler). */
  authoring(): Promise<AuthoringEngine>;
  /** The process's browser pairing (remote-with-browser mode only). */
  pairing?: BrowserPairing;
}

/** Names of an input's members. */
type Member<I> = keyof I & string;

/** The console command of an operation. */
export interface ConsoleBinding<I, O> {
  /** The command name (`get-state`). */
  command: string;
  /** The arguments the command takes (default: every input member). */
  args?: readonly Member<I>[];
  /** The reply's `result` (default: the operation's result). */
  present?(result: O, input: I): unknown;
}

/** MCP's reading of an operation's effect. */
export type ToolKind = "read" | "write" | "destructive";

/** The MCP tool of an operation. */
export interface McpBinding<I, O> {
  tool: string;
  title: string;
  /** The tool description (default: the operation's summary). */
  description?: string;
  /** Sets the annotations: reads are read-only and idempotent; destructive ones say so. */
  kind: ToolKind;
  /** Whether repeating the call changes nothing more (default: reads only). */
  idempotent?: boolean;
  /** The arguments the tool takes (default: every input member). */
  args?: readonly Member<I>[];
  /** The tool result (default: the operation's result). */
  present?(result: O, input: I): unknown;
  /**
   * The declared `outputSchema`: the shape of what `present` returns when it
   * differs from the operation's output; `null` declares none.
   */
  output?: Lazy | null;
  /**
   * Whether a result may be as large as a message (10 MiB), not only what an
   * agent's context takes: for bytes asked for by id, whose size the caller
   * knows (a blob: what upload_blob took in, download_blob gives back).
   */
  largeResult?: boolean;
  /** How to ask for less when a read's result is withheld as too large (a write's is cut, never withheld). */
  narrowingHint?: string;
  /** Whether the tool is offered on this host (default: always). */
  available?(host: HostFeatures): boolean;
}

/** A documented failure of a REST route. */
export interface ErrorDoc {
  description: string;
  /** The body's component when it is a structured one (default: a problem document). */
  body?: Lazy | Lazy[];
}

/** Where a REST request carries its body. */
export type RestBody<I> =
  | {
    /** The whole JSON body is this input member. */
    member: Member<I>;
    description: string;
    /** Accepted media types, preferred first (default `application/json`). */
    mediaTypes?: readonly string[];
  }
  | {
    /** The JSON body is an object whose members are these input members. */
    members: readonly Member<I>[];
    description: string;
  }
  | {
    /** A multipart form: the `file` part's bytes go to `fileMember`, its `mediaType` field to `typeMember`. */
    multipart: { fileMember: Member<I>; typeMember: Member<I> };
    description: string;
  };

/** The REST route of an API operation. */
export interface RestBinding<I, O> {
  method: "get" | "post" | "delete";
  /** OpenAPI path template; each `{name}` is the input member of that name, one encoded segment. */
  path: string;
  /** Default: the operation's name. */
  operationId?: string;
  tag: string;
  /** Default: the operation's summary. */
  summary?: string;
  /** Input members read from query parameters: member -> parameter name. */
  query?: Partial<Record<Member<I>, string>>;
  /** Input members read from headers: member -> header name. */
  headers?: Partial<Record<Member<I>, string>>;
  body?: RestBody<I>;
  /** The success status (default 200; 204 sends no body). */
  status?: 200 | 201 | 204;
  /**
   * `binary` streams a blob's bytes with its media type (the result is
   * `{bytes, mediaType}`); `sse` answers with server-sent events: a `progress`
   * frame per progress report, then `done` with the result, or `error
   * {message}`. A failure before the first frame is an ordinary HTTP error
   * (argument checks, 503), and a client that disconnects aborts the run.
   */
  response?: "json" | "binary" | "sse";
  /**
   * `sse` only: the `done` body a failure ends the stream with instead of an
   * `error` frame (a generation that produced no valid spec); `undefined` for
   * an `error` frame.
   */
  doneOnFailure?(error: ServiceError): unknown;
  /** The response body when it is not the operation's result. */
  present?(result: O): unknown;
  /** The response's shape when `present` changes it. */
  presented?: Lazy;
  /** A `Location` header for the created resource. */
  location?(result: O): string;
  /**
   * Rebuilds the operation's result from a response whose body `present`
   * reduced (the remote client's side of `present`).
   */
  decode?(body: unknown, input: I, invoke: InvokeFn): Promise<O>;
  /** Failure statuses this route documents. */
  errors: Record<number, ErrorDoc>;
}

/** What every operation declares. */
interface Declaration<I, O> {
  /** The registry name (camelCase; an API operation's is its {@link ModelApi} method). */
  name: string;
  summary: string;
  /** The input: a zod object, one member per argument (built on first read). */
  readonly input: z.ZodType<I>;
  /** The result's shape, when worth declaring (MCP `outputSchema`, OpenAPI responses; built on first read). */
  readonly output?: z.ZodType;
  console?: ConsoleBinding<I, O>;
  mcp?: McpBinding<I, O>;
}

/** An operation that is one {@link ModelApi} call, with its REST route(s). */
export interface ApiOperation<I, O> extends Declaration<I, O> {
  kind: "api";
  run(api: ModelApi, input: I, options?: RunOptions): Promise<O>;
  /** One route, or several that differ by which optional path members are present. */
  rest: readonly RestBinding<I, O>[];
}

/** An operation composed of others, or a pure authoring tool; runs in the caller's process. */
export interface LocalOperation<I, O> extends Declaration<I, O> {
  kind: "local";
  run(context: LocalContext, input: I, options?: RunOptions): Promise<O>;
}

/** Any operation. */
export type Operation<I = unknown, O = unknown> = ApiOperation<I, O> | LocalOperation<I, O>;

/** An operation of any input and output, as tables hold them. */
// deno-lint-ignore no-explicit-any
export type AnyOperation = Operation<any, any>;

/** How a declaration gives its schemas: each made on first use. */
interface DeclaredSchemas<S extends z.ZodType> {
  input: () => S;
  output?: () => z.ZodType;
}

/** The operation of a declaration, its `input` and `output` built on their first read. */
function withLazySchemas<D extends DeclaredSchemas<z.ZodType>>(
  { input, output, ...declaration }: D,
): Omit<D, "input" | "output"> & { readonly input: z.ZodType; readonly output?: z.ZodType } {
  const schemas: PropertyDescriptorMap = { input: { get: lazySchema(input), enumerable: true } };
  if (output) schemas.output = { get: lazySchema(output), enumerable: true };
  return Object.defineProperties(declaration, schemas) as Omit<D, "input" | "output"> & {
    readonly input: z.ZodType;
  };
}

/** Declares an API operation; the input type comes from the zod schema. */
export function apiOperation<S extends z.ZodType, O>(
  declaration:
    & Omit<ApiOperation<z.output<S>, O>, "kind" | "input" | "output" | "rest">
    & DeclaredSchemas<S>
    & {
      rest: RestBinding<z.output<S>, O> | readonly RestBinding<z.output<S>, O>[];
    },
): ApiOperation<z.output<S>, O> {
  const rest = Array.isArray(declaration.rest) ? declaration.rest : [declaration.rest];
  return withLazySchemas({ ...declaration, kind: "api", rest }) as ApiOperation<z.output<S>, O>;
}

/** Declares a local operation; the input type comes from the zod schema. */
export function localOperation<S extends z.ZodType, O>(
  declaration: Omit<LocalOperation<z.output<S>, O>, "kind" | "input" | "output"> & DeclaredSchemas<S>,
): LocalOperation<z.output<S>, O> {
  return withLazySchemas({ ...declaration, kind: "local" }) as LocalOperation<z.output<S>, O>;
}
