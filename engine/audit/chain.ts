/**
 * The audit trail: one record per committed cycle, hash-chained with SHA-256
 * over canonical JSON, and a verifier that names the first broken record.
 *
 * `hash = hex(SHA-256(prevHash + "\n" + canonical(record without prevHash and hash)))`;
 * the first record's `prevHash` is 64 zeros.
 *
 * @module
 */
import type { AuditSigner } from "./signing.ts";
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
  /** Ed25519 signature of `hash` (base64) when `svc.audit.signing-key` is set; not part of the hashed body. */
  signature?: string;
}

/** The record before sealing. */
export type AuditBody = Omit<AuditRecord, "prevHash" | "hash" | "signature">;

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

/** Seals a body into a chained record, signed when a signer is given. */
export async function sealRecord(
  body: AuditBody,
  prevHash: string,
  hasher: Hasher,
  signer?: AuditSigner,
): Promise<AuditRecord> {
  const hash = await hashRecord(body, prevHash, hasher);
  return { ...body, prevHash, hash, ...(signer ? { signature: await signer.sign(hash) } : {}) };
}

/**
 * Verifies records in stored order (ascending sequence). Detects altered
 * (content hash mismatch), reordered or deleted records (sequence or prevHash;
 * a deletion names the missing sequence). With a signer, every signature must
 * verify and the newest record must be signed, so a chain rewritten whole by
 * someone without the key fails.
 */
export async function verifyChain(
  records: readonly AuditRecord[],
  hasher: Hasher,
  signer?: AuditSigner,
): Promise<AuditVerification> {
  let prevHash = GENESIS_HASH;
  for (let i = 0; i < records.length; i++) {
    const { prevHash: storedPrev, hash, signature, ...body } = records[i];
    const broken = (detail: string): AuditVerification => ({
      valid: false,
      recordsChecked: i + 1,
      firstBrokenSequence: typeof body.sequence === "number" ? body.sequence : i,
      detail,
    });
    if (typeof body.sequence === "number" && body.sequence > i && !records.some((r) => r.sequence === i)) {
      return {
        ...broken(`sequence ${i} is missing: the record was deleted (the next stored is ${body.sequence})`),
        firstBrokenSequence: i,
      };
    }
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
    if (signer && signature !== undefined && !(await signer.verify(hash, signature))) {
      return broken(
        `sequence ${i}: signature does not verify (the record was rewritten without the signing key)`,
      );
    }
    prevHash = hash;
  }
  const head = records[records.length - 1];
  if (signer && head && head.signature === undefined) {
    return {
      valid: false,
      recordsChecked: records.length,
      firstBrokenSequence: head.sequence,
      detail: `sequence ${head.sequence}: the chain head is not signed (rewritten without the signing key?)`,
    };
  }
  return { valid: true, recordsChecked: records.length, firstBrokenSequence: null, detail: "ok" };
}
