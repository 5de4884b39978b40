/**
 * A sliding-window counter per key (a client address): at most `limit` hits
 * in any window of `windowMs`. The `svc.rate-limit.*` middleware counts every
 * request with it; the pairing routes keep their own (new pairings, polls,
 * wrong codes).
 *
 * @module
 */

/** Sweep idle keys after this many hits, so the table stays bounded by active keys. */
const SWEEP_EVERY = 1024;

/** Counts hits per key over a sliding window. */
export class SlidingWindow {
  readonly limit: number;
  readonly windowMs: number;
  readonly #now: () => number;
  readonly #hits = new Map<string, number[]>();
  #sinceSweep = 0;

  /** `now` is a milliseconds clock (tests pass their own). */
  constructor(limit: number, windowMs: number, now: () => number = () => Date.now()) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.#now = now;
  }

  /**
   * The whole seconds `key` must wait before its next hit counts, 0 when it may
   * go now (at least 1 while it is at its limit).
   */
  wait(key: string): number {
    const t = this.#now();
    const times = this.#current(key, t);
    if (!times || times.length < this.limit) return 0;
    return Math.max(1, Math.ceil((times[0] + this.windowMs - t) / 1000));
  }

  /** Counts a hit for `key` when it is under its limit; answers {@link wait} otherwise (0: counted). */
  take(key: string): number {
    const waitSeconds = this.wait(key);
    if (waitSeconds) return waitSeconds;
    const t = this.#now();
    if (++this.#sinceSweep >= SWEEP_EVERY) {
      this.#sinceSweep = 0;
      for (const [k, times] of this.#hits) {
        if (times[times.length - 1] <= t - this.windowMs) this.#hits.delete(k);
      }
    }
    let times = this.#hits.get(key);
    if (!times) this.#hits.set(key, times = []);
    times.push(t);
    return 0;
  }

  /**
   * Takes back the key's latest hit: a caller that counts an attempt before
   * knowing its outcome (so concurrent attempts cannot all pass the check)
   * releases it when the attempt turns out not to count.
   */
  release(key: string): void {
    const times = this.#hits.get(key);
    times?.pop();
    if (times?.length === 0) this.#hits.delete(key);
  }

  /** The key's hits still inside the window (older ones dropped). */
  #current(key: string, t: number): number[] | undefined {
    const times = this.#hits.get(key);
    if (!times) return undefined;
    let expired = 0;
    while (expired < times.length && times[expired] <= t - this.windowMs) expired++;
    if (expired) times.splice(0, expired);
    return times;
  }
}
