/**
 * Checks of what durable stores read back (states, log entries) and of the
 * ids they key models by; shared by the KV, filesystem and PostgreSQL stores.
 *
 * @module
 */
import { specInvalid } from "../../engine/errors.ts";
import type { LogEntry, PersistedState } from "../../engine/service/ports.ts";

/** Longest model id (UTF-8 bytes) a durable store keeps: well inside Deno KV's 2 KiB keys and index entries. */
export const MAX_ID_BYTES = 1024;

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

/** Refuses (422, at `id`) an id longer than {@link MAX_ID_BYTES}; `backend` names the store in the message. */
export function checkStoredId(id: string, backend: string): void {
  if (new TextEncoder().encode(id).byteLength > MAX_ID_BYTES) {
    throw specInvalid([{
      location: "id",
      message: `an id stored in ${backend} is at most ${MAX_ID_BYTES} bytes`,
    }]);
  }
}
