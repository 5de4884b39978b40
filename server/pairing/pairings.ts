/**
 * The browser pairing state machine (a device-authorization flow in the style
 * of RFC 8628) and the sessions it grants. In memory: pairings last minutes,
 * and a session ends with the process that granted it.
 *
 * ```
 *   start ──> pending ──approve──> approved ──token──> used
 *                │  └────deny───> denied
 *                └──(expiresAt)──> expired
 * ```
 *
 * - `start` makes a pairing: a public `pairCode`, a 128-bit `deviceSecret`
 *   only the agent holds, and a `userCode` the person checks.
 * - `token(pairCode, deviceSecret)` is the agent's poll: pending, then the
 *   agent's session token exactly once; afterwards, and after a denial or
 *   expiry, the pairing is gone. A wrong secret is answered as an unknown
 *   pairing (the secret is compared in constant time).
 * - `approve(userCode)` / `deny(userCode)` are the person's decision; approve
 *   creates the session's namespace and two tokens for it, the browser's
 *   (answered to the page) and the agent's (collected by the next poll).
 *
 * - `rejoin(namespaceId, agentToken)` starts a pairing for a live session no
 *   tab holds (its browser token unused for `tabIdleSec`: the tab closed).
 *   Approving it revokes the old browser token and answers a new one for the
 *   same namespace; the poll answers the agent's own token again.
 *
 * Finished pairings are remembered for another `expiresInSec`, at least a
 * minute (a late poll, or a person opening an old link, learns why it is
 * gone), then forgotten. The clock is injected, so expiry is tested without
 * waiting.
 *
 * @module
 */
import { constantTimeEqual } from "../middleware/auth/index.ts";
import { newNamespaceId, newUserCode, normaliseUserCode, randomSecret } from "./codes.ts";

/**
 * How many replaced browser tokens a session remembers, so that each such tab says the session moved (rather
 * than ended) when it wakes. Each rejoin replaces one (a tab idle 90 s), so a long session would otherwise
 * gain one per rejoin until it ends; a tab older than the last eight rejoins is told the session ended.
 */
export const MOVED_PER_SESSION = 8;

/** Options of {@link Pairings}. */
export interface PairingOptions {
  /** Seconds a pairing waits for a person (`svc.pairing.expires-in-seconds`, default 600). */
  expiresInSec?: number;
  /** Seconds the agent is asked to wait between polls (default 3). */
  intervalSec?: number;
  /** Pairings waiting at once; more are refused until some finish (default 1000). */
  maxPending?: number;
  /** Sessions at once; more approvals are refused (default 10000). */
  maxSessions?: number;
  /**
   * Seconds the browser's token may go unused before no tab counts as holding
   * the session (default 90: a paired tab polls every 2 s, a hidden one at
   * least once a minute); then the agent may hand out a rejoin link.
   */
  tabIdleSec?: number;
  /** Milliseconds clock (tests pass their own). */
  now?: () => number;
}

/** What a session token grants. */
export interface SessionGrant {
  /** The namespace whose models the token reaches (and no others). */
  namespaceId: string;
  /** Who holds the token. */
  party: "agent" | "browser";
}

/** A new pairing, as `POST /pair` answers it (without the links, which are the route's). */
export interface StartedPairing {
  pairCode: string;
  deviceSecret: string;
  userCode: string;
  expiresInSec: number;
  intervalSec: number;
}

/** Why a pairing is gone. */
export type GoneReason = "expired" | "denied" | "used";

/** A granted session, as the token poll and approve answer it. */
export interface GrantedSession {
  sessionToken: string;
  namespaceId: string;
}

/** The answer to a poll. */
export type TokenAnswer =
  | { status: "pending" }
  | ({ status: "approved" } & GrantedSession)
  | { status: "gone"; reason: GoneReason }
  | { status: "unknown" };

/** The answer to the person's decision. */
export type DecisionAnswer =
  | ({ status: "approved" } & GrantedSession)
  | { status: "denied" }
  | { status: "gone"; reason: GoneReason }
  | { status: "unknown" };

/** A bearer token that claims to be a session's: `svcs_<id>.<secret>`. */
export const SESSION_TOKEN_PREFIX = "svcs_";

interface Pairing {
  pairCode: string;
  deviceSecret: string;
  userCode: string;
  expiresAt: number;
  state: "pending" | "approved" | "denied" | "used" | "expired";
  /** The agent's session, from approval until it is collected. */
  agent?: GrantedSession & { sessionId: string };
  /** A rejoin: the live session's namespace, and the agent's own token its poll answers. */
  rejoin?: GrantedSession;
}

