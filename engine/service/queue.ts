/**
 * Per-model serialisation: one operation at a time per model, with a bound on
 * queued mutations (executing plus waiting) beyond which callers get 429.
 *
 * @module
 */
import { tooMany } from "../errors.ts";

/** A FIFO lock with a bounded count of counted (mutation) tasks. */
export class SerialQueue {
  /** Whether a task is running (started, not yet settled). */
  #running = false;
  /** Starts of the tasks waiting behind the running one, oldest first. */
  readonly #waiting: (() => void)[] = [];
  #counted = 0;
  readonly #limit: number;
  readonly #label: string;

  constructor(limit: number, label: string) {
    this.#limit = limit;
    this.#label = label;
  }

  /** Throws the 429 a counted task would get now: `svc.mutation-queue-size` are executing or waiting. */
  checkRoom(): void {
    if (this.#counted >= this.#limit) {
      throw tooMany(`Mutation queue of ${this.#label} is full (svc.mutation-queue-size = ${this.#limit})`);
    }
  }

  /** Mutations executing or waiting. */
  get pending(): number {
    return this.#counted;
  }

  /**
   * Runs `task` after every earlier task. A counted task is refused with 429
   * when `svc.mutation-queue-size` tasks are already executing or waiting.
   * On an idle queue the task starts at once, without waiting a turn of the
   * microtask queue; a task queued by a running one (or by anyone meanwhile)
   * waits for it.
   */
  run<T>(task: () => Promise<T>, counted: boolean): Promise<T> {
    if (counted) {
      try {
        this.checkRoom();
      } catch (err) {
        return Promise.reject(err);
      }
      this.#counted++;
    }
    let result: Promise<T>;
    if (this.#running) {
      result = new Promise<T>((resolve, reject) => {
        this.#waiting.push(() => start(task).then(resolve, reject));
      });
    } else {
      this.#running = true;
      result = start(task);
    }
    const settled = counted ? this.#settledCounted : this.#settled;
    // Registered before the caller's own reactions: the count is down and the next task started when it resumes.
    result.then(settled, settled);
    return result;
  }

  readonly #settled = (): void => {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running = false;
  };

  readonly #settledCounted = (): void => {
    this.#counted--;
    this.#settled();
  };
}

/** Starts a task, a synchronous throw becoming its rejection. */
function start<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (err) {
    return Promise.reject(err);
  }
}
