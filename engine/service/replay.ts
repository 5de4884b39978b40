/**
 * Stored commits replayed through the pipeline: a model's log at load, and
 * the commits other processes sharing the store made since this one last
 * looked. Each is evaluated at its own logged instant, so `$now()` and the
 * effects' status times come out exactly as committed.
 *
 * @module
 */
import type { Json } from "../json/value.ts";
import { toPlain } from "../json/wide_object.ts";
import type { CycleOutcome, ModelState, PatchOperation } from "../runtime/results.ts";
import type { ModelRuntime } from "../runtime/runtime.ts";
import type { LoadedModel, LogEntry, PersistedState } from "./ports.ts";

/** Evaluates one logged commit against the runtime's current state (not yet committed). */
export function evaluateLogged(runtime: ModelRuntime, entry: LogEntry): Promise<CycleOutcome | null> {
  return entry.source === "patch"
    ? runtime.evaluatePatch(entry.request as unknown as PatchOperation[], entry.at, { replay: true })
    : runtime.evaluateMutation(entry.request as Record<string, Json>, entry.source, entry.at, {
      replay: true,
    });
}

/**
 * Rebuilds a stored state: the base (kept as the oldest history entry when it
 * was a post-commit state), then every logged commit replayed at its time.
 */
export async function replayStored(
  runtime: ModelRuntime,
  base: PersistedState,
  stored: LoadedModel,
): Promise<void> {
  runtime.replaceState(toModelState(base), { clearHistory: true, retainAt: stored.baseAt ?? undefined });
  for (const entry of stored.log) {
    const outcome = await evaluateLogged(runtime, entry);
    if (outcome) runtime.commit(outcome, entry.at);
  }
}

/**
 * Converts a runtime state to its persisted form: plain JSON, since a store may
 * structure-clone it (IndexedDB does), which a wide object's version cannot be.
 */
export function toPersisted(state: ModelState): PersistedState {
  return { doc: toPlain(state.doc), meta: [...state.meta], stale: [...state.stale] };
}

/** Converts a persisted state back. */
export function toModelState(state: PersistedState): ModelState {
  return { doc: state.doc, meta: new Map(state.meta), stale: new Set(state.stale) };
}
