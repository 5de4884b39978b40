/**
 * {@link ModelApi} over a server's REST API: remote mode of the console and of
 * MCP over stdio. Each method is one request to the route of the same
 * operation (server/routes/); a non-2xx answer is thrown as the
 * {@link ServiceError} the server reported (see `problem_error.ts`).
 *
 * The API key travels only in the `Authorization` header; it is held in a
 * closure (not a property, so inspecting or serialising the client cannot
 * show it) and no message ever contains it.
 *
 * @module
 */
import type { AuditRecord, AuditVerification } from "../../engine/audit/chain.ts";
import { badRequest, ServiceError } from "../../engine/errors.ts";
import type { GraphView } from "../../engine/graph/projection.ts";
import type { Json, JsonObject } from "../../engine/json/value.ts";
import type { MutationResult, PatchOperation } from "../../engine/runtime/results.ts";
import type { Snapshot } from "../../engine/runtime/runtime.ts";
import type { VerificationReport } from "../../engine/runtime/testing.ts";
import type { TraceRecord } from "../../engine/runtime/traces.ts";
import type { AuditParams, BlobContent, BlobRef, ModelApi, ModelInfo } from "../../engine/service/api.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import type { EvaluatedView } from "../../engine/view/evaluate.ts";
import { errorFromResponse } from "./problem_error.ts";

/** Options of {@link RestClient}. */
export interface RestClientOptions {
  /** The server's base URL (`http://host:8080`, or with a path prefix). */
  baseUrl: string;
  /** The server's API key, sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** The fetch to use (tests pass a stub). */
  fetch?: typeof fetch;
}

/** One request. */
interface RequestSpec {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  /** A JSON value (sent as JSON) or a form (multipart). */
  body?: unknown;
  contentType?: string;
}

type Send = (request: RequestSpec) => Promise<Response>;

/** A path segment: model ids, addresses and blob ids are each one encoded segment. */
const seg = (value: string): string => encodeURIComponent(value);
const model = (id: string): string => `/models/${seg(id)}`;

/** Checks and normalises a base URL (no trailing slash); a 400 error when it is not http(s). */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw badRequest(`Invalid server URL '${baseUrl}': expected http://host:port`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw badRequest(`Invalid server URL '${baseUrl}': only http and https are supported`);
  }
  url.search = "";
  url.hash = "";
  return url.href.replace(/\/+$/, "");
}

function sender(options: RestClientOptions): Send {
  const base = normaliseBaseUrl(options.baseUrl);
  const doFetch = options.fetch ?? fetch;
  const authorization = options.apiKey ? `Bearer ${options.apiKey}` : undefined;
  return async ({ method, path, query, body, contentType }) => {
    const url = new URL(base + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { accept: "application/json" };
    if (authorization) headers.authorization = authorization;
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers["content-type"] = contentType ?? "application/json";
    }
    let response: Response;
    try {
      response = await doFetch(url, { method, headers, body: payload });
    } catch (err) {
      throw new ServiceError("internal", `Cannot reach the server at ${base}: ${(err as Error).message}`);
    }
    if (response.ok) return response;
    throw await errorFromResponse(response.status, response.statusText, await response.text());
  };
}

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    // Not our server (a proxy's page, a wrong --url): say so rather than fail with a parser error.
    throw new ServiceError(
      "internal",
      `Unexpected answer from the server (HTTP ${response.status}): not JSON`,
    );
  }
}

async function none(response: Response): Promise<void> {
  await response.body?.cancel();
}

async function blob(response: Response): Promise<BlobContent> {
  return {
    bytes: new Uint8Array(await response.arrayBuffer()),
    mediaType: response.headers.get("content-type") ?? "application/octet-stream",
  };
}

/** The REST client. */
export class RestClient implements ModelApi {
  readonly #send: Send;

  /** Throws a 400 {@link ServiceError} when the base URL is not an http(s) URL. */
  constructor(options: RestClientOptions) {
    this.#send = sender(options);
  }

