/**
 * The agent's side of browser pairing: the {@link BrowserPairing} behind
 * `pair_browser`, and the session token every other call then carries. The CLI
 * (remote-with-browser mode, `--url <base> --browser`) talks to the server's
 * `/pair` routes over HTTP; the server's own `/mcp` endpoint makes the same
 * requests to itself, in process.
 *
 * A call of {@link BrowserSession.pair}:
 *
 * 1. already paired: asks for a rejoin link (`POST /pair/session`), answered
 *    `already_paired` while a tab holds the session (a server restart ended
 *    it: pairs anew); the rejoin link, once approved, gives a new tab the
 *    same session (the answers say `rejoin: true`);
 * 2. otherwise resumes the pending pairing, or starts one (`POST /pair`);
 * 3. hands the link to the person when the caller can (MCP URL-mode
 *    elicitation); a new pairing whose link nobody took that way is answered
 *    `pending` at once, so the agent can show the link right away;
 * 4. polls `POST /pair/token` every `intervalSec`, reporting progress, for at
 *    most {@link MAX_WAIT_MS} (under the 60 s request timeout MCP clients use
 *    by default) or until the caller cancels; then `paired`, or `pending`
 *    with the link and the seconds left (a pairing that expires meanwhile is
 *    polled once more, so the call reports that it expired).
 *
 * A denied or expired pairing fails the call with what happened; the next
 * call starts a new one.
 *
 * @module
 */
import { ServiceError } from "../errors.ts";
import type { RunOptions } from "../service/api.ts";
import type { LinkHandOver } from "../service/generation.ts";
import { type BrowserPairing, NotPairedError, type PairingResult } from "./pairing.ts";
import { fetchWithin, REQUEST_TIMEOUT_MS } from "./fetch_within.ts";
import { errorFromResponse } from "./remote_error.ts";

/** How long one `pair_browser` call waits for the person. */
export const MAX_WAIT_MS = 55_000;

/** Options of {@link BrowserSession}. */
export interface BrowserSessionOptions {
  /** The server's base URL (normalised, no trailing slash). */
  baseUrl: string;
  /** The HTTP port. */
  fetch(request: Request): Promise<Response>;
  /** Longest wait of one call (default {@link MAX_WAIT_MS}). */
  maxWaitMs?: number;
  /** How long one request waits for the server to answer (default {@link REQUEST_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** A pairing waiting for the person. */
interface Pending {
  pairCode: string;
  deviceSecret: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresAt: number;
  intervalMs: number;
  /** The person agreed to open the link (through a hand-over): later calls do not ask again. */
  linkTaken: boolean;
  /** It brings a tab back to the live session (`POST /pair/session`). */
  rejoin?: true;
}

/** What the token poll said. */
type Poll = { kind: "paired"; token: string; namespaceId: string } | { kind: "pending" } | {
  kind: "forgotten";
} | { kind: "slow"; waitMs: number };

/** Why a pairing ended without a session, as the agent is told. */
const ENDED: Record<string, string> = {
  access_denied: "The person denied the pairing in the browser. Call pair_browser again to start a new one.",
  expired_token:
    "The pairing link expired before anyone approved it. Call pair_browser again for a new link.",
  already_used: "The pairing was already completed elsewhere. Call pair_browser again to start a new one.",
};

/** Sleeps `ms`, or less when `signal` aborts (then it rejects with the signal's reason). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The process's pairing and, once approved, its session. */
export class BrowserSession implements BrowserPairing {
  readonly #base: string;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #maxWaitMs: number;
  readonly #timeoutMs: number;
  #pending?: Pending;
  #session?: { token: string; namespaceId: string };
  /** The poll in flight: calls waiting at once share it, so the session handed out once reaches both. */
  #polling?: Promise<Poll>;

