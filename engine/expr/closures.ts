/**
 * The compiled closures of the common subset (compiled/) and how they are
 * loaded. They only make evaluations faster (a closure hands anything it does
 * not answer exactly back to jsonata-js), so a host may run without them: the
 * browser bundles load them from a chunk of their own when a service opens
 * (the build cuts the static import below: build/on_demand.ts), and
 * expressions compiled before that are interpreted. In Deno, the compiled
 * binary and the CLI bundle they come with the engine, as any import does.
 *
 * @module
 */
import * as bundled from "./compiled/compile.ts";

/** The closure compiler: `compileClosure`, `compiledLimits` and the hand-back sentinel `INTERPRET`. */
export type ClosureCompiler = typeof bundled;

// In the browser bundles the static import is a stub whose members are undefined.
let loaded: ClosureCompiler | undefined = typeof bundled.compileClosure === "function" ? bundled : undefined;
let loading: Promise<void> | undefined;

/** The closure compiler when it is loaded. */
export function closureCompiler(): ClosureCompiler | undefined {
  return loaded;
}

/** Loads the closure compiler if it is not loaded yet (a failed load is tried again next time). */
export function loadClosureCompiler(): Promise<void> {
  if (loaded) return Promise.resolve();
  return loading ??= import("./compiled/compile.ts").then(
    (module) => {
      loaded = module;
    },
    (err) => {
      loading = undefined;
      throw err;
    },
  );
}
