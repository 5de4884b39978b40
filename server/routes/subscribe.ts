/**
 * The WebSocket change feed handshake `/models/{id}/subscribe`. The API key
 * arrives as `?token=` and is checked by the auth middleware like every other
 * credential; this route adds the origin rule, the model check and the
 * `paths` filter, then hands the socket to the {@link SubscriptionHub}. A
 * pairing session's token subscribes to its namespace's model by its plain
 * id, and the frames name it so.
 *
 * @module
 */
import { badRequest, ServiceError } from "../../engine/errors.ts";
import { isLoopbackName } from "../middleware/host_check/index.ts";
import { normalizedOrigin } from "../../engine/origin.ts";
import { problemResponse } from "../problem.ts";
import { CREDENTIAL_ENDED_CLOSE } from "../../engine/operations/change_feed.ts";
import { parsePathFilter, SESSION_ENDED_REASON, SESSION_MOVED_REASON } from "../subscriptions.ts";
import { sessionOf } from "../pairing/host.ts";
import { ID_PARAM, modelId, problem, type Route } from "./route.ts";

/** The address the server listens on. */
export interface BoundAddress {
  hostname: string;
  port: number;
}

const WILDCARD_HOSTS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The origin rule of SPEC.md "Authentication" 4: no Origin header (not a
 * browser) passes; otherwise the Origin (normalised as the other doors do)
 * must be listed, or `*` be listed, or,
 * with no list, be the server's own origin: the bound address and port (any
 * loopback name with that port when bound to loopback or to every interface).
 * The request's own `Host` is never trusted: a rebinding page forges it.
 */
export function originAllowed(
  origin: string | undefined,
  bound: BoundAddress,
  allowed: string[] | null,
): boolean {
  if (origin === undefined) return true;
  if (allowed !== null) return allowed.includes("*") || allowed.includes(normalizedOrigin(origin));
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (port !== bound.port) return false;
  const hostname = url.hostname.toLowerCase();
  const boundName = bound.hostname.toLowerCase();
  if (hostname === boundName || `[${boundName}]` === hostname) return true;
  return (isLoopbackName(boundName) || WILDCARD_HOSTS.has(boundName)) && isLoopbackName(hostname);
}

/**
 * The answer to a feed handshake with a token no live pairing session has: a
 * socket closed as soon as it opens with {@link CREDENTIAL_ENDED_CLOSE}, as
 * the feeds open when the session ended were. A refused handshake reaches a
 * browser only as 1006, which the change-feed client retries for ever. Its
 * reason says the session `moved` when a rejoin replaced the token.
 * `undefined` for a request that is no valid upgrade (it gets the 401).
 */
export function endedSessionFeed(request: Request, moved = false): Response | undefined {
  let upgraded;
  try {
    upgraded = Deno.upgradeWebSocket(request);
  } catch {
    return undefined;
  }
  const { socket, response } = upgraded;
  socket.onopen = () =>
    socket.close(CREDENTIAL_ENDED_CLOSE, moved ? SESSION_MOVED_REASON : SESSION_ENDED_REASON);
  return response;
}

/** A handshake key's form: 16 bytes in base64 (22 characters and the padding). */
const WEBSOCKET_KEY = /^[A-Za-z0-9+/]{21}[AQgw]==$/;

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
      description:
        "comma-separated address prefixes (OR) filtering mutation frames (a wildcard is any member or " +
        "index; a meta key filters as its field); frames with flagged constraints or dispatched effects are " +
        "always delivered",
      schema: { type: "string" },
    },
  ],
  responses: {
    101: { description: "switching to the WebSocket protocol" },
    400: problem(
      "malformed paths filter, or a malformed handshake (no Sec-WebSocket-Key or one not the base64 of 16 bytes, no Connection: Upgrade)",
    ),
    403: problem("cross-origin handshake from an origin not in svc.websocket.allowed-origins"),
    404: problem("unknown model"),
    426: problem("not a WebSocket upgrade request, or a WebSocket version other than 13"),
  },
  handle: async (c, { api, session, config, subscriptions, boundAddress }) => {
    const bound = boundAddress() ?? { hostname: config.host, port: config.port };
    if (!originAllowed(c.req.header("Origin"), bound, config.websocketAllowedOrigins)) {
      throw new ServiceError("forbidden", `Origin '${c.req.header("Origin")}' may not subscribe`);
    }
    const id = modelId(c);
    await api.getInfo(id);
    let filter;
    try {
      filter = parsePathFilter(c.req.query("paths"));
    } catch (err) {
      throw badRequest(`Invalid query parameter 'paths': ${(err as Error).message}`);
    }
    if (c.req.header("Upgrade")?.toLowerCase() !== "websocket") {
      return problemResponse(426, "Expected a WebSocket upgrade request", undefined, {
        Upgrade: "websocket",
      });
    }
    // RFC 6455 4.4: an unsupported version is told the one spoken.
    if (c.req.header("Sec-WebSocket-Version") !== "13") {
      return problemResponse(426, "Expected WebSocket version 13", undefined, {
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
      });
    }
    // RFC 6455 4.2.1: the key is the base64 of 16 bytes; Deno accepts any non-empty value.
    const handshakeKey = c.req.header("Sec-WebSocket-Key");
    if (handshakeKey !== undefined && !WEBSOCKET_KEY.test(handshakeKey)) {
      throw badRequest("Malformed WebSocket handshake: Sec-WebSocket-Key must be the base64 of 16 bytes");
    }
    let upgraded;
    try {
      upgraded = Deno.upgradeWebSocket(c.req.raw);
    } catch (err) {
      // The client's headers, not the server, are at fault (a missing key or Connection: Upgrade).
      throw badRequest(`Malformed WebSocket handshake: ${(err as Error).message}`);
    }
    const { socket, response } = upgraded;
    const key = session ? session.stored(id) : id;
    subscriptions.add(
      key,
      socket,
      filter,
      session && { namespaceId: session.namespaceId, party: sessionOf(c)?.party, shownAs: id },
    );
    // A deletion since the lookup above was announced before this socket listened: look again now
    // that it does (a deletion from here on closes it through the hub).
    const gone = await api.getInfo(id).then(
      () => false,
      (err) => err instanceof ServiceError && err.kind === "not_found",
    );
    if (gone) subscriptions.deleted(key);
    return response;
  },
};