interface Session {
  secret: string;
  grant: SessionGrant;
  /** Milliseconds on the pairings' clock. */
  createdAt: number;
  /** When a request last presented the token (milliseconds). */
  lastUsedAt: number;
}

/** A namespace's live session, as an operator sees it (no secrets). */
export interface SessionSummary {
  namespaceId: string;
  /** Who holds a live token: the agent (once approved, before collecting it too) and the browser. */
  parties: SessionGrant["party"][];
  /** Milliseconds: the approval. */
  createdAt: number;
  /** Milliseconds: the last request with either token, `createdAt` when none came yet. */
  lastUsedAt: number;
}

/** Why a pairing could not start or be approved: too many at once. */
export class PairingCapacityError extends Error {}

/** The pairings and sessions of one server. */
export class Pairings {
  readonly expiresInSec: number;
  readonly intervalSec: number;
  readonly #maxPending: number;
  readonly #maxSessions: number;
  /** Seconds the browser's token may go unused before the agent may hand out a rejoin link. */
  readonly tabIdleSec: number;
  readonly #now: () => number;
  readonly #byPairCode = new Map<string, Pairing>();
  /** Every remembered pairing by its user code (so a person learns why a finished one is gone). */
  readonly #byUserCode = new Map<string, Pairing>();
  readonly #sessions = new Map<string, Session>();
  /**
   * Browser session ids a rejoin revoked, with their namespace id and secret, oldest first: their tab learns
   * the session moved (only the whole token: an id alone is no proof of having held it). At most
   * {@link MOVED_PER_SESSION} a session (see there).
   */
  readonly #moved = new Map<string, { namespaceId: string; secret: string }>();
  readonly #endListeners = new Set<(namespaceId: string) => void>();
  readonly #revokeListeners = new Set<(namespaceId: string, party: SessionGrant["party"]) => void>();

  constructor(options: PairingOptions = {}) {
    this.expiresInSec = options.expiresInSec ?? 600;
    this.intervalSec = options.intervalSec ?? 3;
    this.#maxPending = options.maxPending ?? 1000;
    this.#maxSessions = options.maxSessions ?? 10_000;
    this.tabIdleSec = options.tabIdleSec ?? 90;
    this.#now = options.now ?? (() => Date.now());
  }

