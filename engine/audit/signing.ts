/**
 * Signed chain heads: with `svc.audit.signing-key` set, every audit record
 * carries an Ed25519 signature (WebCrypto) of its hash, outside the hashed
 * body. A hash chain alone is detectably altered only by someone who cannot
 * recompute it; whoever can write the store can rewrite the whole chain
 * consistently. The signature closes that: without the key a rewritten head
 * cannot be signed, so verification fails (see README "Audit trail", threat
 * model).
 *
 * @module
 */

/** Signs and checks record hashes. */
export interface AuditSigner {
  /** The base64 signature of a record hash. */
  sign(hash: string): Promise<string>;
  /** Whether `signature` is this key's signature of `hash`. */
  verify(hash: string, signature: string): Promise<boolean>;
  /**
   * Why a chain whose newest record is unsigned fails verification, in the
   * words of what the store can tell apart (it lives with the signer, so a
   * bundle without signing keys, the browser's, carries none of it).
   */
  unsignedHeadDetail(records: readonly SignedRecord[]): string;
  /** Why the record at `sequence` fails verification when its signature does not check. */
  badSignatureDetail(sequence: number): string;
  /** This key's public key, base64 of its 32 bytes (logged, so a replaced key can be listed as retired). */
  publicKey: string;
}

/** What {@link AuditSigner.unsignedHeadDetail} reads of a record. */
export interface SignedRecord {
  sequence: number;
  signature?: string;
}

function unsignedHeadDetail(records: readonly SignedRecord[]): string {
  const head = records[records.length - 1];
  const signed = records.findLast((record) => record.signature !== undefined);
  return signed
    ? `sequence ${head.sequence}: the chain head is not signed, though sequence ${signed.sequence} is: ` +
      `the records after it were written without the signing key (the chain rewritten from there, ` +
      `or written while svc.audit.signing-key was unset)`
    : `sequence ${head.sequence}: the chain head is not signed, nor is any record: the chain was last ` +
      `written before svc.audit.signing-key was set, or rewritten whole without the key; the model's ` +
      `next write signs a new head, whose signature then vouches for every record before it (check them first)`;
}

function badSignatureDetail(sequence: number): string {
  return `sequence ${sequence}: signature does not verify: the record was rewritten without the signing key, ` +
    "or signed by an earlier svc.audit.signing-key (list that key's public key, which the server logged at " +
    "startup while it signed with it, in svc.audit.retired-public-keys)";
}

/** The DER prefix that wraps a 32-byte Ed25519 seed into PKCS #8. */
const PKCS8_ED25519_PREFIX = [
  0x30,
  0x2e,
  0x02,
  0x01,
  0x00,
  0x30,
  0x05,
  0x06,
  0x03,
  0x2b,
  0x65,
  0x70,
  0x04,
  0x22,
  0x04,
  0x20,
];

function fromBase64(text: string): Uint8Array {
  const binary = atob(text.trim().replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function toBase64(bytes: ArrayBuffer): string {
  return btoa(String.fromCharCode(...new Uint8Array(bytes)));
}

/**
 * An Ed25519 signer from a key: base64 of a 32-byte seed, or of a PKCS #8
 * private key. The error never repeats the key. Signatures of the `retired`
 * keys (base64 of their 32-byte public keys: earlier signing keys) verify too;
 * the records name no key, so each is tried.
 */
export async function ed25519Signer(key: string, retired: readonly string[] = []): Promise<AuditSigner> {
  let raw: Uint8Array;
  try {
    raw = fromBase64(key);
  } catch {
    throw new Error("the audit signing key must be base64 (a 32-byte Ed25519 seed or a PKCS #8 key)");
  }
  const pkcs8 = raw.length === 32 ? new Uint8Array([...PKCS8_ED25519_PREFIX, ...raw]) : raw;
  let privateKey: CryptoKey;
  try {
    privateKey = await crypto.subtle.importKey("pkcs8", pkcs8 as BufferSource, { name: "Ed25519" }, true, [
      "sign",
    ]);
  } catch {
    throw new Error("the audit signing key is not an Ed25519 key (a 32-byte seed or PKCS #8, base64)");
  }
  const { x } = await crypto.subtle.exportKey("jwk", privateKey);
  const ownPublic = fromBase64(x!);
  const publicKeys = await Promise.all(
    [ownPublic, ...retired.map(fromBase64)].map((raw) =>
      crypto.subtle.importKey("raw", raw as BufferSource, { name: "Ed25519" }, false, ["verify"])
    ),
  );
  const data = (hash: string) => new TextEncoder().encode(hash) as BufferSource;
  return {
    unsignedHeadDetail,
    badSignatureDetail,
    publicKey: toBase64(ownPublic.buffer as ArrayBuffer),
    async sign(hash) {
      return toBase64(await crypto.subtle.sign({ name: "Ed25519" }, privateKey, data(hash)));
    },
    async verify(hash, signature) {
      for (const publicKey of publicKeys) {
        try {
          if (
            await crypto.subtle.verify(
              { name: "Ed25519" },
              publicKey,
              fromBase64(signature) as BufferSource,
              data(hash),
            )
          ) {
            return true;
          }
        } catch {
          // A malformed signature verifies under no key.
        }
      }
      return false;
    },
  };
}
