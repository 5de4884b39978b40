/**
 * A PostgreSQL database that cannot be reached (stopped, restarting, a
 * network cut) is an outage, not a bug: the stores' calls then fail with a
 * 503 `unavailable` error (`Retry-After: 1`) instead of a 500 with the
 * driver's stack trace on every request, and the log says so once per outage
 * and once when the database answers again.
 *
 * @module
 */
import { type ServiceError, unavailable } from "../../engine/errors.ts";

/** The driver's and the socket's codes of a connection that failed or was lost. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * Whether `err` says the database could not be reached or went away, rather
 * than refusing a statement: SQLSTATE class 08 (connection exception),
 * 57P01–57P03 (shutting down, starting up) and 53300 (too many connections) too.
 */
export function isOutage(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" &&
    (CONNECTION_CODES.has(code) || code.startsWith("08") || /^57P0[1-3]$|^53300$/.test(code));
}

/** Attempts after the first a call gets when each fails with a replayed termination. */
const REPLAY_RETRIES = 3;

/**
 * Whether `err` is a termination the server sent a connection that was then
 * re-established: an ended session's FATAL (57P01 shut down or terminated,
 * 57P02 crashed). postgres.js keeps the FATAL a shutdown sends to a query in
 * flight (that query fails with CONNECTION_CLOSED) and, once the connection
 * is back, fails the first query it was to run with it, before sending it
 * (a query the server ends fails with the lost connection, never with the
 * FATAL). So after a database restart, the first call on each connection a
 * query was running on failed although the database answered (a 503, and
 * the outage logged again after it was over).
 */
export function isReplayedTermination(err: unknown): boolean {
  const { severity, code } = (err ?? {}) as { severity?: unknown; code?: unknown };
  return severity === "FATAL" && (code === "57P01" || code === "57P02");
}

/**
 * `run()`, run again while it fails with a {@link isReplayedTermination}
 * (never sent, so never run), at most {@link REPLAY_RETRIES} times more: each
 * connection replays once, and the retry mostly gets the connection that just
 * did, ready now. Its result as `run` gives it, a promise or not.
 */
export function retryingReplays<T>(run: () => T, retries = REPLAY_RETRIES): T {
  const result = run();
  if (retries === 0 || !(result instanceof Promise)) return result;
  return result.catch((err) => {
    if (!isReplayedTermination(err)) throw err;
    return retryingReplays(run, retries - 1);
  }) as T;
}

/** Reports the outages of one database: the stores over it share one. */
export class PgOutages {
  readonly #warn: (message: string) => void;
  readonly #database: string;
  #down = false;

  /** Whether the database could not be reached at the last call (until one succeeds). */
  get down(): boolean {
    return this.#down;
  }

  constructor(database: string, warn: (message: string) => void) {
    this.#database = database;
    this.#warn = warn;
  }

  /**
   * `target` with every method's outage turned into {@link unavailable}, and
   * a call the driver failed with a replayed termination run again
   * ({@link retryingReplays}); a getter returning `target` itself (a store's
   * `coordination`) returns the wrapper. Methods run on `target`, so its
   * private fields work.
   */
  wrap<T extends object>(target: T): T {
    // One wrapper per method, made on first use: every store call reads its method through here.
    const wrapped = new WeakMap<object, (...args: unknown[]) => unknown>();
    const wrapper: T = new Proxy(target, {
      get: (t, key) => {
        const value = Reflect.get(t, key, t);
        if (value === t) return wrapper;
        if (typeof value !== "function") return value;
        let method = wrapped.get(value);
        if (!method) {
          method = (...args: unknown[]) => {
            const result = retryingReplays(() => value.apply(t, args));
            return result instanceof Promise
              ? result.then((v) => this.#up(v), (err) => this.#failed(err))
              : result;
          };
          wrapped.set(value, method);
        }
        return method;
      },
    });
    return wrapper;
  }

  #up<V>(value: V): V {
    if (this.#down) {
      this.#down = false;
      this.#warn(`postgres (${this.#database}): the database answers again`);
    }
    return value;
  }

  #failed(err: unknown): never {
    if (!isOutage(err)) throw err;
    const message = (err as Error).message;
    if (!this.#down) {
      this.#down = true;
      this.#warn(
        `postgres (${this.#database}): the database cannot be reached (${message}); ` +
          "requests that need it answer 503 until it is back",
      );
    }
    const refusal: ServiceError = unavailable(
      `Storage unavailable: the database cannot be reached (${
        (err as { code: string }).code
      }); try again shortly`,
    );
    refusal.retryAfter = 1;
    throw refusal;
  }
}
