/**
 * The audit trail: one record per committed cycle, hash-chained with SHA-256
 * over canonical JSON, and a verifier that names the first broken record.
 *
 * `hash = hex(SHA-256(prevHash + "\n" + canonical(record without prevHash and hash)))`;
 * the first record's `prevHash` is 64 zeros.
 *
 * @module
 */
import { canonicalJson } from "../json/canonical.ts";
import type { Json } from "../json/value.ts";
import type { Hasher } from "../ports.ts";
import type { TraceRecord } from "../runtime/traces.ts";

/** Where a committed cycle came from. */
export type AuditSource = "client" | "patch" | "foldback";

/** One audited cycle (DECISIONS.md "Audit record"). */
export interface AuditRecord {
  modelId: string;
  sequence: number;
  timestamp: string;
  modelVersion: string;
  source: AuditSource;
  mutations: Json;
  derivedUpdated: string[];
  flaggedConstraints: string[];
  dispatchedEffects: string[];
  traces: TraceRecord[];
  prevHash: string;
  hash: string;
}

/** The record before sealing. */
export type AuditBody = Omit<AuditRecord, "prevHash" | "hash">;

/** Result of verifying a model's chain. */
export interface AuditVerification {
  valid: boolean;
  recordsChecked: number;
  firstBrokenSequence: number | null;
  detail: string;
}

/** The `prevHash` of the first record. */
export const GENESIS_HASH = "0".repeat(64);

/** Computes the hash of a record body chained to `prevHash`. */
export function hashRecord(body: AuditBody, prevHash: string, hasher: Hasher): Promise<string> {
  return hasher.sha256Hex(prevHash + "\n" + canonicalJson(body));
}

/** Seals a body into a chained record. */
export async function sealRecord(body: AuditBody, prevHash: string, hasher: Hasher): Promise<AuditRecord> {
  return { ...body, prevHash, hash: await hashRecord(body, prevHash, hasher) };
}

/**
 * Verifies records in stored order (ascending sequence). Detects altered
 * (content hash mismatch), reordered or deleted records (sequence or prevHash).
 */
export async function verifyChain(
  records: readonly AuditRecord[],
  hasher: Hasher,
): Promise<AuditVerification> {
  let prevHash = GENESIS_HASH;
  for (let i = 0; i < records.length; i++) {
    const { prevHash: storedPrev, hash, ...body } = records[i];
    const broken = (detail: string): AuditVerification => ({
      valid: false,
      recordsChecked: i + 1,
      firstBrokenSequence: typeof body.sequence === "number" ? body.sequence : i,
      detail,
    });
    if (body.sequence !== i) {
      return broken(
        `record at position ${i} is not chained: sequence ${body.sequence}, expected ${i} (a record was reordered or deleted)`,
      );
    }
    if (storedPrev !== prevHash) {
      return broken(`sequence ${i}: prevHash mismatch (a record was reordered or deleted)`);
    }
    if (await hashRecord(body, storedPrev, hasher) !== hash) {
      return broken(`sequence ${i}: content hash mismatch (the record was altered)`);
    }
    prevHash = hash;
  }
  return { valid: true, recordsChecked: records.length, firstBrokenSequence: null, detail: "ok" };
}
