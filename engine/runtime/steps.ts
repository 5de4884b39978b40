/**
 * The jobs of a cycle as generators that run synchronously until something
 * must be awaited. Most evaluations are answered at once by a compiled closure
 * (`CompiledExpression.evaluateNow`); an `async` job would still pay a promise
 * and a microtask at every level for them, which at small models costs more
 * than the evaluations. A job yields the promises it has to wait for (an
 * interpreted evaluation) and {@link runSteps} resumes it when they settle,
 * so `yield* settled(x)` reads like `await x` and costs nothing when `x` is a
 * plain value but a generator object. The loops run once per evaluation
 * (derive.ts, constraints.ts) inline it as
 * `x instanceof Promise ? yield x : x`, which allocates nothing.
 *
 * @module
 */

/** A cycle job: yields the promises it waits for, returns `T`. */
export type Steps<T> = Generator<Promise<unknown>, T, unknown>;

/** Waits inside a job for a value that may be a promise (a rejection throws into the job, like `await`). */
export function* settled<T>(value: T | Promise<T>): Steps<T> {
  return value instanceof Promise ? (yield value) as T : value;
}

/**
 * Runs a job: its result at once when it never had to wait (a throw throws),
 * otherwise the promise of its result.
 */
export function runSteps<T>(job: Steps<T>): T | Promise<T> {
  const first = job.next();
  return first.done ? first.value : resume(job, first.value);
}

async function resume<T>(job: Steps<T>, waiting: Promise<unknown>): Promise<T> {
  for (;;) {
    const outcome = await waiting.then((value) => ({ value }), (error: unknown) => ({ error }));
    const next = "error" in outcome ? job.throw(outcome.error) : job.next(outcome.value);
    if (next.done) return next.value;
    waiting = next.value;
  }
}