  /** Pairings waiting for a person. */
  get pendingCount(): number {
    this.#sweep();
    let count = 0;
    for (const pairing of this.#byPairCode.values()) if (pairing.state === "pending") count++;
    return count;
  }

  /** Starts a pairing for a new session; {@link PairingCapacityError} when too many are waiting. */
  start(): StartedPairing {
    return this.#start();
  }

  /**
   * Starts a pairing; with `rejoin` (the live session's namespace and the
   * agent's token) approving it gives that session a new browser token
   * instead of a new session, and the poll answers the agent's own token.
   */
  #start(rejoin?: GrantedSession): StartedPairing {
    if (this.pendingCount >= this.#maxPending) {
      throw new PairingCapacityError(`${this.#maxPending} pairings are already waiting for approval`);
    }
    let userCode = newUserCode();
    while (this.#byUserCode.has(userCode)) userCode = newUserCode();
    const pairing: Pairing = {
      pairCode: randomSecret(),
      deviceSecret: randomSecret(),
      userCode,
      expiresAt: this.#now() + this.expiresInSec * 1000,
      state: "pending",
      rejoin,
    };
    this.#byPairCode.set(pairing.pairCode, pairing);
    this.#byUserCode.set(userCode, pairing);
    const { pairCode, deviceSecret } = pairing;
    return {
      pairCode,
      deviceSecret,
      userCode,
      expiresInSec: this.expiresInSec,
      intervalSec: this.intervalSec,
    };
  }

  /** The agent's poll. */
  token(pairCode: string, deviceSecret: string): TokenAnswer {
    this.#sweep();
    const pairing = this.#byPairCode.get(pairCode);
    if (!pairing || !constantTimeEqual(deviceSecret, pairing.deviceSecret)) return { status: "unknown" };
    switch (pairing.state) {
      case "pending":
        return { status: "pending" };
      case "approved": {
        pairing.state = "used";
        const { sessionToken, namespaceId } = pairing.rejoin ?? pairing.agent!;
        pairing.agent = undefined;
        return { status: "approved", sessionToken, namespaceId };
      }
      default:
        return { status: "gone", reason: pairing.state };
    }
  }

  /**
   * Whether a tab holds the session of `namespaceId`: its browser token was
   * used within `tabIdleSec` (a paired tab polls its model list every 2 s).
   */
  tabHeld(namespaceId: string): boolean {
    const now = this.#now();
    for (const { grant, lastUsedAt } of this.#sessions.values()) {
      if (
        grant.namespaceId === namespaceId && grant.party === "browser" &&
        now - lastUsedAt < this.tabIdleSec * 1000
      ) {
        return true;
      }
    }
    return false;
  }

  /**
   * Starts a rejoin of the agent's live session (its token `agentToken`):
   * `undefined` while a tab holds it. An earlier rejoin still pending expires,
   * so one link at a time can bring a tab back.
   */
  rejoin(namespaceId: string, agentToken: string): StartedPairing | undefined {
    if (this.tabHeld(namespaceId)) return undefined;
    for (const pairing of this.#byPairCode.values()) {
      if (pairing.rejoin?.namespaceId === namespaceId && pairing.state === "pending") {
        pairing.state = "expired";
      }
    }
    return this.#start({ namespaceId, sessionToken: agentToken });
  }

  /**
   * The person approves the pairing showing `userCode`: the session is
   * created, or for a rejoin the old browser token revoked and a new one made.
   */
  approve(userCode: string): DecisionAnswer {
    const found = this.#decided(userCode);
    if (found.status !== "pending") return found;
    const { rejoin } = found.pairing;
    if (rejoin) {
      found.pairing.state = "approved";
      const { namespaceId } = rejoin;
      if (this.#revoke(namespaceId, "browser", this.#moved)) {
        this.#forgetOldMoves(namespaceId);
        for (const listener of this.#revokeListeners) listener(namespaceId, "browser");
      }
      return {
        status: "approved",
        sessionToken: this.#grant({ namespaceId, party: "browser" }).sessionToken,
        namespaceId,
      };
    }
    if (this.#sessions.size + 2 > this.#maxSessions) {
      throw new PairingCapacityError(`${this.#maxSessions / 2} pairing sessions are already open`);
    }
    const { pairing } = found;
    const namespaceId = newNamespaceId();
    pairing.state = "approved";
    pairing.agent = { ...this.#grant({ namespaceId, party: "agent" }), namespaceId };
    return {
      status: "approved",
      sessionToken: this.#grant({ namespaceId, party: "browser" }).sessionToken,
      namespaceId,
    };
  }

  /** The person denies the pairing showing `userCode`. */
  deny(userCode: string): DecisionAnswer {
    const found = this.#decided(userCode);
    if (found.status !== "pending") return found;
    found.pairing.state = "denied";
    return { status: "denied" };
  }

  /**
   * Whether `token` was a browser token a rejoin replaced while its session
   * goes on: the session moved to the tab that approved the rejoin.
   */
  moved(token: string): boolean {
    const match = /^svcs_([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/.exec(token);
    const moved = match && this.#moved.get(match[1]);
    return !!moved && constantTimeEqual(match[2], moved.secret);
  }

  /** What a session token grants; `undefined` for a token no session has (unknown, malformed, ended). */
  session(token: string): SessionGrant | undefined {
    const match = /^svcs_([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/.exec(token);
    if (!match) return undefined;
    const session = this.#sessions.get(match[1]);
    if (!session || !constantTimeEqual(match[2], session.secret)) return undefined;
    session.lastUsedAt = this.#now();
    return session.grant;
  }

  /** The live sessions, one per namespace, oldest first (an operator's listing). */
  list(): SessionSummary[] {
    const byNamespace = new Map<string, SessionSummary>();
    for (const { grant, createdAt, lastUsedAt } of this.#sessions.values()) {
      const summary = byNamespace.get(grant.namespaceId);
      if (!summary) {
        byNamespace.set(grant.namespaceId, {
          namespaceId: grant.namespaceId,
          parties: [grant.party],
          createdAt,
          lastUsedAt,
        });
        continue;
      }
      summary.parties = [...summary.parties, grant.party].sort();
      summary.createdAt = Math.min(summary.createdAt, createdAt);
      summary.lastUsedAt = Math.max(summary.lastUsedAt, lastUsedAt);
    }
    return [...byNamespace.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  /**
   * Calls `listener` with the namespace of every session {@link end}ed, so
   * what a token opened (a WebSocket feed) ends with it; the returned function stops it.
   */
  onEnded(listener: (namespaceId: string) => void): () => void {
    this.#endListeners.add(listener);
    return () => this.#endListeners.delete(listener);
  }

  /**
   * Calls `listener` when one party's tokens of a live session are revoked (a
   * rejoin replaces the browser's), so what they opened closes while the
   * session goes on; the returned function stops it.
   */
  onRevoked(listener: (namespaceId: string, party: SessionGrant["party"]) => void): () => void {
    this.#revokeListeners.add(listener);
    return () => this.#revokeListeners.delete(listener);
  }

  /**
   * Ends the sessions of a namespace, the agent's and the browser's alike
   * (either party may end the pairing); an approval the agent has not
   * collected yet goes with them. How many tokens stopped working.
   */
  end(namespaceId: string): number {
    const ended = this.#revoke(namespaceId);
    for (const [sessionId, moved] of this.#moved) {
      if (moved.namespaceId === namespaceId) this.#moved.delete(sessionId);
    }
    for (const pairing of this.#byPairCode.values()) {
      if ((pairing.agent ?? pairing.rejoin)?.namespaceId === namespaceId) {
        pairing.agent = pairing.rejoin = undefined;
        pairing.state = "used";
      }
    }
    if (ended) { for (const listener of this.#endListeners) listener(namespaceId); }
    return ended;
  }

  /** Keeps the newest {@link MOVED_PER_SESSION} replaced tokens of `namespaceId` (the map is oldest first). */
  #forgetOldMoves(namespaceId: string): void {
    let over = -MOVED_PER_SESSION;
    for (const moved of this.#moved.values()) if (moved.namespaceId === namespaceId) over++;
    for (const [sessionId, moved] of this.#moved) {
      if (over <= 0) return;
      if (moved.namespaceId !== namespaceId) continue;
      this.#moved.delete(sessionId);
      over--;
    }
  }

  /** Deletes the tokens of a namespace (of one party when given), noting their ids in `into`; how many. */
  #revoke(
    namespaceId: string,
    party?: SessionGrant["party"],
    into?: Map<string, { namespaceId: string; secret: string }>,
  ): number {
    let revoked = 0;
    for (const [sessionId, { grant, secret }] of this.#sessions) {
      if (grant.namespaceId !== namespaceId || (party && grant.party !== party)) continue;
      this.#sessions.delete(sessionId);
      into?.set(sessionId, { namespaceId, secret });
      revoked++;
    }
    return revoked;
  }

  /** The pending pairing of a typed code, or why there is none. */
  #decided(
    typed: string,
  ): { status: "pending"; pairing: Pairing } | { status: "gone"; reason: GoneReason } | {
    status: "unknown";
  } {
    this.#sweep();
    const code = normaliseUserCode(typed);
    const pairing = code === null ? undefined : this.#byUserCode.get(code);
    if (!pairing) return { status: "unknown" };
    if (pairing.state !== "pending") {
      return {
        status: "gone",
        reason: pairing.state === "denied" || pairing.state === "expired" ? pairing.state : "used",
      };
    }
    return { status: "pending", pairing };
  }

  #grant(grant: SessionGrant): GrantedSession & { sessionId: string } {
    const sessionId = randomSecret();
    const secret = randomSecret();
    const now = this.#now();
    this.#sessions.set(sessionId, { secret, grant, createdAt: now, lastUsedAt: now });
    return {
      sessionToken: `${SESSION_TOKEN_PREFIX}${sessionId}.${secret}`,
      namespaceId: grant.namespaceId,
      sessionId,
    };
  }

  /**
   * Expires pending pairings whose time is up; forgets finished ones after
   * another `expiresInSec` (at least a minute), with the agent's session of an approval nobody
   * collected.
   */
  #sweep(): void {
    const now = this.#now();
    for (const [pairCode, pairing] of this.#byPairCode) {
      if (pairing.state === "pending" && now >= pairing.expiresAt) pairing.state = "expired";
      if (now < pairing.expiresAt + Math.max(this.expiresInSec, 60) * 1000) continue;
      if (pairing.agent) this.#sessions.delete(pairing.agent.sessionId);
      this.#byPairCode.delete(pairCode);
      this.#byUserCode.delete(pairing.userCode);
    }
  }
}
