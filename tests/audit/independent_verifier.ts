/**
 * An auditor's verifier of a model's audit trail, written from README "Audit trail" and
 * DECISIONS.md only, sharing no code with the service (engine/audit is not imported): it
 * reads the records over REST (paging with `before`) or MCP `get_audit`, recomputes each
 * hash from the documented canonical form and checks the chain and, given the public key,
 * every signature. Its tests keep the documented format from drifting.
 *
 * @module
 */

/** An audit record as served; only the members the chain needs are named. */
export interface ServedAuditRecord {
  sequence: number;
  prevHash: string;
  hash: string;
  signature?: string;
  [member: string]: unknown;
}

/** What the auditor concluded. */
export interface AuditorVerdict {
  valid: boolean;
  recordsChecked: number;
  /** The first sequence whose record does not check, `null` when all do. */
  firstBrokenSequence: number | null;
  detail: string;
}

/** The first record's `prevHash`: 64 zeros (DECISIONS.md). */
export const GENESIS_PREV_HASH = "0".repeat(64);

/**
 * DECISIONS.md's canonical JSON: object keys sorted, no whitespace, UTF-8. Keys sort by
 * UTF-16 code units (JavaScript's default sort; the README says so), strings and numbers
 * are written as JSON.stringify writes them.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const members = Object.keys(value).sort().map((key) =>
    `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`
  );
  return `{${members.join(",")}}`;
}

function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** `hex(SHA-256(prevHash + "\n" + canonical(record without prevHash, hash and signature)))`. */
export async function recomputeHash(record: ServedAuditRecord): Promise<string> {
  const { prevHash, hash: _hash, signature: _signature, ...body } = record;
  const text = `${prevHash}\n${canonicalJson(body)}`;
  return hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** The README's signature: Ed25519 over the record's `hash` (its hex text, UTF-8), base64. */
export function checkSignature(record: ServedAuditRecord, publicKey: CryptoKey): Promise<boolean> {
  const signature = Uint8Array.from(atob(record.signature ?? ""), (c) => c.charCodeAt(0));
  return crypto.subtle.verify("Ed25519", publicKey, signature, new TextEncoder().encode(record.hash));
}

/**
 * Checks a whole trail given newest first, as the service serves it (the order is checked
 * too: a reordered store serves its records out of order). With `publicKey`, every
 * signature present must check and the newest record must be signed (README "Signed chain
 * heads"). With `keptHead` (the newest `sequence` and `hash` an auditor kept outside the
 * store), that record must still be there.
 */
export async function verifyTrail(
  newestFirst: readonly ServedAuditRecord[],
  publicKey?: CryptoKey,
  keptHead?: { sequence: number; hash: string },
): Promise<AuditorVerdict> {
  const chain = [...newestFirst].reverse();
  const broken = (index: number, sequence: number, detail: string): AuditorVerdict => ({
    valid: false,
    recordsChecked: index,
    firstBrokenSequence: sequence,
    detail: `sequence ${sequence}: ${detail}`,
  });
  let prevHash = GENESIS_PREV_HASH;
  for (let index = 0; index < chain.length; index++) {
    const record = chain[index];
    if (record.sequence !== index) {
      return chain.some((other) => other.sequence === index)
        ? broken(index, record.sequence, `out of order, at position ${index}`)
        : broken(index, index, "missing (deleted)");
    }
    if (record.prevHash !== prevHash) return broken(index, index, "prevHash is not the previous hash");
    if (await recomputeHash(record) !== record.hash) return broken(index, index, "content hash mismatch");
    if (publicKey && record.signature !== undefined && !await checkSignature(record, publicKey)) {
      return broken(index, index, "signature does not check");
    }
    prevHash = record.hash;
  }
  const head = chain.at(-1);
  if (publicKey && head && head.signature === undefined) {
    return broken(chain.length - 1, head.sequence, "the head is not signed");
  }
  // A truncation of the newest commits leaves a consistent chain: only a head kept elsewhere tells.
  if (keptHead && chain[keptHead.sequence]?.hash !== keptHead.hash) {
    return broken(chain.length, keptHead.sequence, `the kept head ${keptHead.hash} is not in the trail`);
  }
  return {
    valid: true,
    recordsChecked: chain.length,
    firstBrokenSequence: null,
    detail: "ok",
  };
}

/**
 * The public key of a `svc.audit.signing-key` that is a base64 32-byte seed, derived as the
 * README says: the seed behind the PKCS #8 prefix, imported, exported as JWK, its `x`.
 */
export async function publicKeyOfSeed(seedBase64: string): Promise<CryptoKey> {
  const prefix = "302e020100300506032b657004220420".match(/../g)!.map((byte) => parseInt(byte, 16));
  const seed = Uint8Array.from(atob(seedBase64), (c) => c.charCodeAt(0));
  const pkcs8 = new Uint8Array([...prefix, ...seed]);
  const privateKey = await crypto.subtle.importKey("pkcs8", pkcs8, "Ed25519", true, ["sign"]);
  const { x } = await crypto.subtle.exportKey("jwk", privateKey);
  return crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x }, "Ed25519", false, ["verify"]);
}

/** Every record of a model over REST, newest first pages of `pageSize`, `before` as cursor. */
export async function fetchTrailOverRest(
  base: string,
  modelId: string,
  pageSize = 3,
): Promise<ServedAuditRecord[]> {
  const records: ServedAuditRecord[] = [];
  let before: number | undefined;
  for (;;) {
    const query = `limit=${pageSize}${before === undefined ? "" : `&before=${before}`}`;
    const response = await fetch(`${base}/models/${encodeURIComponent(modelId)}/audit?${query}`);
    if (!response.ok) throw new Error(`audit read: ${response.status} ${await response.text()}`);
    const page = await response.json() as ServedAuditRecord[];
    records.push(...page);
    if (page.length < pageSize) return records;
    before = page.at(-1)!.sequence;
  }
}

/** One MCP tool call over HTTP (`initialize`, then `tools/call`), its structured result. */
export async function callMcpTool(
  base: string,
  name: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const post = (body: unknown, session?: string) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(session ? { "mcp-session-id": session } : {}),
      },
      body: JSON.stringify(body),
    });
  const init = await post({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-03-26",
      capabilities: {},
      clientInfo: { name: "auditor", version: "1" },
    },
  });
  const session = init.headers.get("mcp-session-id") ?? undefined;
  await init.body?.cancel();
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).body?.cancel();
  const answer = await post({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name, arguments: args },
  }, session);
  const reply = await answer.json();
  const result = reply.result;
  if (!result || result.isError) throw new Error(`${name}: ${JSON.stringify(reply)}`);
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

/** Every record of a model through MCP `get_audit`. */
export async function fetchTrailOverMcp(base: string, modelId: string): Promise<ServedAuditRecord[]> {
  const records = await callMcpTool(base, "get_audit", { id: modelId, limit: 10000 }) as
    | ServedAuditRecord[]
    | { records: ServedAuditRecord[] };
  return Array.isArray(records) ? records : records.records;
}
