/// <reference lib="dom" />
/**
 * The person's side of browser pairing (README "Browser pairing"): read the
 * user code from the approve link's fragment and take it out of the address
 * bar and history, and approve or deny a pairing on the server that serves
 * the page. An approval answers the browser's session token: the page then
 * connects with it like with an API key, and sees the session's models only.
 * A server that does not answer within the timeout (60 s, as the CLI's remote
 * mode waits by default) is reported, rather than leaving the person waiting.
 *
 * @module
 */
import { fetchWithin, REQUEST_TIMEOUT_MS } from "../../engine/operations/fetch_within.ts";

/** A session the person approved. */
export interface PairedSession {
  sessionToken: string;
  namespaceId: string;
}

/** What the server said to a decision. */
export type DecisionOutcome =
  | { kind: "approved"; session: PairedSession }
  | { kind: "denied" }
  /**
   * Refused: what to tell the person; `needsKey` when the server wants its API key first; `over` when the
   * pairing is gone (used, denied, expired: 410), so there is nothing left to approve or deny.
   */
  | { kind: "refused"; message: string; needsKey?: boolean; over?: boolean };

/**
 * The approve page's code from the location (`/pair#code=WDJB-MJHT`), removed
 * from the address bar and the history entry (it is a credential for the next
 * minutes); `null` when the location is not the approve page. `""` is the
 * approve page without a code (the person types it).
 */
export function takePairingCode(location: Location, history: History): string | null {
  if (!location.pathname.endsWith("/pair")) return null;
  const code = new URLSearchParams(location.hash.slice(1)).get("code") ?? "";
  if (location.hash) history.replaceState(null, "", `${location.pathname}${location.search}`);
  return code.trim();
}

/** What a refusal means to a person, by status. */
function refusal(status: number, detail: string | undefined, retryAfter: string | null): DecisionOutcome {
  switch (status) {
    case 401:
      return {
        kind: "refused",
        message: "This server asks for its API key to approve pairings.",
        needsKey: true,
      };
    case 404:
      return {
        kind: "refused",
        message: "No pairing has this code. Check it against the code the agent shows, or ask the agent " +
          "for a new link.",
      };
    case 410:
      // Works for a used link too: with its paired tab closed, the agent's next link rejoins the session.
      return {
        kind: "refused",
        message: `${detail ?? "This pairing is over"}. Ask the agent for a new link.`,
        over: true,
      };
    case 429:
      return {
        kind: "refused",
        message: `Too many wrong codes from this browser. Try again in ${retryAfter ?? "a few"} seconds.`,
      };
    default:
      return { kind: "refused", message: detail ?? `The server answered ${status}.` };
  }
}

/**
 * Sends one request to the server at `baseUrl`, waiting at most `timeoutMs`
 * for its answer; what to tell the person when there is none.
 */
async function send(baseUrl: string, path: string, init: RequestInit, timeoutMs: number) {
  const base = baseUrl.replace(/\/+$/, "");
  try {
    return await fetchWithin((request) => fetch(request), new Request(base + path, init), base, timeoutMs);
  } catch (err) {
    return `${(err as Error).message}. Try again.`;
  }
}

/** Approves or denies the pairing showing `userCode` on the server at `baseUrl`. */
export async function decidePairing(
  baseUrl: string,
  decision: "approve" | "deny",
  userCode: string,
  apiKey?: string,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<DecisionOutcome> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const response = await send(baseUrl, `/pair/${decision}`, {
    method: "POST",
    headers,
    body: JSON.stringify({ userCode }),
  }, timeoutMs);
  if (typeof response === "string") return { kind: "refused", message: response };
  let body: Record<string, unknown> = {};
  try {
    body = await response.json();
  } catch {
    // Not JSON: the status says enough.
  }
  if (response.ok) {
    return decision === "deny" ? { kind: "denied" } : {
      kind: "approved",
      session: { sessionToken: String(body.sessionToken), namespaceId: String(body.namespaceId) },
    };
  }
  const detail = typeof body.detail === "string" ? body.detail : undefined;
  return refusal(response.status, detail, response.headers.get("retry-after"));
}

/**
 * Ends the pairing session of `sessionToken` on the server at `baseUrl`: its
 * tokens (the agent's too) stop working; the session's models stay. `null`
 * when it ended (or had already), else what went wrong.
 */
export async function endPairing(
  baseUrl: string,
  sessionToken: string,
  timeoutMs = REQUEST_TIMEOUT_MS,
): Promise<string | null> {
  const response = await send(baseUrl, "/pair/session", {
    method: "DELETE",
    headers: { authorization: `Bearer ${sessionToken}`, accept: "application/json" },
  }, timeoutMs);
  if (typeof response === "string") return response;
  await response.body?.cancel();
  // 401: the session was already gone (a restart ended it).
  return response.ok || response.status === 401 ? null : `The server answered ${response.status}.`;
}
