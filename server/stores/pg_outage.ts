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
   * `target` with every method's outage turned into {@link unavailable}; a
   * getter returning `target` itself (a store's `coordination`) returns the
   * wrapper. Methods run on `target`, so its private fields work.
   */
  wrap<T extends object>(target: T): T {
    const wrapper: T = new Proxy(target, {
      get: (t, key) => {
        const value = Reflect.get(t, key, t);
        if (value === t) return wrapper;
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const result = value.apply(t, args);
          return result instanceof Promise
            ? result.then((v) => this.#up(v), (err) => this.#failed(err))
            : result;
        };
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
