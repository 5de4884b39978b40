/**
 * The pairing routes (a device-authorization flow in the style of RFC 8628;
 * README "Browser pairing"):
 *
 * | route                   | who             | answers                                                       |
 * | ----------------------- | --------------- | ------------------------------------------------------------- |
 * | `POST /pair`            | the agent, open | 200 the pairing and its links; 429 over the rate limit        |
 * | `POST /pair/token`      | the agent, open | 409 pending, 200 the agent's session, 410 expired/denied/used |
 * | `POST /pair/approve`    | the page        | 200 the browser's session; 404 wrong code, 410 finished       |
 * | `POST /pair/deny`       | the page        | 200 `{denied: true}`; 404 wrong code, 410 finished            |
 * | `GET /pair/session`     | a session       | 200 `{namespaceId, party}`; 401 without a live session        |
 * | `DELETE /pair/session`  | a session       | 204 ended (both parties' tokens); 401 without a live session  |
 * | `POST /pair/session`    | the agent's token | 200 a rejoin pairing; 409 a tab holds the session           |
 * | `GET /admin/pairings`   | the operator    | 200 the live sessions, oldest first                           |
 * | `DELETE /admin/pairings/{namespaceId}` | the operator | 204 ended; 404 none; 403 in open mode           |
 *
 * Approve and deny sit behind the API key like every route (in open mode they
 * are open): a key-less agent gets a namespace only because someone who may
 * use the server approved. The links point at this server's `/pair` page
 * (the playground) as the request addressed it; the user code travels in the
 * fragment, which browsers never send to a server. Every answer carrying a
 * secret is `Cache-Control: no-store`.
 *
 * @module
 */
import type { Context } from "hono";
import { badRequest, ServiceError, tooMany } from "../../engine/errors.ts";
// The pairing shapes' components must be registered before routes/schemas.ts reads them.
import "../../engine/operations/pairing.ts";
import { bearerToken } from "../middleware/auth/index.ts";
import { clientKey } from "../middleware/rate_limit/index.ts";
import { POLLS_PER_MINUTE, sessionOf, WRONG_CODES_PER_10_MINUTES } from "../pairing/host.ts";
import { type GoneReason, PairingCapacityError, type StartedPairing } from "../pairing/pairings.ts";
import { problemBody, problemResponse } from "../problem.ts";
import { checkMediaType } from "./operations.ts";
import { jsonResponse, problem, readJson, type Route, type RouteDeps, unauthorizedDoc } from "./route.ts";
import { ref } from "./schemas.ts";

/** The page that approves: the playground, served at `/pair` too. */
export const PAIR_PAGE = "/pair";

const NO_STORE = { "Cache-Control": "no-store" };

/** RFC 8628 5.2 error codes of the token poll, and what each means to a person. */
const GONE: Record<GoneReason, { error: string; detail: (tabIdleSec: number) => string }> = {
  expired: { error: "expired_token", detail: () => "The pairing expired before anyone approved it" },
  denied: { error: "access_denied", detail: () => "The person denied the pairing" },
  // A person opening a used link wants the session here: say when the agent can hand out a link for it.
  used: {
    error: "already_used",
    detail: (tabIdleSec) =>
      "The pairing was already completed in the tab that approved it: use that tab. If that tab is " +
      `closed, a new link from the agent opens the session here once it has been closed ${tabIdleSec} s`,
  },
};

/** 410 for a finished pairing; `tabIdleSec` is the rejoin threshold the used link's detail names. */
function gone(reason: GoneReason, tabIdleSec: number): Response {
  const error = GONE[reason].error;
  const detail = GONE[reason].detail(tabIdleSec);
  return problemResponse(410, detail, { ...problemBody(410, detail), error }, NO_STORE);
}

/** 200 with the session a person's approval granted (never cached: the token is a credential). */
function granted(c: Context, answer: { sessionToken: string; namespaceId: string }): Response {
  return c.json({ sessionToken: answer.sessionToken, namespaceId: answer.namespaceId }, 200, NO_STORE);
}

