/**
 * The REST routes of the operations (engine/operations/): each REST binding
 * becomes a route that reads the operation's input from the request (path
 * segments, query parameters, headers, the JSON or multipart body), checks it
 * like every surface does, runs the operation over the {@link ModelApi} and
 * answers with the binding's status, body and headers. The same declaration
 * documents the route in `/v3/api-docs`.
 *
 * @module
 */
import type { Context } from "hono";
import type { z } from "zod";
import { badRequest, ServiceError, STATUS_OF_KIND, tooLarge } from "../../engine/errors.ts";
import { MAX_QUOTED_WORD, quoted } from "../../engine/quoted.ts";
import { checkInput, inputMembers, isOptionalMember } from "../../engine/operations/input.ts";
import { componentOf, type JsonSchema, toJsonSchema } from "../../engine/operations/json_schema.ts";
import type { AnyOperation, ApiOperation, ErrorDoc, RestBinding } from "../../engine/operations/operation.ts";
import { pathMembers } from "../../engine/operations/path_members.ts";
import type { BlobContent, ModelApi } from "../../engine/service/api.ts";
import type { ProgressEvent } from "../../engine/service/generation.ts";
import type { ServerConfig } from "../config.ts";
import { ref } from "./schemas.ts";
import {
  ID_PARAM,
  jsonBody,
  type ParamDoc,
  PATH_PARAM,
  problem,
  readJson,
  type ResponseDoc,
  type Route,
} from "./route.ts";

// deno-lint-ignore no-explicit-any
type Binding = RestBinding<any, any>;
// deno-lint-ignore no-explicit-any
type Api = ApiOperation<any, any>;

/** How the path segments of the spec's routes are written (SPEC.md "Endpoints"). */
const PATH_PARAM_DOCS: Record<string, string> = {
  id: ID_PARAM.description,
  path: PATH_PARAM.description,
  blobId: "SHA-256 hex of the content",
};

/** The zod schema of an input member. */
function memberSchema(op: AnyOperation, member: string): z.ZodType {
  return (op.input as z.ZodObject).shape[member] as z.ZodType;
}

/** The schema inside an optional member (where a component is registered). */
function unwrapOptional(schema: z.ZodType): z.ZodType {
  const inner = (schema as { unwrap?: () => z.ZodType }).unwrap;
  return schema.def.type === "optional" && inner ? inner.call(schema) : schema;
}

/** A member's schema in the document: its component, or inline. */
function documented(schema: z.ZodType): JsonSchema {
  const name = componentOf(schema);
  return name ? { $ref: `#/components/schemas/${name}` } : toJsonSchema(schema);
}

/** The JSON type a member's value has, for reading it from a query string. */
function queryType(op: AnyOperation, member: string): string {
  const schema = toJsonSchema(memberSchema(op, member));
  return String(schema.type ?? (schema.anyOf as JsonSchema[] | undefined)?.[0]?.type ?? "string");
}

/** A query parameter's value, typed as its member declares. */
function fromQuery(op: AnyOperation, member: string, name: string, raw: string): unknown {
  const text = raw.trim();
  switch (queryType(op, member)) {
    case "integer":
    case "number":
      if (!/^-?\d+$/.test(text)) throw badRequest(`Invalid query parameter '${name}': expected integer`);
      return Number(text);
    case "boolean":
      if (!/^(true|false)$/i.test(text)) {
        throw badRequest(`Invalid query parameter '${name}': expected true or false`);
      }
      return text.toLowerCase() === "true";
    default:
      return raw;
  }
}

/**
 * What a binding reads from a request besides its body, worked out once per
 * route rather than at every request: its path members, and its query
 * parameters and headers as (member, name) pairs.
 */
interface RequestShape {
  binding: Binding;
  /** The operation's input members (what the argument check accepts), listed at the first request. */
  members?: readonly string[];
  pathMembers: readonly string[];
  query: readonly [string, string][];
  headers: readonly [string, string][];
  /** Where a member comes from, as the caller wrote it (for argument errors). */
  where(member: string): string;
}

