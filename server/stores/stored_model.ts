/**
 * Checks of what durable stores read back (states, log entries); shared by the
 * KV, filesystem and PostgreSQL stores. The ids they key models by need no
 * check of their own: the spec check caps them (MAX_ID_LENGTH in
 * engine/model/model_spec_schema.ts) before any store sees one.
 *
 * @module
 */
import type { LogEntry, PersistedState } from "../../engine/service/ports.ts";

const SOURCES = new Set(["client", "patch", "foldback"]);

/** Whether a stored value is a persisted state. */
export function isPersistedState(value: unknown): value is PersistedState {
  const s = value as PersistedState;
  return s !== null && typeof s === "object" && s.doc !== undefined && Array.isArray(s.meta) &&
    s.meta.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string") &&
    Array.isArray(s.stale) && s.stale.every((key) => typeof key === "string");
}

/** Whether a stored value is a log entry. */
export function isLogEntry(value: unknown): value is LogEntry {
  const e = value as LogEntry;
  return e !== null && typeof e === "object" && Number.isFinite(e.at) && SOURCES.has(e.source) &&
    e.request !== undefined;
}
