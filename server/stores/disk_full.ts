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

/** A kind of write failure that is the operator's to mend, not a bug. */
interface Fault {
  /** The system's and SQLite's words for it. */
  words: RegExp;
  /** What the log says it is. */
  log: string;
  /** Until when the log says writes are refused. */
  until: string;
  /** What the refused request is told. */
  answer: string;
}

/** No room left: SQLITE_FULL, ENOSPC, EDQUOT. */
const NO_ROOM: Fault = {
  words: /database or disk is full|no space left on device|disk quota exceeded/i,
  log: "the disk is full",
  until: "there is room",
  answer: "Storage full: the server's disk has no room left; nothing of this request was stored: " +
    "try again once space is freed",
};

/**
 * The data cannot be written (EROFS, EACCES, EPERM, SQLite's read-only database
 * and I/O error: a directory remounted read-only, made immutable, a failing disk).
 */
const UNWRITABLE: Fault = {
  words: /read-only file system|readonly database|permission denied|operation not permitted|disk i\/o error/i,
  log: "the storage cannot be written",
  until: "it is mended",
  answer: "Storage not writable: the server cannot write its data (a read-only or failing disk, or no " +
    "permission); nothing of this request was stored: try again once an operator has mended it",
};

/** Seconds a client is asked to wait after a write refused so (mending it takes a person). */
const FULL_RETRY_AFTER_S = 30;

/** The operator's fault `err` reports, if any. */
function faultOf(err: unknown): Fault | null {
  const words = (err as Error)?.message ?? "";
  return [NO_ROOM, UNWRITABLE].find((fault) => fault.words.test(words)) ?? null;
}

/** Tracks whether one store's writes are refused for a full disk (or storage that cannot be written). */
export class DiskFull {
  /** How the log names the store, e.g. `kv (data/svc.kv)`. */
  readonly #where: string;
  readonly #warn: (message: string) => void;
  /** Why writes fail now, until one succeeds. */
  #fault: Fault | null = null;

  constructor(where: string, warn: (message: string) => void) {
    this.#where = where;
    this.#warn = warn;
  }

  /** Whether the last write failed for a full disk (until one succeeds). */
  get full(): boolean {
    return this.#fault === NO_ROOM;
  }

  /** Why writes are refused now (as the log says it), or `null`. */
  get trouble(): string | null {
    return this.#fault?.log ?? null;
  }

  /** Notes a write that succeeded: a full disk has room again. */
  succeeded(): void {
    if (!this.#fault) return;
    this.#fault = null;
    this.#warn(`${this.#where}: writes succeed again`);
  }

  /** `err`, or for a full disk (unwritable storage) the 503 that says so (logged once until a write succeeds). */
  refusal(err: unknown): unknown {
    const fault = faultOf(err);
    if (!fault) return err;
    if (this.#fault !== fault) {
      this.#fault = fault;
      this.#warn(
        `${this.#where}: ${fault.log} (${(err as Error).message}); writes answer 503 until ${fault.until}, ` +
          "nothing of a refused write is stored",
      );
    }
    // The path is the operator's to know: the log line names it.
    const refusal: ServiceError = unavailable(fault.answer);
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
