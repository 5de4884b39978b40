/**
 * Engine configuration: the `svc.*` keys the engine reads, their defaults, and
 * how a key maps to its environment variable (`svc.max-models` -> `SVC_MAX_MODELS`).
 *
 * The engine never reads the environment itself: a surface hands it a lookup.
 *
 * @module
 */

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
  /** Trace ring buffer entries per model. */
  traceBufferSize: number;
  /** `svc.blob.max-bytes`: per-blob cap. */
  blobMaxBytes: number;
  /** `svc.blob.max-total-bytes`: total in-memory blob budget (non-positive: unbounded). */
  blobMaxTotalBytes: number;
  /** `svc.effects.kinds.enabled`: allowed executor kinds, `null` when unset (all). */
  effectKindsEnabled: string[] | null;
}

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
  traceBufferSize: 500,
  blobMaxBytes: 52_428_800,
  blobMaxTotalBytes: 536_870_912,
  effectKindsEnabled: null,
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
  "svc.blob.max-bytes",
  "svc.blob.max-total-bytes",
  "svc.effects.kinds.enabled",
];

/** The environment variable of a key: upper-cased, dots and dashes to underscores. */
export function envName(key: string): string {
  return key.toUpperCase().replace(/[.-]/g, "_");
}

/** Reads an integer key, failing loudly on a malformed value. */
export function readInt(lookup: ConfigLookup, key: string, fallback: number): number {
  const raw = lookup(key)?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) {
    throw new Error(`Configuration ${key} (${envName(key)}) must be an integer, got '${raw}'`);
  }
  return value;
}

/** Reads a boolean key (`true`/`false`). */
export function readBool(lookup: ConfigLookup, key: string, fallback: boolean): boolean {
  const raw = lookup(key)?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw new Error(`Configuration ${key} (${envName(key)}) must be true or false, got '${raw}'`);
}

/** Reads a comma-separated list key; `null` when unset. */
export function readList(lookup: ConfigLookup, key: string): string[] | null {
  const raw = lookup(key)?.trim();
  if (raw === undefined || raw === "") return null;
  return raw.split(",").map((s) => s.trim()).filter(Boolean);
}

/** Builds the engine configuration from a key lookup. */
export function engineConfig(lookup: ConfigLookup = () => undefined): EngineConfig {
  return {
    maxModels: readInt(lookup, "svc.max-models", DEFAULT_CONFIG.maxModels),
    mutationQueueSize: readInt(lookup, "svc.mutation-queue-size", DEFAULT_CONFIG.mutationQueueSize),
    historyMaxEntries: readInt(lookup, "svc.history.max-entries", DEFAULT_CONFIG.historyMaxEntries),
    maxArrayIndex: readInt(lookup, "svc.limits.max-array-index", DEFAULT_CONFIG.maxArrayIndex),
    regexMaxInput: readInt(lookup, "svc.limits.regex-max-input", DEFAULT_CONFIG.regexMaxInput),
    regexTimeoutMs: readInt(lookup, "svc.limits.regex-timeout-ms", DEFAULT_CONFIG.regexTimeoutMs),
    expressionCacheSize: readInt(
      lookup,
      "svc.limits.expression-cache-size",
      DEFAULT_CONFIG.expressionCacheSize,
    ),
    expressionTimeoutMs: readInt(
      lookup,
      "svc.limits.expression-timeout-ms",
      DEFAULT_CONFIG.expressionTimeoutMs,
    ),
    expressionMaxDepth: readInt(
      lookup,
      "svc.limits.expression-max-depth",
      DEFAULT_CONFIG.expressionMaxDepth,
    ),
    traceBufferSize: DEFAULT_CONFIG.traceBufferSize,
    blobMaxBytes: readInt(lookup, "svc.blob.max-bytes", DEFAULT_CONFIG.blobMaxBytes),
    blobMaxTotalBytes: readInt(lookup, "svc.blob.max-total-bytes", DEFAULT_CONFIG.blobMaxTotalBytes),
    effectKindsEnabled: readList(lookup, "svc.effects.kinds.enabled"),
  };
}