function requestShape(binding: Binding): RequestShape {
  const members = pathMembers(binding.path);
  return {
    binding,
    pathMembers: members,
    query: Object.entries(binding.query ?? {}) as [string, string][],
    headers: Object.entries(binding.headers ?? {}) as [string, string][],
    where: (member) => {
      const query = binding.query?.[member];
      if (query) return `query parameter '${query}'`;
      const header = binding.headers?.[member];
      if (header) return `header '${header}'`;
      if (members.includes(member)) return `path parameter '${member}'`;
      const body = binding.body;
      return body && "members" in body ? `request body field '${member}'` : "request body";
    },
  };
}

/** The `file` part and `mediaType` field of a multipart upload, within the multipart caps. */
async function readUpload(
  c: Context,
  config: ServerConfig,
): Promise<{ bytes: Uint8Array; mediaType?: string }> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw badRequest("Expected a multipart/form-data body with a 'file' part");
  }
  const file = form.get("file");
  if (!(file instanceof File)) throw badRequest("Missing required multipart part: 'file'");
  const cap = config.bodyLimits.multipartFileBytes;
  if (file.size > cap) {
    throw tooLarge(`File of ${file.size} bytes exceeds svc.multipart.max-file-size (${cap})`);
  }
  const field = form.get("mediaType");
  const mediaType = typeof field === "string" && field.trim() ? field.trim() : file.type || undefined;
  return { bytes: new Uint8Array(await file.arrayBuffer()), mediaType };
}

/**
 * Refuses a JSON body sent as anything but the route's media types (415): a
 * `text/plain` or form post is what a cross-site page can send without a
 * preflight, and a multipart type must not buy the multipart body cap. A body
 * is read as UTF-8 and as sent, so another charset or a `Content-Encoding`
 * (gzip) is refused too rather than read as malformed JSON.
 */
export function checkMediaType(c: Context, accepted: readonly string[]): void {
  const header = c.req.header("Content-Type") ?? "";
  const semicolon = header.indexOf(";");
  const given = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  if (!accepted.includes(given)) {
    throw unsupported(
      `Content-Type '${given || "(none)"}' is not accepted here; send ${accepted.join(" or ")}`,
    );
  }
  const charset = semicolon < 0 ? null : /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(header)?.[1].toLowerCase();
  if (charset && charset !== "utf-8" && charset !== "utf8") {
    throw unsupported(`charset '${quoted(charset, MAX_QUOTED_WORD)}' is not accepted here; send UTF-8`);
  }
  const encoding = c.req.header("Content-Encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    throw unsupported(
      `Content-Encoding '${
        quoted(encoding, MAX_QUOTED_WORD)
      }' is not accepted here; send the body uncompressed`,
    );
  }
}

function unsupported(message: string): ServiceError {
  return new ServiceError("unsupported_media_type", message);
}

/** The raw input of a request, member by member. */
async function requestInput(
  c: Context,
  op: Api,
  shape: RequestShape,
  config: ServerConfig,
): Promise<Record<string, unknown>> {
  const raw: Record<string, unknown> = {};
  for (const member of shape.pathMembers) raw[member] = c.req.param(member);
  for (const [member, name] of shape.query) {
    const value = c.req.query(name);
    if (value !== undefined && value !== "") raw[member] = fromQuery(op, member, name, value);
  }
  for (const [member, name] of shape.headers) {
    const value = c.req.header(name)?.trim();
    if (value) raw[member] = value;
  }
  const body = shape.binding.body;
  if (body && "multipart" in body) {
    checkMediaType(c, ["multipart/form-data"]);
    const { bytes, mediaType } = await readUpload(c, config);
    raw[body.multipart.fileMember] = bytes;
    raw[body.multipart.typeMember] = mediaType;
  } else if (body && "members" in body) {
    checkMediaType(c, ["application/json"]);
    const json = await readJson(c);
    if (json === null || typeof json !== "object" || Array.isArray(json)) {
      throw badRequest(`Request body must be a JSON object with ${body.members.join(", ")}`);
    }
    for (const member of body.members) {
      const value = (json as Record<string, unknown>)[member];
      if (value !== undefined) raw[member] = value;
    }
  } else if (body) {
    checkMediaType(c, body.mediaTypes ?? ["application/json"]);
    raw[body.member] = await readJson(c);
  }
  return raw;
}

