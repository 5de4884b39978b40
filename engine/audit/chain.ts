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
  return hasher.sha256Hex(prevHash + "\n" + canonicalBody(body));
}

/** A body's members in canonical (code unit) order, and a trace's. */
const BODY_KEYS = [
  "derivedUpdated",
  "dispatchedEffects",
  "flaggedConstraints",
  "modelId",
  "modelVersion",
  "mutations",
  "sequence",
  "source",
  "timestamp",
  "traces",
] as const;
const TRACE_KEYS = [
  "constraintPassed",
  "errorMessage",
  "expression",
  "inputPaths",
  "result",
  "targetPath",
] as const;

/** Whether `value` is an object with exactly `keys`, none undefined. */
function hasExactly(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (Object.keys(value).length !== keys.length) return false;
  for (const key of keys) if ((value as Record<string, unknown>)[key] === undefined) return false;
  return true;
}

/**
 * `canonicalJson(body)`, written member by member in the fixed order of a
 * body the service seals, without sorting the keys of every object again for
 * each record (canonical JSON was the largest part of sealing). Anything else
 * (a record read back with members added or missing) goes the general way.
 */
function canonicalBody(body: AuditBody): string {
  if (!hasExactly(body, BODY_KEYS) || !Array.isArray(body.traces)) return canonicalJson(body);
  let traces = "[";
  for (let i = 0; i < body.traces.length; i++) {
    const trace = body.traces[i];
    if (!hasExactly(trace, TRACE_KEYS)) return canonicalJson(body);
    if (i > 0) traces += ",";
    traces += "{";
    for (let k = 0; k < TRACE_KEYS.length; k++) {
      traces += (k > 0 ? ',"' : '"') + TRACE_KEYS[k] + '":' + canonicalJson(trace[TRACE_KEYS[k]]);
    }
    traces += "}";
  }
  traces += "]";
  let out = "{";
  for (let k = 0; k < BODY_KEYS.length; k++) {
    const key = BODY_KEYS[k];
    out += (k > 0 ? ',"' : '"') + key + '":' + (key === "traces" ? traces : canonicalJson(body[key]));
  }
  return out + "}";
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
