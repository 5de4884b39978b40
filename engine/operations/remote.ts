/**
 * The remote client, derived from the REST bindings of the operations: an
 * API operation becomes one request to its route (path members as encoded
 * segments, query members, headers, a JSON or multipart body); a local
 * operation runs here, its inner invocations going to the server. A non-2xx
 * answer is thrown as the {@link ServiceError} the server reported
 * (`remote_error.ts`), so a remote caller sees what an embedded one sees.
 *
 * HTTP comes in as a `fetch` port (the engine does no I/O of its own). The
 * API key travels only in the `Authorization` header; it is held in a closure
 * and never part of a message. A credential that changes (a browser pairing's
 * session token) is read before each request, and may refuse the request
 * (not paired yet) by throwing.
 *
 * A server that does not answer a request (its whole answer) within
 * `timeoutMs` fails it with a 503, so a console or MCP client never waits for
 * ever. Generation is exempt (the operations with an event-stream route: an
 * answer takes minutes and the server bounds its own LLM calls); its caller
 * cancels through the run's signal.
 *
 * @module
 */
import { badRequest, ServiceError } from "../errors.ts";
import type { AuthoringEngine } from "../service/authoring.ts";
import type { ProgressEvent, RunOptions } from "../service/generation.ts";
import type { Invoker } from "./invoker.ts";
import type { AnyOperation, ApiOperation, RestBinding } from "./operation.ts";
import type { BrowserPairing } from "./pairing.ts";
import { brokenOff, fetchWithin, REQUEST_TIMEOUT_MS } from "./fetch_within.ts";
import { errorFromResponse } from "./remote_error.ts";
import { checkPathMembers, pathMembers } from "./path_members.ts";
import { readEvents } from "./sse.ts";

/** Options of {@link remoteInvoker}. */
export interface RemoteOptions {
  /** The server's base URL (`http://host:8080`, or with a path prefix). */
  baseUrl: string;
  /**
   * The server's API key, sent as `Authorization: Bearer <key>`; a function is
   * asked before every request (it may throw to refuse the request).
   */
  apiKey?: string | (() => string | undefined);
  /** The HTTP port (`fetch`, or a stub in tests). */
  fetch(request: Request): Promise<Response>;
  /** The authoring tools of local operations, created on first use. */
  authoring(): Promise<AuthoringEngine>;
  /** The browser pairing local operations reach (remote-with-browser mode). */
  pairing?: BrowserPairing;
  /** How long a request waits for the server to answer (default {@link REQUEST_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/**
 * Checks and normalises a base URL (no trailing slash); a 400 error when it is
 * not http(s) or carries a user name or password: those would go out as a
 * Basic header beside the Bearer key and show in every message naming the
 * server, so they are refused, and never repeated.
 */
export function normaliseBaseUrl(baseUrl: string): string {
  const shown = baseUrl.replace(/\/\/[^/]*@/, "//…@");
  const expected = badRequest(`Invalid server URL '${shown}': expected http://host:port`);
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw expected;
  }
  if (url.username || url.password) {
    throw badRequest(
      `Invalid server URL '${shown}': a user name or password in the URL is not used; give the key with ` +
        "--api-key or SVC_API_KEY",
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    // `localhost:8080` parses, as the scheme `localhost:`: it is a host and port without one.
    if (!baseUrl.includes("//")) throw expected;
    throw badRequest(`Invalid server URL '${shown}': only http and https are supported`);
  }
  url.search = "";
  url.hash = "";
  return url.href.replace(/\/+$/, "");
}

type Values = Record<string, unknown>;

/**
 * The route whose path members are all given, preferring the most specific;
 * an event-stream route only when `stream` (the caller follows progress).
 */
export function bindingFor<I, O>(op: ApiOperation<I, O>, input: I, stream = false): RestBinding<I, O> {
  const values = input as Values;
  const usable = op.rest.filter((b) => pathMembers(b.path).every((m) => values[m] !== undefined));
  const streaming = usable.filter((b) => b.response === "sse");
  const plain = usable.filter((b) => b.response !== "sse");
  const candidates = stream && streaming.length ? streaming : plain.length ? plain : usable;
  candidates.sort((a, b) => pathMembers(b.path).length - pathMembers(a.path).length);
  const binding = candidates[0];
  if (!binding) throw badRequest(`${op.name}: missing ${pathMembers(op.rest[0].path).join(", ")}`);
  return binding;
}

/** The request of an operation's route for `input`. */
function requestFor(base: string, binding: RestBinding<unknown, unknown>, input: Values): Request {
  const path = binding.path.replace(/\{([^}]+)\}/g, (_, m: string) => encodeURIComponent(String(input[m])));
  const url = new URL(base + path);
  for (const [member, param] of Object.entries(binding.query ?? {})) {
    if (input[member] !== undefined) url.searchParams.set(param as string, String(input[member]));
  }
  const headers = new Headers({ accept: "application/json" });
  for (const [member, header] of Object.entries(binding.headers ?? {})) {
    if (input[member] !== undefined) headers.set(header as string, String(input[member]));
  }
  let body: BodyInit | undefined;
  const spec = binding.body;
  if (spec && "multipart" in spec) {
    const form = new FormData();
    const mediaType = input[spec.multipart.typeMember] as string | undefined;
    const bytes = input[spec.multipart.fileMember] as Uint8Array<ArrayBuffer>;
    form.append("file", new Blob([bytes], { type: mediaType ?? "application/octet-stream" }), "upload.bin");
    if (mediaType) form.append("mediaType", mediaType);
    body = form;
  } else if (spec && "members" in spec) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(Object.fromEntries(spec.members.map((m) => [m, input[m]])));
  } else if (spec) {
    headers.set("content-type", spec.mediaTypes?.[0] ?? "application/json");
    body = JSON.stringify(input[spec.member]);
  }
  // Redirects are not followed (see redirected).
  return new Request(url, { method: binding.method.toUpperCase(), headers, body, redirect: "manual" });
}

