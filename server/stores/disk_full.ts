/**
 * A full disk is an operator's matter, not a bug: a write it refuses answers
 * 503 "Storage full" with a Retry-After instead of a 500 with a stack trace
 * logged per request, the log says so once (and once when writes succeed
 * again), and `svc.storage.full` shows it. The Deno KV database and the
 * filesystem stores share this.
 *
 * @module
 */
import { type ServiceError, unavailable } from "../../engine/errors.ts";

/**
 * SQLite's and the system's words for a disk with no room left (SQLITE_FULL,
 * ENOSPC, EDQUOT).
 */
const NO_ROOM = /database or disk is full|no space left on device|disk quota exceeded/i;

/** Seconds a client is asked to wait after a write refused for a full disk (freeing space takes a person). */
const FULL_RETRY_AFTER_S = 30;

/** Whether `err` says the disk has no room left. */
export function isNoRoom(err: unknown): boolean {
  return NO_ROOM.test((err as Error)?.message ?? "");
}

/** Tracks whether one store's writes are refused for a full disk. */
export class DiskFull {
  /** How the log names the store, e.g. `kv (data/svc.kv)`. */
  readonly #where: string;
  readonly #warn: (message: string) => void;
  #full = false;

  constructor(where: string, warn: (message: string) => void) {
    this.#where = where;
    this.#warn = warn;
  }

  /** Whether the last write failed for a full disk (until one succeeds). */
  get full(): boolean {
    return this.#full;
  }

  /** Notes a write that succeeded: a full disk has room again. */
  succeeded(): void {
    if (!this.#full) return;
    this.#full = false;
    this.#warn(`${this.#where}: writes succeed again`);
  }

  /** `err`, or for a full disk the 503 that says so (logged once until a write succeeds). */
  refusal(err: unknown): unknown {
    if (!isNoRoom(err)) return err;
    if (!this.#full) {
      this.#full = true;
      this.#warn(
        `${this.#where}: the disk is full (${
          (err as Error).message
        }); writes answer 503 until there is room, ` +
          "nothing of a refused write is stored",
      );
    }
    // The path is the operator's to know: the log line names it.
    const refusal: ServiceError = unavailable(
      `Storage full: the server's disk has no room left; nothing of this request was stored: ` +
        "try again once space is freed",
    );
    refusal.retryAfter = FULL_RETRY_AFTER_S;
    return refusal;
  }

  /** Runs one write: its full-disk failure becomes {@link refusal}, its success {@link succeeded}. */
  async write<T>(run: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await run();
    } catch (err) {
      throw this.refusal(err);
    }
    this.succeeded();
    return result;
  }
}