/** 200 with a new pairing and its links (never cached: the device secret is a credential). */
function startedAnswer(
  c: Context,
  start: () => StartedPairing | undefined,
  tabIdleSec: number,
): Response {
  let started;
  try {
    started = start();
  } catch (err) {
    if (err instanceof PairingCapacityError) throw tooMany(err.message);
    throw err;
  }
  if (!started) {
    const detail = `A tab holds the session: its browser token was used in the last ${tabIdleSec} s`;
    return problemResponse(409, detail, { ...problemBody(409, detail), error: "tab_present" });
  }
  const page = new URL(PAIR_PAGE, c.req.url).href;
  return c.json(
    {
      pairCode: started.pairCode,
      deviceSecret: started.deviceSecret,
      userCode: started.userCode,
      verificationUri: page,
      verificationUriComplete: `${page}#code=${started.userCode}`,
      expiresInSec: started.expiresInSec,
      intervalSec: started.intervalSec,
    },
    200,
    NO_STORE,
  );
}

/** Refuses when pairing is switched off (`svc.pairing.enabled=false`). */
function enabled(deps: RouteDeps): void {
  if (!deps.pairing.enabled) {
    throw new ServiceError(
      "not_found",
      "Browser pairing is switched off on this server (svc.pairing.enabled)",
    );
  }
}

/** A 429 with Retry-After. */
function limited(what: string, retryAfter: number): Response {
  return problemResponse(429, `Too many ${what} from this address; try again in ${retryAfter}s`, undefined, {
    "Retry-After": String(retryAfter),
  });
}

/** A JSON object body with string members `names` (400 otherwise). */
async function stringMembers<K extends string>(c: Context, names: readonly K[]): Promise<Record<K, string>> {
  checkMediaType(c, ["application/json"]);
  const body = await readJson(c);
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw badRequest(`Request body must be a JSON object with ${names.join(", ")}`);
  }
  const out = {} as Record<K, string>;
  for (const name of names) {
    const value = (body as Record<string, unknown>)[name];
    if (typeof value !== "string" || value === "" || value.length > 200) {
      throw badRequest(`Missing required field: '${name}' (a string)`);
    }
    out[name] = value;
  }
  return out;
}

/** The person's approve or deny. */
function decision(kind: "approve" | "deny"): Route {
  const approve = kind === "approve";
  return {
    method: "post",
    path: `/pair/${kind}`,
    operationId: approve ? "approvePairing" : "denyPairing",
    summary: approve
      ? "Approve the pairing showing this code: the browser's session token for the new namespace"
      : "Deny the pairing showing this code: the agent's next poll answers 410",
    tag: "pairing",
    requestBody: {
      description: "the code on the page",
      content: { "application/json": ref("PairingDecision") },
    },
    responses: {
      200: approve
        ? jsonResponse("approved", ref("PairingSession"))
        : jsonResponse("denied", { type: "object", properties: { denied: { const: true } } }),
      400: problem("malformed body"),
      403: problem("a session token cannot decide pairings"),
      404: problem("no pairing has this code"),
      410: problem("the pairing already finished (approved, denied or expired)"),
      429: problem(`more than ${WRONG_CODES_PER_10_MINUTES} wrong codes from this address in ten minutes`),
    },
    handle: async (c, deps) => {
      enabled(deps);
      const client = clientKey(c, deps.config.rateLimit.trustForwardedFor);
      const wrongCodes = deps.pairing.wrongCodes;
      // Counted before the body arrives: otherwise many requests sent at once would all pass the
      // check while their bodies are awaited, and one of their codes could be the right one.
      const wait = wrongCodes.take(client);
      if (wait) return limited("wrong pairing codes", wait);
      let wrong = false;
      try {
        const { userCode } = await stringMembers(c, ["userCode"] as const);
        const pairings = deps.pairing.pairings;
        let answer;
        try {
          answer = approve ? pairings.approve(userCode) : pairings.deny(userCode);
        } catch (err) {
          if (err instanceof PairingCapacityError) throw tooMany(err.message);
          throw err;
        }
        switch (answer.status) {
          case "approved":
            return granted(c, answer);
          case "denied":
            return c.json({ denied: true });
          case "gone":
            wrong = true;
            return gone(answer.reason, deps.pairing.pairings.tabIdleSec);
          case "unknown":
            wrong = true;
            throw new ServiceError(
              "not_found",
              "No pairing has this code: check it against the one the agent showed, or ask for a new link",
            );
        }
      } finally {
        // Only wrong or finished codes count (a decision or a malformed body is no guess).
        if (!wrong) wrongCodes.release(client);
      }
    },
  };
}

