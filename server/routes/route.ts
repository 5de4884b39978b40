/**
 * The route table's shape: each REST route is declared once with its method,
 * path, documentation (parameters, bodies, responses) and handler. The app
 * registers the handlers from it and `/v3/api-docs` is generated from it, so
 * the two cannot drift apart.
 *
 * @module
 */
import type { Context } from "hono";
import { badRequest } from "../../engine/errors.ts";
import type { ModelApi } from "../../engine/service/api.ts";
import type { ServerConfig } from "../config.ts";
import type { ServiceMetrics } from "../metrics.ts";
import type { PairingHost } from "../pairing/host.ts";
import type { NamespacedApi } from "../pairing/namespaced_api.ts";
import { type JsonSchema, ref } from "./schemas.ts";
import type { SubscriptionHub } from "../subscriptions.ts";

/** What handlers work with. */
export interface RouteDeps {
  /**
   * The service, through its API only; for a request admitted with a pairing
   * session's token, the session's namespace of it ({@link RouteDeps.session}).
   */
  api: ModelApi;
  /** The session's namespace, when the request came with a pairing session's token. */
  session?: NamespacedApi;
  /** Browser pairing: its state machine and rate limits. */
  pairing: PairingHost;
  config: ServerConfig;
  metrics: ServiceMetrics;
  subscriptions: SubscriptionHub;
  /** The OpenAPI document generated from the route table. */
  apiDocument(): Record<string, unknown>;
  /** The address the server listens on, once it does. */
  boundAddress(): { hostname: string; port: number } | undefined;
  /** Why the storage refuses requests now, or `null` (health reports it). */
  storageTrouble(): string | null;
}

/** A documented parameter. */
export interface ParamDoc {
  name: string;
  in: "path" | "query" | "header";
  description: string;
  required?: boolean;
  schema: JsonSchema;
}

/** A documented request body: schema per media type. */
export interface BodyDoc {
  description: string;
  content: Record<string, JsonSchema>;
}

/** A documented response. */
export interface ResponseDoc {
  description: string;
  /** Schema per media type; absent for empty bodies. */
  content?: Record<string, JsonSchema>;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
}

/** HTTP methods the table uses. */
export type Method = "get" | "post" | "delete";

/** One route. */
export interface Route {
  method: Method;
  /** OpenAPI path template (`/models/{id}/state/{path}`). */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** Served without the API key. */
  open?: boolean;
  /** The key may come as the `token` query parameter (WebSocket handshakes cannot set headers). */
  queryToken?: boolean;
  parameters?: ParamDoc[];
  requestBody?: BodyDoc;
  responses: Record<number, ResponseDoc>;
  handle(c: Context, deps: RouteDeps): Response | Promise<Response>;
}

/** The `{id}` path parameter. */
export const ID_PARAM: ParamDoc = {
  name: "id",
  in: "path",
  required: true,
  description: "model id; a namespaced id `ns/name` is one segment with the slash encoded (`ns%2Fname`)",
  schema: { type: "string" },
};

/** The `{path}` path parameter. */
export const PATH_PARAM: ParamDoc = {
  name: "path",
  in: "path",
  required: true,
  description: "canonical address as one encodeURIComponent segment (`%24.items%5B0%5D.qty`); " +
    "an unrooted `order.total` is canonicalised",
  schema: { type: "string" },
};

/** A JSON response body. */
export const jsonBody = (schema: JsonSchema): Record<string, JsonSchema> => ({ "application/json": schema });

/** A documented JSON response. */
export const jsonResponse = (description: string, schema: JsonSchema): ResponseDoc => ({
  description,
  content: jsonBody(schema),
});

/** A documented problem response, optionally with a structured body schema. */
export const problem = (description: string, schema: JsonSchema = ref("Problem")): ResponseDoc => ({
  description,
  content: { "application/problem+json": schema },
});

/** A documented 401: every one is `{"error": message}` as plain JSON (server/problem.ts). */
export const unauthorizedDoc = (description: string): ResponseDoc => ({
  description,
  content: { "application/json": ref("Unauthorized") },
});

/** The `id` path parameter, decoded. */
export function modelId(c: Context): string {
  return c.req.param("id") ?? "";
}

/**
 * Reads the request body as JSON; an empty or malformed body is a 400 with the
 * parser's message.
 */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") throw badRequest("Request body is required (JSON)");
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`Malformed JSON: ${(err as Error).message}`);
  }
}