/**
 * The error of a redirect (an http address of a server that moved to https, a proxy's): followed, a 301 or
 * 302 would turn a write into a read, and another origin would not get the key, so it is named instead.
 */
function redirected(base: string, request: Request, response: Response): ServiceError {
  const location = response.headers.get("location");
  const to = location === null ? "another address" : new URL(location, request.url).href;
  return new ServiceError(
    "internal",
    `The server at ${base} redirects ${request.method} to ${to} ` +
      `(HTTP ${response.status || "3xx"}); not followed: use that address`,
  );
}

/** A success answer this client cannot use: not our server (a proxy's page, a wrong --url), or a broken one. */
function unexpected(status: number, what: string): ServiceError {
  return new ServiceError("internal", `Unexpected answer from the server (HTTP ${status}): ${what}`);
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    // Say so rather than fail with a parser error.
    throw unexpected(response.status, "not JSON");
  }
}

/** An invoker that runs API operations on the server at `baseUrl`. */
export function remoteInvoker(options: RemoteOptions): Invoker {
  const base = normaliseBaseUrl(options.baseUrl);
  const credential = options.apiKey;
  const apiKey = typeof credential === "function" ? credential : () => credential;
  let authoring: Promise<AuthoringEngine> | undefined;
  const tools = () => authoring ??= options.authoring();

  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;

  /** Sends `request`, waiting at most `timeout` ms (none when undefined) for the whole answer. */
  const send = async (request: Request, signal?: AbortSignal, timeout?: number): Promise<Response> => {
    const key = apiKey();
    // A key no header can carry (a line break, a control or non-Latin-1 character) would be quoted back by
    // the header's own error: say what is wrong without it.
    if (key && !/^[\t\x20-\x7e\x80-\xff]*$/.test(key)) {
      throw new ServiceError(
        "unauthorized",
        "The API key cannot be sent: it holds a line break, a control character or a character outside Latin-1",
      );
    }
    if (key) request.headers.set("authorization", `Bearer ${key}`);
    const response = await fetchWithin(options.fetch, request, base, timeout, signal);
    if (response.ok) return response;
    // A browser shows a redirect only as such (status 0, no location).
    if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
      throw redirected(base, request, response);
    }
    throw errorFromResponse(response.status, response.statusText, await response.text());
  };

  const call = async (
    op: ApiOperation<unknown, unknown>,
    input: Values,
    options?: RunOptions,
  ): Promise<unknown> => {
    checkPathMembers(op, input);
    const binding = bindingFor(op, input, options?.progress !== undefined);
    const request = requestFor(base, binding, input);
    const generation = op.rest.some((b) => b.response === "sse");
    const response = await send(request, options?.signal, generation ? undefined : timeoutMs);
    // A generation's answer is read here, unbounded: one cut halfway (the server went away) is no answer.
    const read = async <T>(body: Promise<T>): Promise<T> => {
      try {
        return await body;
      } catch (err) {
        throw err instanceof ServiceError || options?.signal?.aborted ? err : brokenOff(base, err);
      }
    };
    if (binding.response === "sse") return await read(streamed(response, options?.progress));
    if (response.status === 204) {
      await response.body?.cancel();
      if (binding.status === 204) return undefined;
      throw unexpected(204, "no body, where the route answers with one");
    }
    if (binding.response === "binary") {
      return {
        bytes: new Uint8Array(await read(response.arrayBuffer())),
        mediaType: response.headers.get("content-type") ?? "application/octet-stream",
      };
    }
    const body = await read(readJson(response));
    if (!binding.decode) return body;
    // Every route that rebuilds its result does so from an object.
    if (body === null || typeof body !== "object") {
      throw unexpected(response.status, "not the expected JSON object");
    }
    return await binding.decode(body, input, invoker.invoke);
  };

  const invoker: Invoker = {
    invoke:
      ((op: AnyOperation, input: unknown, runOptions?: RunOptions) =>
        op.kind === "api" ? call(op, input as Values, runOptions) : op.run(
          { invoke: invoker.invoke, authoring: tools, pairing: options.pairing },
          input,
          runOptions,
        )) as Invoker["invoke"],
  };
  return invoker;
}

/**
 * Reads an event-stream answer: `progress` frames to `progress`, then the
 * result of `done`, or the error of an `error` frame. A `done` body with
 * `valid: false` is the failure the blocking route answers with 422.
 */
async function streamed(response: Response, progress?: (event: ProgressEvent) => void): Promise<unknown> {
  if (!response.body) throw new ServiceError("internal", "The server's event stream ended before it began");
  for await (const { event, data } of readEvents(response.body)) {
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      continue;
    }
    if (event === "progress") progress?.(value as ProgressEvent);
    else if (event === "done") {
      const body = value as Record<string, unknown> | null;
      if (body && body.valid === false) {
        throw errorFromResponse(422, "Unprocessable Content", JSON.stringify(body));
      }
      return value;
    } else if (event === "error") {
      const { message, status } = (value ?? {}) as { message?: string; status?: number };
      throw errorFromResponse(status ?? 500, "", JSON.stringify({ detail: message ?? "failed" }));
    }
  }
  throw new ServiceError("internal", "The server's event stream ended without a result");
}
