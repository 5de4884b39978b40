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
import { canonicalJson, stringifiesCanonically } from "../json/canonical.ts";
import { type Json, setMember } from "../json/value.ts";
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

/** Computes the hash of a record body chained to `prevHash`: at once where the hasher can. */
export function hashRecord(body: AuditBody, prevHash: string, hasher: Hasher): string | Promise<string> {
  const text = prevHash + "\n" + canonicalBody(body);
  return hasher.sha256HexNow?.(text) ?? hasher.sha256Hex(text);
}

/** The members of a sealed body, in canonical (code-unit) order. */
const BODY_MEMBERS = [
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
] as const satisfies readonly (keyof AuditBody)[];

/**
 * `canonicalJson(body)`, for a body of the shape the service seals: its members
 * and its traces' are copied into objects built in canonical order, and when
 * every member's value already is canonical as `JSON.stringify` writes it (a
 * write's usual paths and scalars), one native serialisation writes the text
 * (canonical JSON was the largest part of sealing). A member that is not (a
 * write's `mutations` in the writer's key order, say) is written the general
 * way on its own, the others still natively. Anything else (a record read back
 * with members added, missing or `undefined`) goes the general way whole.
 */
function canonicalBody(body: AuditBody): string {
  const asIs = stringifiesCanonically;
  const traces = body.traces;
  if (!hasMembers(body, 10) || !Array.isArray(traces)) return canonicalJson(body);
  const ordered = new Array<TraceRecord>(traces.length);
  let tracesAsIs = true;
  for (let i = 0; i < traces.length; i++) {
    const trace = traces[i];
    if (!hasMembers(trace, 6)) return canonicalJson(body);
    ordered[i] = {
      constraintPassed: trace.constraintPassed,
      errorMessage: trace.errorMessage,
      expression: trace.expression,
      inputPaths: trace.inputPaths,
      result: trace.result,
      targetPath: trace.targetPath,
    };
    tracesAsIs &&= asIs(trace.constraintPassed) && asIs(trace.errorMessage) && asIs(trace.expression) &&
      asIs(trace.inputPaths) && asIs(trace.result) && asIs(trace.targetPath);
  }
  const members: AuditBody = {
    derivedUpdated: body.derivedUpdated,
    dispatchedEffects: body.dispatchedEffects,
    flaggedConstraints: body.flaggedConstraints,
    modelId: body.modelId,
    modelVersion: body.modelVersion,
    mutations: keysInOrder(body.mutations),
    sequence: body.sequence,
    source: body.source,
    timestamp: body.timestamp,
    traces: ordered,
  };
  if (
    tracesAsIs && asIs(members.derivedUpdated) && asIs(members.dispatchedEffects) &&
    asIs(members.flaggedConstraints) && asIs(members.modelId) && asIs(members.modelVersion) &&
    asIs(members.mutations) && asIs(members.sequence) && asIs(members.source) && asIs(members.timestamp)
  ) return JSON.stringify(members);
  let out = "{";
  for (const name of BODY_MEMBERS) {
    const value = members[name];
    // An undefined member is left out by canonical JSON (and the member count no longer says the shape).
    if (value === undefined) return canonicalJson(body);
    const native = name === "traces" ? tracesAsIs : asIs(value);
    // Traces the general way are the body's own: a copy holds the six names, a trace may hold others instead.
    out += (out.length > 1 ? ',"' : '"') + name + '":' +
      (native ? JSON.stringify(value) : canonicalJson(name === "traces" ? traces : value));
  }
  return out + "}";
}

/**
 * An object with its keys in code-unit order: itself when they are, else a
 * copy (a write's addresses come in the writer's order). Index-like keys, which
 * JavaScript enumerates first whatever the order, stay out of order and leave
 * the value to the general serialisation.
 */
function keysInOrder(value: Json): Json {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] < keys[i]) continue;
    const copy: Record<string, Json> = {};
    for (const key of keys.sort()) setMember(copy, key, value[key]);
    return copy;
  }
  return value;
}

/** Whether `value` is a non-array object with `count` own members. */
function hasMembers(value: unknown, count: number): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    Object.keys(value).length === count;
}

/** What a stored log entry replays (`LogEntry` in engine/service/ports.ts). */
export interface LoggedWrite {
  /** Epoch milliseconds of the commit. */
  at: number;
  source: string;
  request: Json;
}

/**
 * Why a stored log entry disagrees with the audit record its commit wrote
 * beside it, or `null` when they agree. A store replays the entry but hashes
 * (and signs) only the record, so an entry altered on its own (its request, its
 * source, its time, which `$now()` sees) would change the state while the chain
 * still verified; a store that keeps the two together calls this before
 * replaying (and treats a disagreement as damage: nothing is replayed). A record
 * that cannot be read counts as a disagreement: nothing vouches for the entry.
 */
export function loggedWriteDisagreement(write: LoggedWrite, record: unknown): string | null {
  const audit = record as AuditRecord;
  if (audit === null || typeof audit !== "object" || !Number.isInteger(audit.sequence)) {
    return "its audit record is unreadable";
  }
  const at = Number.isFinite(write.at) ? new Date(write.at).toISOString() : String(write.at);
  const differs = [
    write.source !== audit.source && "source",
    at !== audit.timestamp && "time",
    // The record holds the request as committed; `JSON.stringify` agrees unless key order differs.
    (audit.mutations === undefined ||
      JSON.stringify(write.request) !== JSON.stringify(audit.mutations) &&
        canonicalJson(write.request) !== canonicalJson(audit.mutations)) && "request",
  ].filter((name) => name !== false);
  return differs.length
    ? `its ${
      differs.join(", ")
    } disagrees with audit record ${audit.sequence} (the entry or the record was altered)`
    : null;
}

/**
 * Seals a body into a chained record, signed when a signer is given: at once
 * when the hasher hashes at once and nothing signs (a write's usual seal).
 */
export function sealRecord(
  body: AuditBody,
  prevHash: string,
  hasher: Hasher,
  signer?: AuditSigner,
): AuditRecord | Promise<AuditRecord> {
  const hash = hashRecord(body, prevHash, hasher);
  if (!signer && !(hash instanceof Promise)) return { ...body, prevHash, hash };
  return signed(body, prevHash, hash, signer);
}

/** The record once its hash is known, signed when a signer is given. */
async function signed(
  body: AuditBody,
  prevHash: string,
  hashing: string | Promise<string>,
  signer?: AuditSigner,
): Promise<AuditRecord> {
  const hash = await hashing;
  const record: AuditRecord = { ...body, prevHash, hash };
  if (signer) record.signature = await signer.sign(hash);
  return record;
}

/**
 * Verifies records in stored order (ascending sequence). Detects altered
 * (content hash mismatch), reordered or deleted records (sequence or prevHash;
 * a deletion names the missing sequence). With a signer, every signature must
 * verify and the newest record must be signed, so a chain rewritten whole by
 * someone without the key fails; so does an untouched chain last written before
 * the key was set (the store cannot tell the two apart), and the detail says so.
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
      return broken(signer.badSignatureDetail(i));
    }
    prevHash = hash;
  }
  const head = records[records.length - 1];
  if (signer && head && head.signature === undefined) {
    // Never valid (a stripped signature looks the same); the signer says what the store can tell.
    return {
      valid: false,
      recordsChecked: records.length,
      firstBrokenSequence: head.sequence,
      detail: signer.unsignedHeadDetail(records),
    };
  }
  return { valid: true, recordsChecked: records.length, firstBrokenSequence: null, detail: "ok" };
}
