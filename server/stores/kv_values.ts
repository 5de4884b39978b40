/**
 * How values of any size live in Deno KV (64 KiB per value): JSON as UTF-8
 * bytes cut into chunks.
 *
 * - A sequenced record (log entry, audit record) has its head at `[...prefix, seq]`
 *   (or at a longer key starting so, like the commit log's `["L", g, id, seq]`)
 *   holding its bytes, or when larger than a chunk `{n, data}` (the chunk count and
 *   the first chunk) with further chunks at `[...head key, i]`. The head is
 *   written last, in the atomic operation that commits the record, so a record is
 *   either complete or absent; chunks without a head (an interrupted write) or
 *   beyond `n` are strays that readers skip.
 * - A replaceable value (spec, base state) is stored under a fresh generation
 *   `[...prefix, gen, i]` and referenced by a {@link ValueRef} in a header, so
 *   switching to a new value is one atomic header write.
 *
 * @module
 */
import { serverHasher } from "../platform.ts";
import { CHUNK_BYTES, type KvMutation } from "./kv_database.ts";

/**
 * The head of a sequenced record: the bytes themselves when they fit one
 * chunk (stored raw, without serialization), else the chunk count and first chunk.
 */
export type RecordHead = Uint8Array | {
  /** Number of chunks, the head's included. */
  n: number;
  /** The first chunk. */
  data: Uint8Array;
};

/** Where a replaceable value's chunks are and how to check them. */
export interface ValueRef {
  gen: string;
  /** Number of chunks. */
  n: number;
  bytes: number;
  sha256: string;
}

