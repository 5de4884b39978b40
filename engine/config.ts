/**
 * Engine configuration: the `svc.*` keys the engine reads, their defaults, and
 * how a key maps to its environment variable (`svc.max-models` -> `SVC_MAX_MODELS`).
 *
 * The engine never reads the environment itself: a surface hands it a lookup.
 *
 * @module
 */
import { MAX_QUOTED_WORD, quoted } from "./quoted.ts";

/** Looks up a configuration key (`svc.max-models`); `undefined` when unset. */
export type ConfigLookup = (key: string) => string | undefined;

/** Limits and switches of the engine and its service layer. */
export interface EngineConfig {
  /** `svc.max-models`: models in the registry. */
  maxModels: number;
  /** `svc.mutation-queue-size`: executing plus waiting mutations per model. */
  mutationQueueSize: number;
  /** `svc.history.max-entries`: retained post-commit snapshots (0 disables). */
  historyMaxEntries: number;
  /** `svc.limits.max-array-index`: highest array index one write may target. */
  maxArrayIndex: number;
  /** `svc.limits.regex-max-input`: longest string a `pattern` check accepts. */
  regexMaxInput: number;
  /** `svc.limits.regex-timeout-ms`: budget of one pattern match. */
  regexTimeoutMs: number;
  /** `svc.limits.expression-cache-size`: compiled JSONata expressions kept (LRU). */
  expressionCacheSize: number;
  /** `svc.limits.expression-timeout-ms`: budget of one JSONata evaluation. */
  expressionTimeoutMs: number;
  /** `svc.limits.expression-max-depth`: JSONata evaluation depth limit. */
  expressionMaxDepth: number;
  /** `svc.limits.expression-max-items`: longest sequence one expression step may build (range included). */
  expressionMaxItems: number;
  /** `svc.limits.expression-memory-bytes`: approximate bytes of strings and sequences one evaluation may build. */
  expressionMemoryBytes: number;
  /** `svc.limits.max-depth`: deepest nesting of a written value, a spec, a derived value or a state. */
  maxDepth: number;
  /** `svc.limits.max-state-bytes`: largest state of one model (its JSON, approximately). */
  maxStateBytes: number;
  /** `svc.limits.max-spec-bytes`: largest spec (its JSON). */
  maxSpecBytes: number;
  /** Trace ring buffer entries per model. */
  traceBufferSize: number;
  /** `svc.blob.max-bytes`: per-blob cap. */
  blobMaxBytes: number;
  /** `svc.blob.max-total-bytes`: total in-memory blob budget (non-positive: unbounded). */
  blobMaxTotalBytes: number;
  /** `svc.effects.kinds.enabled`: allowed executor kinds, `null` when unset (all). */
  effectKindsEnabled: string[] | null;
  /** `svc.composition.lazy-binding`: a link to a model no repository holds is accepted (resolved when it fires). */
  compositionLazyBinding: boolean;
  /** `svc.authz.inherited-effects`: what inherited effects of another owner do (`approve`, `allow`, `deny`). */
  inheritedEffects: InheritedEffectsPolicy;
}

/** Policies of `svc.authz.inherited-effects`. */
export const INHERITED_EFFECTS_POLICIES = ["approve", "allow", "deny"] as const;

/** What inherited effects of another owner do: wait for approval, run, or never dispatch. */
export type InheritedEffectsPolicy = typeof INHERITED_EFFECTS_POLICIES[number];

/** The defaults of SPEC.md "Limits". */
export const DEFAULT_CONFIG: Readonly<EngineConfig> = Object.freeze({
  maxModels: 1000,
  mutationQueueSize: 10,
  historyMaxEntries: 50,
  maxArrayIndex: 1_000_000,
  regexMaxInput: 100_000,
  regexTimeoutMs: 1000,
  expressionCacheSize: 10_000,
  expressionTimeoutMs: 1000,
  expressionMaxDepth: 500,
  expressionMaxItems: 200_000,
  expressionMemoryBytes: 256 * 1024 * 1024,
  maxDepth: 128,
  maxStateBytes: 16 * 1024 * 1024,
  maxSpecBytes: 1024 * 1024,
  traceBufferSize: 500,
  blobMaxBytes: 52_428_800,
  blobMaxTotalBytes: 536_870_912,
  effectKindsEnabled: null,
  compositionLazyBinding: false,
  inheritedEffects: "approve",
});

/** Every key {@link engineConfig} reads. */
export const ENGINE_KEYS: readonly string[] = [
  "svc.max-models",
  "svc.mutation-queue-size",
  "svc.history.max-entries",
  "svc.limits.max-array-index",
  "svc.limits.regex-max-input",
  "svc.limits.regex-timeout-ms",
  "svc.limits.expression-cache-size",
  "svc.limits.expression-timeout-ms",
  "svc.limits.expression-max-depth",
  "svc.limits.expression-max-items",
  "svc.limits.expression-memory-bytes",
  "svc.limits.max-depth",
  "svc.limits.max-state-bytes",
  "svc.limits.max-spec-bytes",
  "svc.blob.max-bytes",
  "svc.blob.max-total-bytes",
  "svc.effects.kinds.enabled",
  "svc.composition.lazy-binding",
  "svc.authz.inherited-effects",
];

/** The environment variable of a key: upper-cased, dots and dashes to underscores. */
export function envName(key: string): string {
  return key.toUpperCase().replace(/[.-]/g, "_");
}