/** A live session as `GET /admin/pairings` lists it. */
const SESSION_SUMMARY = {
  type: "object",
  properties: {
    namespaceId: { type: "string" },
    parties: { type: "array", items: { enum: ["agent", "browser"] } },
    createdAt: { type: "string", format: "date-time" },
    lastUsedAt: { type: "string", format: "date-time" },
    models: { type: "integer", minimum: 0 },
  },
};

/** The operator's routes: see and end the pairing sessions (sessions' own tokens never reach `/admin`). */
const OPERATOR_ROUTES: readonly Route[] = [
  {
    method: "get",
    path: "/admin/pairings",
    operationId: "listPairingSessions",
    summary: "The live pairing sessions, oldest first: namespace, parties, approval, last use, model count",
    tag: "pairing",
    responses: { 200: jsonResponse("the sessions", { type: "array", items: SESSION_SUMMARY }) },
    handle: async (c, deps) => {
      const ids = await deps.api.listModels();
      return c.json(
        deps.pairing.pairings.list().map((session) => ({
          namespaceId: session.namespaceId,
          parties: session.parties,
          createdAt: new Date(session.createdAt).toISOString(),
          lastUsedAt: new Date(session.lastUsedAt).toISOString(),
          models: ids.filter((id) => id.startsWith(`${session.namespaceId}/`)).length,
        })),
      );
    },
  },
  {
    method: "delete",
    path: "/admin/pairings/{namespaceId}",
    operationId: "endPairingSessionAsOperator",
    summary: "Ends a pairing session: the agent's and the browser's tokens stop working",
    tag: "pairing",
    parameters: [{
      name: "namespaceId",
      in: "path",
      required: true,
      description: "the session's namespace (`pair-…`)",
      schema: { type: "string" },
    }],
    responses: {
      204: { description: "ended; the session's models stay on the server" },
      403: problem("open mode: ending others' sessions needs a configured API key"),
      404: problem("no live session has this namespace"),
    },
    handle: (c, deps) => {
      // In open mode anyone could end anyone's pairing.
      if (deps.config.apiKey === null) {
        throw new ServiceError(
          "forbidden",
          "Ending a pairing session needs a configured API key (svc.api.key)",
        );
      }
      const namespaceId = c.req.param("namespaceId") ?? "";
      if (!/^pair-[a-z0-9]{16}$/.test(namespaceId)) {
        throw new ServiceError("not_found", "No live pairing session has this namespace (they are pair-…)");
      }
      if (deps.pairing.pairings.end(namespaceId) === 0) {
        throw new ServiceError("not_found", `No live pairing session has namespace '${namespaceId}'`);
      }
      return c.body(null, 204);
    },
  },
];