/** A record read back: complete bytes, or `null` when chunks are missing. */
export interface StoredRecord {
  seq: number;
  bytes: Uint8Array | null;
  /** Keys the record occupies (head and chunks), for deletion. */
  keys: Deno.KvKey[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** A JSON value as UTF-8 bytes. */
export function encodeJson(value: unknown): Uint8Array {
  return encodeText(JSON.stringify(value));
}

/** UTF-8 bytes of JSON text already written. */
export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Parses UTF-8 JSON bytes; throws on malformed input. */
export function decodeJson(bytes: Uint8Array): unknown {
  return JSON.parse(decoder.decode(bytes));
}

/** Cuts bytes into chunks of at most {@link CHUNK_BYTES} (at least one, possibly empty). */
export function splitBytes(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  if (bytes.byteLength <= CHUNK_BYTES) return [bytes];
  for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_BYTES) {
    chunks.push(bytes.slice(offset, offset + CHUNK_BYTES));
  }
  return chunks;
}

/** Joins chunks. */
export function joinBytes(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((sum, c) => sum + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * The mutations storing a record at `key`: `chunks` (write first, in any unit)
 * and `head` (write last; it commits the record).
 */
export function recordMutations(
  key: Deno.KvKey,
  bytes: Uint8Array,
): { head: KvMutation; chunks: KvMutation[] } {
  // Nearly every record fits one chunk: its head is its bytes, with no chunk list to build.
  if (bytes.byteLength <= CHUNK_BYTES) return { head: { key, value: bytes }, chunks: [] };
  const parts = splitBytes(bytes);
  const head: RecordHead = { n: parts.length, data: parts[0] };
  return {
    head: { key, value: head },
    chunks: parts.slice(1).map((value, i) => ({ key: [...key, i + 1], value })),
  };
}

/** The keys a record of `n` chunks occupies. */
export function recordKeys(key: Deno.KvKey, n: number): Deno.KvKey[] {
  if (n === 1) return [key];
  return [key, ...Array.from({ length: n - 1 }, (_, i) => [...key, i + 1])];
}

/** A stored head as chunk count and first chunk; `null` when it is not a head. */
function headOf(value: unknown): { n: number; data: Uint8Array } | null {
  if (value instanceof Uint8Array) return { n: 1, data: value };
  const head = value as { n: number; data: Uint8Array };
  return head !== null && typeof head === "object" && Number.isInteger(head.n) && head.n >= 1 &&
      head.data instanceof Uint8Array
    ? head
    : null;
}

/** Assembles a record from its head and the chunks seen for it (index -> bytes). */
function assemble(
  seq: number,
  key: Deno.KvKey,
  head: unknown,
  chunks: Map<number, Uint8Array>,
): StoredRecord {
  const stored = headOf(head);
  if (!stored) return { seq, bytes: null, keys: [key, ...[...chunks.keys()].map((i) => [...key, i])] };
  const parts = [stored.data];
  for (let i = 1; i < stored.n; i++) {
    const chunk = chunks.get(i);
    if (!chunk) return { seq, bytes: null, keys: recordKeys(key, stored.n) };
    parts.push(chunk);
  }
  return { seq, bytes: joinBytes(parts), keys: recordKeys(key, stored.n) };
}

/**
 * Reads the sequenced records under `prefix` in key order (newest first with
 * `reverse`). A record's head key is the prefix and `width` parts (1 by
 * default), the first of them its sequence. Keys that belong to no record
 * (stray chunks) go to `onStray`.
 */
export async function* readRecords(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  options: { reverse?: boolean; width?: number; onStray?: (key: Deno.KvKey) => void } = {},
): AsyncGenerator<StoredRecord> {
  const depth = prefix.length;
  const headLength = depth + (options.width ?? 1);
  const stray = options.onStray ?? (() => {});
  // Forward: a head arrives before its chunks; reverse: after them.
  let pending: { seq: number; key: Deno.KvKey; head?: unknown; chunks: Map<number, Uint8Array> } | null =
    null;
  const finish = (): StoredRecord | null => {
    if (!pending) return null;
    const done = pending;
    pending = null;
    if (!("head" in done)) {
      for (const i of done.chunks.keys()) stray([...done.key, i]);
      return null;
    }
    const record = assemble(done.seq, done.key, done.head, done.chunks);
    const n = headOf(done.head)?.n ?? 0;
    for (const i of done.chunks.keys()) if (i >= n) stray([...done.key, i]);
    return record;
  };
  for await (const entry of options.reverse ? kv.list({ prefix }, { reverse: true }) : kv.list({ prefix })) {
    const seq = entry.key[depth];
    if (typeof seq !== "number" || entry.key.length < headLength || entry.key.length > headLength + 1) {
      stray(entry.key);
      continue;
    }
    if (pending && pending.seq !== seq) {
      const record = finish();
      if (record) yield record;
    }
    pending ??= { seq, key: entry.key.slice(0, headLength), chunks: new Map() };
    if (entry.key.length === headLength) {
      pending.head = entry.value;
      if (options.reverse) {
        const record = finish();
        if (record) yield record;
      }
    } else {
      const index = entry.key[headLength];
      if (typeof index === "number" && entry.value instanceof Uint8Array) {
        pending.chunks.set(index, entry.value);
      } else stray(entry.key);
    }
  }
  const record = finish();
  if (record) yield record;
}

/** Keys read per `getMany` (Deno KV's limit). */
const GET_MANY = 10;

/**
 * The bytes of records whose keys are known (from {@link recordKeys}), in
 * order; `null` for one that is gone or incomplete.
 */
export async function readRecordsAt(
  kv: Deno.Kv,
  records: readonly { keys: readonly Deno.KvKey[] }[],
): Promise<(Uint8Array | null)[]> {
  const keys = records.flatMap((record) => record.keys);
  const values: unknown[] = [];
  for (let i = 0; i < keys.length; i += GET_MANY) {
    const entries = await kv.getMany(keys.slice(i, i + GET_MANY));
    values.push(...entries.map((entry) => entry.value));
  }
  let offset = 0;
  return records.map(({ keys }) => {
    const [head, ...rest] = values.slice(offset, offset += keys.length);
    const chunks = new Map<number, Uint8Array>();
    rest.forEach((chunk, i) => chunk instanceof Uint8Array && chunks.set(i + 1, chunk));
    return assemble(0, keys[0], head, chunks).bytes;
  });
}

/**
 * The mutations storing a replaceable value (of SHA-256 `sha256`) under a new
 * generation `[...prefix, gen]`, and its reference.
 */
export function valueMutations(
  prefix: Deno.KvKey,
  bytes: Uint8Array,
  sha256: string,
): { ref: ValueRef; mutations: KvMutation[] } {
  const gen = crypto.randomUUID();
  const parts = splitBytes(bytes);
  return {
    ref: { gen, n: parts.length, bytes: bytes.byteLength, sha256 },
    mutations: parts.map((value, i) => ({ key: [...prefix, gen, i], value })),
  };
}

/** The keys of a replaceable value's chunks. */
export function valueKeys(prefix: Deno.KvKey, ref: ValueRef): Deno.KvKey[] {
  return Array.from({ length: ref.n }, (_, i) => [...prefix, ref.gen, i]);
}

/** Every generation stored under a prefix: generation id -> chunks by key order (with their keys). */
export async function readGenerations(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
): Promise<Map<string, Deno.KvEntry<unknown>[]>> {
  const generations = new Map<string, Deno.KvEntry<unknown>[]>();
  for await (const entry of kv.list({ prefix })) {
    const gen = String(entry.key[prefix.length]);
    let chunks = generations.get(gen);
    if (!chunks) generations.set(gen, chunks = []);
    chunks.push(entry);
  }
  return generations;
}

/**
 * The bytes of a replaceable value from its generation's chunks; throws a
 * message saying what is wrong when they are incomplete or altered.
 */
export async function generationBytes(
  chunks: readonly Deno.KvEntry<unknown>[] | undefined,
  ref: ValueRef,
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for (const { key, value } of chunks ?? []) {
    if (key.at(-1) !== parts.length || !(value instanceof Uint8Array)) break;
    parts.push(value);
  }
  if (parts.length !== ref.n) throw new Error(`${parts.length} of ${ref.n} chunks readable`);
  const bytes = joinBytes(parts);
  if (bytes.byteLength !== ref.bytes || await serverHasher.sha256Hex(bytes) !== ref.sha256) {
    throw new Error("content does not match its SHA-256");
  }
  return bytes;
}

/** Whether a stored header field is a well-formed value reference. */
export function isValueRef(value: unknown): value is ValueRef {
  const ref = value as ValueRef;
  return ref !== null && typeof ref === "object" && typeof ref.gen === "string" && Number.isInteger(ref.n) &&
    ref.n >= 1 && Number.isInteger(ref.bytes) && typeof ref.sha256 === "string";
}
