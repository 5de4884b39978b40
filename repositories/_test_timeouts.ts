/**
 * Test support: a default timeout (a fixed delay the code under test sets on
 * the global timers, such as a 60 s request timeout) passing at once, so the
 * timeout's failure is met without waiting for it.
 *
 * @module
 */

/** Runs `body` with every global timer of exactly `ms` due at once; other timers keep their delays. */
export async function withTimeoutsDue<T>(ms: number, body: () => Promise<T>): Promise<T> {
  const real = globalThis.setTimeout;
  globalThis.setTimeout =
    ((run: () => void, delay?: number) => real(run, delay === ms ? 0 : delay)) as typeof setTimeout;
  try {
    return await body();
  } finally {
    globalThis.setTimeout = real;
  }
}
