/**
 * Work nobody awaits that must get through in the end (a refresh a store
 * notice starts, the catch-up after a lost notice connection): after a
 * failure it runs again, until it gets through or its owner closes.
 *
 * @module
 */
import type { Scheduler } from "../ports.ts";

/** Wait before the first rerun; doubled after each failure up to {@link RETRY_MAX_MS}. */
export const RETRY_FIRST_MS = 100;
/** Longest wait between attempts: a second after the store answers again, the work is through. */
export const RETRY_MAX_MS = 1000;

/** Runs tasks again after each failure, with a bounded backoff, until they get through or {@link close}. */
export class RetriesUntilThrough {
  readonly #scheduler: Scheduler;
  readonly #timers = new Set<unknown>();
  #closed = false;

  constructor(scheduler: Scheduler) {
    this.#scheduler = scheduler;
  }

  /**
   * Runs `task`; when it fails, runs it again after {@link RETRY_FIRST_MS},
   * then twice as long each time up to {@link RETRY_MAX_MS}. `firstFailure`
   * hears its first failure only (the log says it once).
   */
  run(task: () => Promise<unknown>, firstFailure: (err: Error) => void, wait = RETRY_FIRST_MS): void {
    if (this.#closed) return;
    task().catch((err) => {
      if (this.#closed) return;
      if (wait === RETRY_FIRST_MS) firstFailure(err as Error);
      const timer = this.#scheduler.setTimeout(() => {
        this.#timers.delete(timer);
        this.run(task, firstFailure, Math.min(2 * wait, RETRY_MAX_MS));
      }, wait);
      this.#timers.add(timer);
    });
  }

  /** No rerun after this: the waiting ones are dropped, a failure of one running is not retried. */
  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) this.#scheduler.clearTimeout(timer);
    this.#timers.clear();
  }
}