function binaryResponse(blob: BlobContent): Response {
  return new Response(blob.bytes as Uint8Array<ArrayBuffer>, {
    status: 200,
    headers: { "content-type": blob.mediaType, "content-length": String(blob.bytes.byteLength) },
  });
}

/** One server-sent event. */
function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data ?? null)}\n\n`;
}

/**
 * Runs an operation as server-sent events: a `progress` frame per report,
 * then `done` with the result (or the binding's `doneOnFailure` body), or
 * `error {message, status}`. The response starts with the first frame, so a
 * failure before any progress (an argument check, 503) is an ordinary HTTP
 * error. The client going away (the runtime cancels the body) aborts the run.
 */
async function sseResponse(op: Api, binding: Binding, api: ModelApi, input: unknown): Promise<Response> {
  const abort = new AbortController();
  const gone = () => abort.abort(new DOMException("The client went away", "AbortError"));
  const encoder = new TextEncoder();
  const pending: string[] = [];
  let sink: ReadableStreamDefaultController<Uint8Array> | undefined;
  let closed = false;
  const emit = (text: string) => {
    if (closed) return;
    if (!sink) pending.push(text);
    else {
      try {
        sink.enqueue(encoder.encode(text));
      } catch {
        closed = true;
      }
    }
  };
  const firstFrame = Promise.withResolvers<void>();
  const run = op.run(api, input, {
    signal: abort.signal,
    progress: (event: ProgressEvent) => {
      emit(sseFrame("progress", event));
      firstFrame.resolve();
    },
  });
  const settled = run.then(() => true, () => false);
  await Promise.race([firstFrame.promise, settled]);
  if (pending.length === 0 && !(await settled)) await run; // throws: answered as an HTTP error
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      sink = controller;
      for (const text of pending.splice(0)) emit(text);
      run.then(
        (result) => emit(sseFrame("done", binding.present ? binding.present(result) : result)),
        (err) => {
          const done = err instanceof ServiceError ? binding.doneOnFailure?.(err) : undefined;
          if (done !== undefined) emit(sseFrame("done", done));
          else {
            const status = err instanceof ServiceError ? STATUS_OF_KIND[err.kind] ?? 500 : 500;
            emit(sseFrame("error", { message: (err as Error)?.message ?? String(err), status }));
          }
        },
      ).finally(() => {
        if (!closed) {
          closed = true;
          try {
            controller.close();
          } catch {
            // Already cancelled by the client.
          }
        }
      });
    },
    cancel() {
      closed = true;
      gone();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}

// ------------------------------------------------------------------ documents

function parameters(op: Api, binding: Binding): ParamDoc[] {
  const describe = (member: string) => String(toJsonSchema(memberSchema(op, member)).description ?? member);
  const schemaOf = (member: string) => {
    const { description: _, ...schema } = toJsonSchema(memberSchema(op, member));
    return schema;
  };
  return [
    ...pathMembers(binding.path).map((member): ParamDoc => ({
      name: member,
      in: "path",
      required: true,
      description: PATH_PARAM_DOCS[member] ?? describe(member),
      schema: { type: "string" },
    })),
    ...(Object.entries(binding.query ?? {}) as [string, string][]).map(([member, name]): ParamDoc => ({
      name,
      in: "query",
      description: describe(member),
      schema: schemaOf(member),
    })),
    ...(Object.entries(binding.headers ?? {}) as [string, string][]).map(([member, name]): ParamDoc => ({
      name,
      in: "header",
      description: describe(member),
      schema: schemaOf(member),
    })),
  ];
}

function successResponse(op: Api, binding: Binding): ResponseDoc {
  if (binding.status === 204) return { description: "done" };
  if (binding.response === "sse") {
    return {
      description: "server-sent events: `progress` frames ({type, …}), then `done` with the result " +
        "or `error` {message, status}",
      content: { "text/event-stream": { type: "string" } },
    };
  }
  if (binding.response === "binary") {
    return {
      description: "the bytes, with the stored media type as Content-Type",
      content: {
        "application/octet-stream": { type: "string", contentMediaType: "application/octet-stream" },
      },
    };
  }
  const shape = binding.presented ? binding.presented() : op.output;
  return {
    description: binding.summary ?? op.summary,
    content: jsonBody(shape ? documented(shape) : {}),
    ...(binding.location
      ? { headers: { Location: { description: "the created resource", schema: { type: "string" } } } }
      : {}),
  };
}

function errorResponse(doc: ErrorDoc): ResponseDoc {
  if (!doc.body) return problem(doc.description);
  const bodies = Array.isArray(doc.body) ? doc.body : [doc.body];
  const schemas = bodies.map((body) => documented(body()));
  return problem(doc.description, schemas.length === 1 ? schemas[0] : { oneOf: schemas });
}

function requestBody(op: Api, binding: Binding): Route["requestBody"] {
  const body = binding.body;
  if (!body) return undefined;
  if ("multipart" in body) {
    return { description: body.description, content: { "multipart/form-data": ref("BlobUpload") } };
  }
  if ("members" in body) {
    const schema: JsonSchema = {
      type: "object",
      properties: Object.fromEntries(
        body.members.map((m) => [m, documented(unwrapOptional(memberSchema(op, m)))]),
      ),
      required: body.members.filter((m) => !isOptionalMember(op, m)),
    };
    return { description: body.description, content: jsonBody(schema) };
  }
  const schema = documented(memberSchema(op, body.member));
  const types = body.mediaTypes ?? ["application/json"];
  return { description: body.description, content: Object.fromEntries(types.map((t) => [t, schema])) };
}

/** The first letter up: summaries are written lower-case for the console's help. */
const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function route(op: Api, binding: Binding): Route {
  const status = binding.status ?? 200;
  const shape = requestShape(binding);
  return {
    method: binding.method,
    path: binding.path,
    operationId: binding.operationId ?? op.name,
    summary: sentence(binding.summary ?? op.summary),
    tag: binding.tag,
    parameters: parameters(op, binding),
    requestBody: requestBody(op, binding),
    responses: {
      [status]: successResponse(op, binding),
      ...Object.fromEntries(Object.entries(binding.errors).map(([s, doc]) => [s, errorResponse(doc)])),
    },
    handle: async (c, { api, config }) => {
      const raw = await requestInput(c, op, shape, config);
      // The members once per route, not per request (the operation's zod schema is built on first use).
      const input = checkInput(op, raw, { args: shape.members ??= inputMembers(op), where: shape.where });
      if (binding.response === "sse") return await sseResponse(op, binding, api, input);
      // A client that goes away cancels the run (a blocking generation stops spending attempts). Asked for here,
      // for every run: handing the operation a getter that asks for it only when read cost the server about 30 µs
      // a write more, in alternating rounds of 64 clients (Deno.serve, which makes the signal on first use).
      const result = await op.run(api, input, { signal: c.req.raw.signal });
      if (status === 204) return c.body(null, 204);
      if (binding.response === "binary") return binaryResponse(result as BlobContent);
      const headers: Record<string, string> = binding.location ? { Location: binding.location(result) } : {};
      return c.json(binding.present ? binding.present(result) : result, status, headers);
    },
  };
}

/** The routes of every REST binding of `ops`. */
export function operationRoutes(ops: readonly AnyOperation[]): Route[] {
  return ops.flatMap((op) => op.kind === "api" ? op.rest.map((binding) => route(op, binding)) : []);
}
