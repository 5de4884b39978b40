/**
 * The WebSocket change feed handshake `/models/{id}/subscribe`. The API key
 * arrives as `?token=` and is checked by the auth middleware like every other
 * credential; this route adds the origin rule, the model check and the
 * `paths` filter, then hands the socket to the {@link SubscriptionHub}.
 *
 * @module
 */
import { badRequest, ServiceError } from "../../engine/errors.ts";
import { problemResponse } from "../problem.ts";
import { parsePathFilter } from "../subscriptions.ts";
import { ID_PARAM, modelId, problem, type Route } from "./route.ts";

/**
 * The origin rule of SPEC.md "Authentication" 4: no Origin header (not a
 * browser) passes; otherwise the Origin must be listed, or `*` be listed, or,
 * with no list, match the request's own host.
 */
export function originAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: string[] | null,
): boolean {
  if (origin === undefined) return true;
  if (allowed === null) {
    try {
      return host !== undefined && new URL(origin).host.toLowerCase() === host.toLowerCase();
    } catch {
      return false;
    }
  }
  return allowed.includes("*") || allowed.includes(origin);
}

/** The subscription route. */
export const SUBSCRIBE_ROUTE: Route = {
  method: "get",
  path: "/models/{id}/subscribe",
  operationId: "subscribe",
  summary: "WebSocket change feed: `mutation` and `spec-evolved` frames",
  tag: "events",
  queryToken: true,
  parameters: [
    ID_PARAM,
    {
      name: "token",
      in: "query",
      description: "the API key when svc.api.key is set (compared constant-time)",
      schema: { type: "string" },
    },
    {
      name: "paths",
      in: "query",
      description: "comma-separated address prefixes (OR) filtering mutation frames; frames with flagged " +
        "constraints or dispatched effects are always delivered",
      schema: { type: "string" },
    },
  ],
  responses: {
    101: { description: "switching to the WebSocket protocol" },
    400: problem("malformed paths filter"),
    403: problem("cross-origin handshake from an origin not in svc.websocket.allowed-origins"),
    404: problem("unknown model"),
    426: problem("not a WebSocket upgrade request"),
  },
  handle: async (c, { api, config, subscriptions }) => {
    if (!originAllowed(c.req.header("Origin"), c.req.header("Host"), config.websocketAllowedOrigins)) {
      throw new ServiceError("forbidden", `Origin '${c.req.header("Origin")}' may not subscribe`);
    }
    const id = modelId(c);
    await api.getInfo(id);
    let filter;
    try {
      filter = parsePathFilter(c.req.query("paths"));
    } catch (err) {
      throw badRequest(`Query parameter 'paths': ${(err as Error).message}`);
    }
    if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
      return problemResponse(426, "Expected a WebSocket upgrade request", undefined, {
        Upgrade: "websocket",
      });
    }
    const { socket, response } = Deno.upgradeWebSocket(c.req.raw);
    subscriptions.add(id, socket, filter);
    return response;
  },
};
