/**
 * Audit records as durable stores read them back: an unreadable record, or
 * one deleted after the newest head a store remembers, becomes a placeholder
 * that never verifies, so `GET …/audit/verify` names it and new records never
 * reuse its sequence. Shared by the KV, filesystem and PostgreSQL stores.
 *
 * @module
 */
import type { AuditRecord } from "../../engine/audit/chain.ts";

/** The newest audit record's sequence and hash, as a store keeps it beside the trail. */
export interface AuditHead {
  sequence: number;
  hash: string;
}

/** Whether a stored value is an audit head. */
export function isAuditHead(value: unknown): value is AuditHead {
  const head = value as AuditHead;
  return head !== null && typeof head === "object" && Number.isInteger(head.sequence) &&
    typeof head.hash === "string";
}

/** A record standing for one that is unreadable or missing; it never verifies. */
export function placeholderAudit(
  modelId: string,
  sequence: number,
  prevHash: string,
  hash: string,
): AuditRecord {
  return {
    modelId,
    sequence,
    timestamp: new Date(0).toISOString(),
    modelVersion: "",
    source: "client",
    mutations: null,
    derivedUpdated: [],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces: [],
    prevHash,
    hash,
  };
}

/** A stored record's JSON text read back, or a placeholder with its stored sequence when unreadable. */
export function parseAudit(
  modelId: string,
  sequence: number,
  text: string | null,
  prevHash: string,
): AuditRecord {
  let value: unknown = null;
  try {
    value = text !== null && JSON.parse(text);
  } catch {
    // the placeholder below
  }
  return auditOfValue(modelId, sequence, value, prevHash);
}

/** A stored record's parsed JSON, or a placeholder with its stored sequence when it is not a record. */
export function auditOfValue(
  modelId: string,
  sequence: number,
  value: unknown,
  prevHash: string,
): AuditRecord {
  const record = value as AuditRecord;
  return record && typeof record === "object" && typeof record.sequence === "number" &&
      typeof record.hash === "string"
    ? record
    : placeholderAudit(modelId, sequence, prevHash, "");
}

/** The newest record, or a placeholder after it when the head says newer ones were written (and deleted). */
export function lastWithHead(
  modelId: string,
  last: AuditRecord | null,
  head: AuditHead | null,
): AuditRecord | null {
  if (head && (!last || head.sequence > last.sequence)) {
    return placeholderAudit(modelId, head.sequence, "", head.hash);
  }
  return last;
}

/** A whole trail, with a placeholder appended when records after the newest one left (verification names it). */
export function trailWithHead(modelId: string, trail: AuditRecord[], head: AuditHead | null): AuditRecord[] {
  const next = (trail.at(-1)?.sequence ?? -1) + 1;
  if (head && head.sequence >= next) trail.push(placeholderAudit(modelId, next, "", ""));
  return trail;
}