  /** GET and read JSON. */
  #get<T>(path: string, query?: RequestSpec["query"]): Promise<T> {
    return this.#send({ method: "GET", path, query }).then(json<T>);
  }

  /** POST a JSON body and read JSON. */
  #post<T>(path: string, body?: unknown, contentType?: string): Promise<T> {
    return this.#send({ method: "POST", path, body, contentType }).then(json<T>);
  }

  listModels(): Promise<string[]> {
    return this.#get("/models");
  }

  async createModel(spec: unknown): Promise<ModelInfo> {
    // REST answers {id, status}; model info (what the API promises) is one more read.
    const created = await this.#post<{ id: string }>("/models", spec);
    return await this.getInfo(created.id);
  }

  getInfo(id: string): Promise<ModelInfo> {
    return this.#get(model(id));
  }

  getSpec(id: string): Promise<ModelSpec> {
    return this.#get(`${model(id)}/spec`);
  }

  deleteModel(id: string): Promise<void> {
    return this.#send({ method: "DELETE", path: model(id) }).then(none);
  }

  getState(id: string, at?: string): Promise<Json> {
    return this.#get(`${model(id)}/state`, { at });
  }

  getField(id: string, path: string): Promise<Json> {
    return this.#get(`${model(id)}/state/${seg(path)}`);
  }

  mutate(id: string, mutations: Record<string, Json>): Promise<MutationResult> {
    return this.#post(`${model(id)}/mutations`, mutations);
  }

  patch(id: string, ops: PatchOperation[]): Promise<MutationResult> {
    return this.#post(`${model(id)}/mutations/patch`, ops, "application/json-patch+json");
  }

  getHistory(id: string): Promise<string[]> {
    return this.#get(`${model(id)}/history`);
  }

  getSchema(id: string, path: string): Promise<JsonObject> {
    return this.#get(`${model(id)}/schema/${seg(path)}`);
  }

  explain(id: string, path: string, limit?: number): Promise<TraceRecord[]> {
    return this.#get(`${model(id)}/explain/${seg(path)}`, { limit });
  }

  snapshot(id: string): Promise<Snapshot> {
    return this.#post(`${model(id)}/snapshot`);
  }

  restore(id: string, snapshot: unknown): Promise<void> {
    return this.#send({ method: "POST", path: `${model(id)}/restore`, body: snapshot }).then(none);
  }

  evolveSpec(id: string, evolution: unknown): Promise<{ id: string; version: string }> {
    return this.#post(`${model(id)}/spec/evolve`, evolution);
  }

  getGraph(id: string): Promise<GraphView> {
    return this.#get(`${model(id)}/graph`);
  }

  getVerification(id: string): Promise<VerificationReport> {
    return this.#get(`${model(id)}/verification`);
  }

  getAudit(id: string, params: AuditParams = {}): Promise<AuditRecord[]> {
    const { pathPrefix, from, to, limit } = params;
    return this.#get(`${model(id)}/audit`, { path: pathPrefix, from, to, limit });
  }

  verifyAudit(id: string): Promise<AuditVerification> {
    return this.#get(`${model(id)}/audit/verify`);
  }

  uploadBlob(bytes: Uint8Array, mediaType?: string): Promise<BlobRef> {
    const form = new FormData();
    const type = mediaType ?? "application/octet-stream";
    form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type }), "upload.bin");
    if (mediaType) form.append("mediaType", mediaType);
    return this.#send({ method: "POST", path: "/blobs", body: form }).then(json<BlobRef>);
  }

  getBlob(blobId: string): Promise<BlobContent> {
    return this.#send({ method: "GET", path: `/blobs/${seg(blobId)}` }).then(blob);
  }

  getModelBlob(id: string, blobId: string): Promise<BlobContent> {
    return this.#send({ method: "GET", path: `${model(id)}/blobs/${seg(blobId)}` }).then(blob);
  }

  getView(id: string, viewId?: string): Promise<EvaluatedView> {
    return this.#get(viewId === undefined ? `${model(id)}/view` : `${model(id)}/view/${seg(viewId)}`);
  }
}
