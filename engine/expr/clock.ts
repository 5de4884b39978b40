/**
 * `$now()` and `$millis()` fixed to a given instant. JSONata reads the wall
 * clock at each evaluation; a mutation cycle binds these instead, so every
 * expression of one commit sees the commit's own time, and replaying a logged
 * commit at load (or a test) reproduces exactly what was committed.
 *
 * @module
 */

/** What JSONata passes a bound function as `this`. */
interface FunctionScope {
  environment: { lookup(name: string): { implementation: (...args: unknown[]) => unknown } | undefined };
}

/** A function JSONata calls with its scope as `this` (the form of its own built-ins). */
interface ScopedFunction {
  _jsonata_function: true;
  implementation: (this: FunctionScope, ...args: unknown[]) => unknown;
}

/** Bindings `now` and `millis` answering with `ms`; `$now(picture, timezone)` formats as JSONata does. */
export function clockBindings(ms: number): { now: ScopedFunction; millis: () => number } {
  return {
    now: {
      _jsonata_function: true,
      implementation(picture?: unknown, timezone?: unknown) {
        if (picture === undefined && timezone === undefined) return new Date(ms).toISOString();
        // The built-in formatter, so pictures and time zones behave exactly like JSONata's own $now.
        return this.environment.lookup("fromMillis")?.implementation.call(this, ms, picture, timezone);
      },
    },
    millis: () => ms,
  };
}
