/**
 * Deterministic stand-ins for wall-clock measurements in the expression
 * tests (the team rule: performance is measured by benchmarks, never by timed
 * assertions). The evaluation guard reads `Date.now()` for its deadline and
 * its yields; these tests drive that clock instead of waiting on it, count
 * the event-loop turns a long evaluation gives up, and catch work done in
 * one native call that the guard cannot pace (a backtracking regex).
 * Not part of the engine's public entry.
 *
 * @module
 */
import { YIELD_EVERY_MS } from "./guard.ts";

/**
 * Runs `body` with `Date.now()` moving on `stepMs` at each reading (from the
 * real time at the start): a deadline `n * stepMs` away passes at the n-th
 * reading, whatever the machine's speed. Answers `body`'s value and the readings.
 */
export async function withSteppingClock<T>(
  stepMs: number,
  body: () => Promise<T>,
): Promise<{ value: T; readings: number }> {
  const now = Date.now;
  const start = now();
  let readings = 0;
  Date.now = () => start + ++readings * stepMs;
  try {
    const value = await body();
    return { value, readings };
  } finally {
    Date.now = now;
  }
}

/**
 * Runs `work` with a clock moving on `stepMs` at each reading (by default, so
 * that every pacing call of the guard finds a yield due, as on a loaded
 * machine), and counts the turns a chain of 0 ms timers got meanwhile: the
 * times other work ran during `work`. A guarded builtin that paces its walk
 * every chunk gives a turn per chunk; one that does the walk in one native
 * call gives none. Answers the turns and the clock's readings.
 */
export async function turnsDuring(
  work: () => Promise<unknown>,
  stepMs = YIELD_EVERY_MS,
): Promise<{ turns: number; readings: number }> {
  let turns = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = () => {
    turns++;
    timer = setTimeout(tick, 0);
  };
  timer = setTimeout(tick, 0);
  try {
    const { readings } = await withSteppingClock(stepMs, work);
    return { turns, readings };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `work` failing at once if a native (backtracking) regex with a group
 * is run over `subject`: such a regex (`/^(a+)+$/`, `$toMillis`'s picture
 * regex) can hold the event loop for minutes in one call, so the guarded
 * engine runs them on RE2. Regexes without a group (linear scans) may run.
 */
export async function withoutBacktracking<T>(subject: string, work: () => Promise<T>): Promise<T> {
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    if (input === subject && this.source.includes("(")) {
      throw new Error(`a native regex /${this.source}/ ran over the subject`);
    }
    return exec.call(this, input);
  };
  try {
    return await work();
  } finally {
    RegExp.prototype.exec = exec;
  }
}

/**
 * Runs `work` failing at once if a string of more than `most` units is split
 * (`String.prototype.split`) or iterated by code point (`for…of`, spreading)
 * in one native call, as jsonata-js's `$split`, `$length`, `$substring` and
 * `$pad` do: seconds the guard cannot interrupt at tens of millions of
 * characters. The guarded builtins walk such strings in paced chunks.
 */
export async function withoutNativeWalks<T>(most: number, work: () => Promise<T>): Promise<T> {
  const proto = String.prototype;
  const { split } = proto;
  const iterate = proto[Symbol.iterator];
  const check = (text: string, what: string) => {
    if (text.length > most) throw new Error(`a string of ${text.length} units was ${what} in one call`);
  };
  proto.split = function (this: string, ...args: Parameters<typeof split>) {
    check(String(this), "split");
    return split.apply(this, args);
  } as typeof split;
  proto[Symbol.iterator] = function (this: string) {
    check(String(this), "iterated");
    return iterate.call(this);
  };
  try {
    return await work();
  } finally {
    proto.split = split;
    proto[Symbol.iterator] = iterate;
  }
}
