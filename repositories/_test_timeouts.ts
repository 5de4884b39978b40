/**
 * Test support: a default timeout (a fixed delay the code under test sets on
 * the global timers or as an `AbortSignal.timeout`, such as a 60 s request
 * timeout) passing at once, so the timeout's failure is met without waiting
 * for it.
 *
 * @module
 */

/** Runs `body` with every global timer and timeout signal of exactly `ms` due at once; others keep their delays. */
export async function withTimeoutsDue<T>(ms: number, body: () => Promise<T>): Promise<T> {
  const real = globalThis.setTimeout;
  const realSignal = AbortSignal.timeout;
  globalThis.setTimeout =
    ((run: () => void, delay?: number) => real(run, delay === ms ? 0 : delay)) as typeof setTimeout;
  AbortSignal.timeout = (delay: number) => realSignal.call(AbortSignal, delay === ms ? 0 : delay);
  try {
    return await body();
  } finally {
    globalThis.setTimeout = real;
    AbortSignal.timeout = realSignal;
  }
}
