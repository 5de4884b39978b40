/**
 * A server's browser pairing: the {@link Pairings} state machine, the rate
 * limits of the pairing routes (per client address, always on, whatever
 * `svc.rate-limit.enabled` says), the blobs each session uploaded, and the
 * session a request was admitted with (the auth middleware admits it, the
 * routes read it).
 *
 * @module
 */
import type { Context } from "hono";
import { SlidingWindow } from "../middleware/rate_limit/window.ts";
import { type PairingOptions, Pairings, type SessionGrant } from "./pairings.ts";
import { SessionBlobs } from "./session_blobs.ts";

/** New pairings a client may start per minute. */
export const STARTS_PER_MINUTE = 10;
/** Token polls a client may make per minute (one every 3 s is 20). */
export const POLLS_PER_MINUTE = 60;
/** Wrong or finished codes a client may send to approve or deny in ten minutes. */
export const WRONG_CODES_PER_10_MINUTES = 10;

/** Options of {@link PairingHost}. */
export interface PairingHostOptions extends PairingOptions {
  /** `svc.pairing.enabled` (default true). */
  enabled?: boolean;
}

/** The pairing of one server. */
export class PairingHost {
  readonly enabled: boolean;
  readonly pairings: Pairings;
  readonly starts: SlidingWindow;
  readonly polls: SlidingWindow;
  readonly wrongCodes: SlidingWindow;
  /** The blobs each session uploaded (the only ones it reads through its models). */
  readonly blobs = new SessionBlobs();

  constructor(options: PairingHostOptions = {}) {
    this.enabled = options.enabled ?? true;
    this.pairings = new Pairings(options);
    this.starts = new SlidingWindow(STARTS_PER_MINUTE, 60_000, options.now);
    this.polls = new SlidingWindow(POLLS_PER_MINUTE, 60_000, options.now);
    this.wrongCodes = new SlidingWindow(WRONG_CODES_PER_10_MINUTES, 600_000, options.now);
    this.pairings.onEnded((namespaceId) => this.blobs.forget(namespaceId));
  }
}

const SESSION = "pairingSession";

/** Records the session a request's token granted (the auth middleware does, once it checked the token). */
export function admitSession(c: Context, grant: SessionGrant): void {
  c.set(SESSION, grant);
}

/** The session a request was admitted with; `undefined` for a request without a session token. */
export function sessionOf(c: Context): SessionGrant | undefined {
  return c.get(SESSION) as SessionGrant | undefined;
}
