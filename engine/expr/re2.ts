/**
 * RE2 (re2js), the linear-time regex engine of schema `pattern`s, pattern
 * metas and JSONata regex literals, and ajv-formats' format table (mostly
 * regexes too), and how they are loaded. Together they are about a quarter of
 * the engine bundle gzipped and many specs need neither, so the browser
 * bundles load them on first use from a chunk of their own (regex_chunk.ts;
 * the build cuts the static import below: build/on_demand.ts); in Deno, the
 * compiled binary and the CLI bundle they come with the engine, as any import
 * does.
 *
 * Compiling is synchronous. Code that compiles a spec or an expression where
 * RE2 may not be loaded yet compiles through {@link withRegexEngine}: a compile
 * that asked for RE2 before it was there runs again once it is. A synchronous
 * compile without it fails with {@link RegexEngineUnavailable} at every regex
 * (a finding, a refused expression), never with a wrong answer.
 *
 * @module
 */
import { fullFormats, RE2JS } from "./regex_chunk.ts";

type Formats = typeof fullFormats;

let engine: typeof RE2JS | undefined = RE2JS;
let formats: Formats | undefined = fullFormats;
let loading: Promise<void> | undefined;
/** How often RE2 was asked for before it was loaded: a compile that moved it needs a second run. */
let misses = 0;

/** RE2 was needed by a synchronous compile before it was loaded. */
export class RegexEngineUnavailable extends Error {
  constructor() {
    super(
      "the regular expression engine (RE2) is not loaded yet: await loadRegexEngine() before compiling " +
        "a spec or an expression that uses a regex",
    );
    this.name = "RegexEngineUnavailable";
  }
}

/** RE2; throws {@link RegexEngineUnavailable} (and notes the miss) while it is not loaded. */
export function regexEngine(): typeof RE2JS {
  if (engine) return engine;
  misses++;
  throw new RegexEngineUnavailable();
}

/** ajv-formats' format table; throws {@link RegexEngineUnavailable} (and notes the miss) while it is not loaded. */
export function formatTable(): Formats {
  if (formats) return formats;
  misses++;
  throw new RegexEngineUnavailable();
}

/** The format table when it is loaded (a compile that does not need it goes on without). */
export function loadedFormats(): Formats | undefined {
  return formats;
}

/** Notes that what is being compiled needs RE2 later (a pattern computed at write time). */
export function expectRegexEngine(): void {
  if (!engine) misses++;
}

/** Loads RE2 if it is not loaded yet (a failed load is tried again next time). */
export function loadRegexEngine(): Promise<void> {
  if (engine) return Promise.resolve();
  return loading ??= import("./regex_chunk.ts").then(
    (module) => {
      engine = module.RE2JS;
      formats = module.fullFormats;
    },
    (err) => {
      loading = undefined;
      throw err;
    },
  );
}

/**
 * Runs a compile (synchronous, or paced: a concurrent compile's miss then runs
 * this one again too, needlessly but safely) with RE2 available when it needs
 * it: once, or, when it asked for RE2 before RE2 was loaded, again after
 * loading it (the first result is discarded, whatever it was).
 */
export async function withRegexEngine<T>(compile: () => T | Promise<T>): Promise<T> {
  if (engine) return compile();
  const before = misses;
  try {
    const result = await compile();
    if (misses === before) return result;
  } catch (err) {
    if (misses === before) throw err;
  }
  await loadRegexEngine();
  return compile();
}
