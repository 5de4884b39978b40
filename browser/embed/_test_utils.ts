/**
 * Shared fixtures of the embed's unit tests. Not part of the embed script.
 *
 * @module
 */
import type { ReplaceJournal, ReplaceRecord } from "./replace_journal.ts";

/** A replacement journal in memory, its records readable. */
export function memoryJournal(): ReplaceJournal & { records: Map<string, ReplaceRecord> } {
  const records = new Map<string, ReplaceRecord>();
  return {
    where: "memory",
    records,
    read: (id) => Promise.resolve(records.get(id)),
    write: (id, record) => Promise.resolve(void records.set(id, record)),
    remove: (id) => Promise.resolve(void records.delete(id)),
  };
}