  constructor(options: BrowserSessionOptions) {
    this.#base = options.baseUrl;
    this.#fetch = options.fetch;
    this.#maxWaitMs = options.maxWaitMs ?? MAX_WAIT_MS;
    this.#timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  }

  /** The session token for the server's API; {@link NotPairedError} before the pairing is done. */
  credential(): string {
    if (!this.#session) throw new NotPairedError();
    return this.#session.token;
  }

  /** The namespace of the session, once paired (until the server says the session ended). */
  get namespaceId(): string | undefined {
    return this.#session?.namespaceId;
  }

  /** Whether the session is still alive on the server; an ended one is dropped (`pair` then pairs anew). */
  async alive(): Promise<boolean> {
    if (this.#session && await this.#sessionAlive(this.#session.token)) return true;
    this.#session = undefined;
    return false;
  }

  async pair(options: RunOptions = {}): Promise<PairingResult> {
    let fresh = false;
    if (!this.#pending || Date.now() >= this.#pending.expiresAt) {
      const started = this.#session && await this.#start(this.#session.token);
      // Still paired after the rejoin request: a tab holds the session.
      if (this.#session && !started) {
        return { status: "already_paired", namespaceId: this.#session.namespaceId };
      }
      this.#pending = started ?? (await this.#start())!;
      fresh = true;
    }
    const pending = this.#pending;
    const handOver = pending.linkTaken ? undefined : options.handOver?.({
      url: pending.verificationUriComplete,
      message: `Approve pairing this agent with your browser: open the link and check that the page shows ` +
        `the code ${pending.userCode}.`,
    });
    if (fresh && !handOver) return this.#stillPending(pending);
    return await this.#wait(pending, options, handOver);
  }

  /** Polls until approved, the call's time is up, the person declined the hand-over, or the caller cancels. */
  async #wait(pending: Pending, options: RunOptions, handOver?: LinkHandOver): Promise<PairingResult> {
    const deadline = Date.now() + this.#maxWaitMs;
    let declined = false;
    handOver?.accepted.then((accepted) => {
      if (accepted) pending.linkTaken = true;
      else declined = true;
    });
    try {
      for (;;) {
        this.#polling ??= this.#poll(pending).finally(() => (this.#polling = undefined));
        const poll = await this.#polling;
        if (poll.kind === "paired") {
          this.#pending = undefined;
          this.#session = { token: poll.token, namespaceId: poll.namespaceId };
          await handOver?.complete();
          return { status: "paired", namespaceId: poll.namespaceId, ...pending.rejoin && { rejoin: true } };
        }
        if (poll.kind === "forgotten") {
          // The server no longer knows the pairing (it restarted): a new one, answered at once.
          this.#pending = undefined;
          handOver?.withdraw();
          return await this.pair({ ...options, handOver: undefined });
        }
        const secondsLeft = Math.max(0, Math.round((pending.expiresAt - Date.now()) / 1000));
        options.progress?.({
          type: "waiting_for_approval",
          userCode: pending.userCode,
          verificationUriComplete: pending.verificationUriComplete,
          secondsLeft,
        });
        // A pairing that expires before the next poll is polled just after, so the agent hears it expired.
        const untilExpiry = Math.max(pending.expiresAt - Date.now(), 750) + 250;
        const pause = Math.min(poll.kind === "slow" ? poll.waitMs : pending.intervalMs, untilExpiry);
        if (declined || Date.now() + pause > deadline) {
          handOver?.withdraw();
          return this.#stillPending(pending);
        }
        await sleep(pause, options.signal);
      }
    } catch (err) {
      handOver?.withdraw();
      throw err;
    }
  }

  #stillPending(pending: Pending): PairingResult {
    return {
      status: "pending",
      verificationUri: pending.verificationUri,
      verificationUriComplete: pending.verificationUriComplete,
      userCode: pending.userCode,
      expiresInSec: Math.max(0, Math.round((pending.expiresAt - Date.now()) / 1000)),
      ...pending.rejoin && { rejoin: true },
    };
  }

  async #request(method: string, path: string, body?: unknown, token?: string) {
    const headers = new Headers({ accept: "application/json" });
    if (body !== undefined) headers.set("content-type", "application/json");
    if (token) headers.set("authorization", `Bearer ${token}`);
    const request = new Request(this.#base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return await fetchWithin(this.#fetch, request, this.#base, this.#timeoutMs);
  }

  /**
   * Starts a pairing, or with the session's `token` a rejoin: `undefined`
   * while a tab holds the session (409), or when it ended (401, then dropped).
   */
  async #start(token?: string): Promise<Pending | undefined> {
    const response = await this.#request("POST", token ? "/pair/session" : "/pair", undefined, token);
    const text = await response.text();
    if (token && (response.status === 409 || response.status === 401)) {
      if (response.status === 401) this.#session = undefined;
      return undefined;
    }
    if (!response.ok) throw errorFromResponse(response.status, response.statusText, text);
    const started = JSON.parse(text);
    return {
      pairCode: started.pairCode,
      deviceSecret: started.deviceSecret,
      userCode: started.userCode,
      verificationUri: started.verificationUri,
      verificationUriComplete: started.verificationUriComplete,
      expiresAt: Date.now() + started.expiresInSec * 1000,
      intervalMs: started.intervalSec * 1000,
      linkTaken: false,
      ...token && { rejoin: true },
    };
  }

  /** One token request (not cancelled with its call: it is short, and another call may share it). */
  async #poll(pending: Pending): Promise<Poll> {
    const { pairCode, deviceSecret } = pending;
    const response = await this.#request("POST", "/pair/token", { pairCode, deviceSecret });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {
      // Not our server's answer: reported below with its status.
    }
    switch (response.status) {
      case 200:
        return { kind: "paired", token: String(body.sessionToken), namespaceId: String(body.namespaceId) };
      case 409:
        return { kind: "pending" };
      case 404:
        return { kind: "forgotten" };
      case 429:
        return { kind: "slow", waitMs: Number(response.headers.get("retry-after") ?? 3) * 1000 };
      case 410: {
        this.#pending = undefined;
        const message = ENDED[String(body.error)] ?? ENDED.expired_token;
        throw new ServiceError(body.error === "access_denied" ? "forbidden" : "conflict", message);
      }
      default:
        throw errorFromResponse(response.status, response.statusText, text);
    }
  }

  async #sessionAlive(token: string): Promise<boolean> {
    const response = await this.#request("GET", "/pair/session", undefined, token);
    const text = await response.text();
    if (response.ok) return true;
    if (response.status === 401) return false;
    throw errorFromResponse(response.status, response.statusText, text);
  }
}
