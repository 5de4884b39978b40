/**
 * Per-model serialisation: one operation at a time per model, with a bound on
 * queued mutations (executing plus waiting) beyond which callers get 429.
 *
 * @module
 */
import { tooMany } from "../errors.ts";

/** A FIFO lock with a bounded count of counted (mutation) tasks. */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #counted = 0;
  readonly #limit: number;
  readonly #label: string;

  constructor(limit: number, label: string) {
    this.#limit = limit;
    this.#label = label;
  }

  /** Mutations executing or waiting. */
  get pending(): number {
    return this.#counted;
  }

  /**
   * Runs `task` after every earlier task. A counted task is refused with 429
   * when `svc.mutation-queue-size` tasks are already executing or waiting.
   */
  run<T>(task: () => Promise<T>, counted: boolean): Promise<T> {
    if (counted && this.#counted >= this.#limit) {
      return Promise.reject(
        tooMany(`Mutation queue of ${this.#label} is full (svc.mutation-queue-size = ${this.#limit})`),
      );
    }
    if (counted) this.#counted++;
    const result = this.#tail.then(task);
    this.#tail = result.then(() => undefined, () => undefined);
    if (!counted) return result;
    return result.finally(() => this.#counted--);
  }
}