/** The pairing routes. */
export const PAIRING_ROUTES: readonly Route[] = [
  {
    method: "post",
    path: "/pair",
    operationId: "startPairing",
    summary: "Start a browser pairing: a code for the person, a secret for the agent's token requests",
    tag: "pairing",
    open: true,
    responses: {
      200: jsonResponse("the pairing", ref("PairingStarted")),
      429: problem("too many new pairings from this address, or waiting on this server"),
    },
    handle: (c, deps) => {
      enabled(deps);
      const wait = deps.pairing.starts.take(clientKey(c, deps.config.rateLimit.trustForwardedFor));
      if (wait) return limited("new pairings", wait);
      return startedAnswer(c, () => deps.pairing.pairings.start(), deps.pairing.pairings.tabIdleSec);
    },
  },
  {
    method: "post",
    path: "/pair/token",
    operationId: "pairingToken",
    summary: "The agent's poll: 409 while pending, the session once approved, 410 when it ended",
    tag: "pairing",
    open: true,
    requestBody: { description: "the pairing", content: { "application/json": ref("PairingTokenRequest") } },
    responses: {
      200: jsonResponse("approved: the agent's session (handed out once)", ref("PairingSession")),
      400: problem("malformed body"),
      404: problem("no pairing has this pair code and secret"),
      409: problem("authorization_pending: nobody decided yet"),
      410: problem("expired_token, access_denied or already_used"),
      429: problem(`more than ${POLLS_PER_MINUTE} polls a minute from this address`),
    },
    handle: async (c, deps) => {
      enabled(deps);
      const wait = deps.pairing.polls.take(clientKey(c, deps.config.rateLimit.trustForwardedFor));
      if (wait) return limited("pairing polls", wait);
      const { pairCode, deviceSecret } = await stringMembers(c, ["pairCode", "deviceSecret"] as const);
      const answer = deps.pairing.pairings.token(pairCode, deviceSecret);
      switch (answer.status) {
        case "pending": {
          const detail = "Waiting for the person to approve the pairing";
          return problemResponse(409, detail, {
            ...problemBody(409, detail),
            error: "authorization_pending",
          });
        }
        case "approved":
          return granted(c, answer);
        case "gone":
          return gone(answer.reason, deps.pairing.pairings.tabIdleSec);
        case "unknown":
          throw new ServiceError("not_found", "No pairing has this pair code and device secret");
      }
    },
  },
  decision("approve"),
  decision("deny"),
  {
    method: "get",
    path: "/pair/session",
    operationId: "pairingSession",
    summary: "The session of the request's token: its namespace and who holds it",
    tag: "pairing",
    responses: {
      200: jsonResponse("the session", {
        type: "object",
        properties: { namespaceId: { type: "string" }, party: { enum: ["agent", "browser"] } },
      }),
      401: unauthorizedDoc("no live session token"),
    },
    handle: (c) => {
      const session = sessionOf(c);
      if (!session) {
        throw new ServiceError(
          "unauthorized",
          "No pairing session: send a session token as the bearer token",
        );
      }
      return c.json(session);
    },
  },
  {
    method: "delete",
    path: "/pair/session",
    operationId: "endPairingSession",
    summary: "Ends the pairing of the request's token: the agent's and the browser's tokens stop working",
    tag: "pairing",
    responses: {
      204: { description: "ended; the session's models stay on the server" },
      401: unauthorizedDoc("no live session token"),
    },
    handle: (c, deps) => {
      const session = sessionOf(c);
      if (!session) {
        throw new ServiceError(
          "unauthorized",
          "No pairing session: send a session token as the bearer token",
        );
      }
      deps.pairing.pairings.end(session.namespaceId);
      return c.body(null, 204);
    },
  },
  {
    method: "post",
    path: "/pair/session",
    operationId: "rejoinPairingSession",
    summary:
      "The agent's rejoin link: a tab approving it holds the session again, the old tab's token revoked",
    tag: "pairing",
    responses: {
      200: jsonResponse("the rejoin pairing (its poll answers the agent's own token)", ref("PairingStarted")),
      401: unauthorizedDoc("no live session token"),
      403: problem("the browser's token: only the agent hands out links"),
      409: problem(
        "tab_present: the browser's token was used within the last `tabIdleSec` (90 s by default)",
      ),
      429: problem("too many new pairings from this address, or waiting on this server"),
    },
    handle: (c, deps) => {
      enabled(deps);
      const session = sessionOf(c);
      if (!session) {
        throw new ServiceError(
          "unauthorized",
          "No pairing session: send a session token as the bearer token",
        );
      }
      if (session.party !== "agent") {
        throw new ServiceError("forbidden", "Only the agent's token rejoins a session");
      }
      const wait = deps.pairing.starts.take(clientKey(c, deps.config.rateLimit.trustForwardedFor));
      if (wait) return limited("new pairings", wait);
      const token = bearerToken(c.req.header("authorization"))!;
      return startedAnswer(
        c,
        () => deps.pairing.pairings.rejoin(session.namespaceId, token),
        deps.pairing.pairings.tabIdleSec,
      );
    },
  },
  ...OPERATOR_ROUTES,
];