/** A configured value as a failure quotes it: cut short, a 100 kB variable would flood the terminal. */
export const shownValue = (raw: string): string => `'${quoted(raw, MAX_QUOTED_WORD)}'`;

/**
 * Reads an integer key written in plain decimal (`-` allowed; a limit refuses
 * negatives itself), failing loudly on anything else.
 */
export function readInt(lookup: ConfigLookup, key: string, fallback: number): number {
  const raw = lookup(key)?.trim();
  if (raw === undefined || raw === "") return fallback;
  // Number() also reads 0x10, 1e3 and 12.0: a rate limit of 1e3 would be a silent reinterpretation.
  const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  // Past 2^53 a number is no longer exact (and 1e20 ms overflows a database's bigint).
  if (!Number.isSafeInteger(value)) {
    throw new Error(
      `Configuration ${key} (${envName(key)}) must be an integer${
        Number.isInteger(value) ? ` of at most ${Number.MAX_SAFE_INTEGER}` : ""
      }, got ${shownValue(raw)}`,
    );
  }
  return value;
}

/**
 * Reads a limit: an integer of at least `min` (1 unless said) and at most
 * `max`. A zero or negative limit would disable its guard, so it aborts
 * startup naming the key.
 */
export function readLimit(
  lookup: ConfigLookup,
  key: string,
  fallback: number,
  { min = 1, max = Number.MAX_SAFE_INTEGER }: { min?: number; max?: number } = {},
): number {
  const value = readInt(lookup, key, fallback);
  if (value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `${min}..${max}`;
    throw new Error(`Configuration ${key} (${envName(key)}) must be ${range}, got ${value}`);
  }
  return value;
}

/** Deepest `svc.limits.max-depth` and `expression-max-depth`: recursive walks stay far from the stack limit. */
export const MAX_NESTING_LIMIT = 1000;

/** Reads a boolean key (`true`/`false`). */
export function readBool(lookup: ConfigLookup, key: string, fallback: boolean): boolean {
  const raw = lookup(key)?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw new Error(`Configuration ${key} (${envName(key)}) must be true or false, got ${shownValue(raw)}`);
}

/** Reads a comma-separated list key; `null` when unset. */
export function readList(lookup: ConfigLookup, key: string): string[] | null {
  const raw = lookup(key)?.trim();
  if (raw === undefined || raw === "") return null;
  return raw.split(",").map((s) => s.trim()).filter(Boolean);
}

/** Builds the engine configuration from a key lookup; a limit out of range aborts naming its key. */
export function engineConfig(lookup: ConfigLookup = () => undefined): EngineConfig {
  const d = DEFAULT_CONFIG;
  const limit = (key: string, fallback: number, range?: { min?: number; max?: number }) =>
    readLimit(lookup, key, fallback, range);
  const nesting = { max: MAX_NESTING_LIMIT };
  return {
    maxModels: limit("svc.max-models", d.maxModels),
    mutationQueueSize: limit("svc.mutation-queue-size", d.mutationQueueSize),
    historyMaxEntries: limit("svc.history.max-entries", d.historyMaxEntries, { min: 0 }),
    maxArrayIndex: limit("svc.limits.max-array-index", d.maxArrayIndex, { min: 0 }),
    regexMaxInput: limit("svc.limits.regex-max-input", d.regexMaxInput),
    regexTimeoutMs: limit("svc.limits.regex-timeout-ms", d.regexTimeoutMs),
    expressionCacheSize: limit("svc.limits.expression-cache-size", d.expressionCacheSize),
    expressionTimeoutMs: limit("svc.limits.expression-timeout-ms", d.expressionTimeoutMs),
    expressionMaxDepth: limit("svc.limits.expression-max-depth", d.expressionMaxDepth, nesting),
    expressionMaxItems: limit("svc.limits.expression-max-items", d.expressionMaxItems),
    expressionMemoryBytes: limit("svc.limits.expression-memory-bytes", d.expressionMemoryBytes),
    maxDepth: limit("svc.limits.max-depth", d.maxDepth, nesting),
    maxStateBytes: limit("svc.limits.max-state-bytes", d.maxStateBytes),
    maxSpecBytes: limit("svc.limits.max-spec-bytes", d.maxSpecBytes),
    traceBufferSize: d.traceBufferSize,
    blobMaxBytes: limit("svc.blob.max-bytes", d.blobMaxBytes),
    blobMaxTotalBytes: readInt(lookup, "svc.blob.max-total-bytes", d.blobMaxTotalBytes),
    effectKindsEnabled: readList(lookup, "svc.effects.kinds.enabled"),
    compositionLazyBinding: readBool(lookup, "svc.composition.lazy-binding", d.compositionLazyBinding),
    inheritedEffects: readChoice(
      lookup,
      "svc.authz.inherited-effects",
      INHERITED_EFFECTS_POLICIES,
      d.inheritedEffects,
    ),
  };
}

/** Reads a key that takes one of `choices` (case-insensitive; blank or unset gives `fallback`). */
export function readChoice<T extends string>(
  lookup: ConfigLookup,
  key: string,
  choices: readonly T[],
  fallback: T,
): T {
  const raw = lookup(key)?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (!choices.includes(raw as T)) {
    throw new Error(
      `Configuration ${key} (${envName(key)}) must be one of ${choices.join(", ")}, got ${shownValue(raw)}`,
    );
  }
  return raw as T;
}
