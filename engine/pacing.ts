/**
 * Long synchronous work written as a generator that yields between its pieces
 * (a spec's compile, entry by entry): {@link drain} runs it at once, {@link paced}
 * gives the event loop one macrotask every {@link PACE_MS} of work, so a host
 * answers other requests while a large spec compiles (as the expression guard
 * does while a long evaluation runs).
 *
 * @module
 */

/** Work between two yields to the event loop. */
export const PACE_MS = 10;

/** Work that may pause between its pieces (unlike a cycle's `Steps`, runtime/steps.ts, it waits for nothing). */
export type Chunks<T> = Generator<void, T, void>;

/** Runs `steps` to the end without pausing. */
export function drain<T>(steps: Chunks<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** One turn of the event loop: a macrotask (`setTimeout`, in Deno and browsers), after pending I/O. */
export function macrotask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Runs `steps`, yielding a {@link macrotask} every {@link PACE_MS} of work. */
export async function paced<T>(steps: Chunks<T>): Promise<T> {
  for (let since = Date.now();;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (Date.now() - since < PACE_MS) continue;
    await macrotask();
    since = Date.now();
  }
}
