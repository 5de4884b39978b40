/**
 * Wide JSON objects (more members than V8 keeps in fast mode) as persistent
 * hash tables behind a `Proxy`, so a write under one costs what it changes
 * instead of a copy of every member.
 *
 * Copy-on-write copies each container on the way to a change. For an object
 * of up to {@link WIDE_MEMBERS} members that copy takes well under a
 * microsecond; past it V8's copy costs about 0.1 to 0.3 µs per member (a
 * 2,000-member model root: 600 µs per write). A draft's copy of a wider
 * object is a version here instead: a hash table sharing its buckets with the
 * version it came from ({@link Members}), so a write costs O(√members).
 *
 * The proxy behaves as the plain object it stands for to every reader
 * (JSONata, `JSON.stringify`, `Object.keys` in JavaScript's member order,
 * `hasOwnProperty`, spread, `for…in`, node:assert) and, like a plain object
 * of a document, is changed in place only by the draft that made it. What it
 * cannot be is structured-cloned: {@link toPlain} copies it first.
 *
 * @module
 */
import { type Json, type JsonObject, setMember } from "./value.ts";

/**
 * The member count past which a draft's copy is a wide version: up to it,
 * spread copies a fast-mode object in under a microsecond; past it V8's copy
 * costs 10 µs and more (100 members) and grows with every member.
 */
export const WIDE_MEMBERS = 64;

/** Fewest buckets of a table. */
const MIN_BUCKETS = 16;

/** One member: its key, value, and place in the insertion order. */
interface Entry {
  readonly key: string;
  readonly value: Json;
  readonly seq: number;
}

/** Whether a key is an array index, which JavaScript orders first and numerically. */
function isIndexKey(key: string): boolean {
  if (key === "0") return true;
  const code = key.charCodeAt(0);
  if (code < 49 || code > 57 || key.length > 10) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return Number(key) < 4294967295;
}

/** FNV-1a over UTF-16 code units, its high bits folded into the low ones that pick a bucket. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 15);
}

/**
 * The power of two at least 4·√size (and {@link MIN_BUCKETS}): a write copies
 * the bucket array and one bucket of about √size/4 entries, a read scans half
 * a bucket (reads are the more frequent).
 */
function bucketsFor(size: number): number {
  let buckets = MIN_BUCKETS;
  while (buckets * buckets < 16 * size) buckets *= 2;
  return buckets;
}

/**
 * One version's members: a hash table of about 4·√members buckets holding
 * about √members/4 entries each. A fork shares the bucket array and buckets of
 * its origin and copies the array, and each bucket, the first time it changes
 * them; a changed entry is a new entry, so the origin never sees the change.
 * The insertion order (for own keys) is each entry's sequence number.
 */
class Members {
  #buckets: Entry[][];
  /**
   * The buckets this version copied (it changes those in place); null while it
   * shares the array. A Set, not a flag array: a version changes a few buckets,
   * and a typed array costs more to allocate than the write it serves.
   */
  #owned: Set<number> | null;
  size: number;
  #nextSeq: number;
  #keys: string[] | null = null;

  private constructor(buckets: Entry[][], owned: Set<number> | null, size: number, nextSeq: number) {
    this.#buckets = buckets;
    this.#owned = owned;
    this.size = size;
    this.#nextSeq = nextSeq;
  }

  /** A version holding `entries` (distinct keys, in order). */
  static of(entries: readonly [string, Json][]): Members {
    const buckets: Entry[][] = Array.from({ length: bucketsFor(entries.length) }, () => []);
    const mask = buckets.length - 1;
    entries.forEach(([key, value], seq) => buckets[hash(key) & mask].push({ key, value, seq }));
    return new Members(buckets, new Set(buckets.keys()), entries.length, entries.length);
  }

  /** The entry of `key`, if it is a member. */
  entry(key: string): Entry | undefined {
    const bucket = this.#buckets[hash(key) & (this.#buckets.length - 1)];
    for (let i = 0; i < bucket.length; i++) if (bucket[i].key === key) return bucket[i];
    return undefined;
  }

  /** The bucket of `key`, copied first unless this version copied it already. */
  #writable(key: string): Entry[] {
    if (!this.#owned) {
      this.#buckets = this.#buckets.slice();
      this.#owned = new Set();
    }
    const at = hash(key) & (this.#buckets.length - 1);
    if (!this.#owned.has(at)) {
      this.#buckets[at] = this.#buckets[at].slice();
      this.#owned.add(at);
    }
    return this.#buckets[at];
  }

  set(key: string, value: Json): void {
    const bucket = this.#writable(key);
    for (let i = 0; i < bucket.length; i++) {
      if (bucket[i].key === key) {
        bucket[i] = { key, value, seq: bucket[i].seq };
        return;
      }
    }
    bucket.push({ key, value, seq: this.#nextSeq++ });
    this.size++;
    this.#keys = null;
    if (4 * this.size > this.#buckets.length * this.#buckets.length) this.#rehash();
  }

  delete(key: string): boolean {
    if (!this.entry(key)) return false;
    const bucket = this.#writable(key);
    bucket.splice(bucket.findIndex((entry) => entry.key === key), 1);
    this.size--;
    this.#keys = null;
    return true;
  }

  /** Spreads the entries over a table sized for their count, once they outgrew the old one. */
  #rehash(): void {
    const entries = this.#buckets.flat();
    const buckets: Entry[][] = Array.from({ length: bucketsFor(entries.length) }, () => []);
    for (const entry of entries) buckets[hash(entry.key) & (buckets.length - 1)].push(entry);
    this.#buckets = buckets;
    this.#owned = new Set(buckets.keys());
  }

  /** Own keys in JavaScript's order: array indices ascending, then the rest in insertion order. */
  keys(): string[] {
    if (this.#keys) return this.#keys;
    const keys = this.#buckets.flat().sort((a, b) => a.seq - b.seq).map((entry) => entry.key);
    this.#keys = keys.some(isIndexKey)
      ? [
        ...keys.filter(isIndexKey).sort((a, b) => Number(a) - Number(b)),
        ...keys.filter((key) => !isIndexKey(key)),
      ]
      : keys;
    return this.#keys;
  }

  /** A new version with the same members, sharing everything until it changes something. */
  fork(): Members {
    const fork = new Members(this.#buckets, null, this.size, this.#nextSeq);
    fork.#keys = this.#keys;
    return fork;
  }
}

/**
 * Where a proxy's target keeps its members. A symbol-keyed member of the
 * target, not a WeakMap entry: versions are made on every write, and weak
 * entries cost the garbage collector far more than a property.
 */
const MEMBERS = Symbol("members");

type Target = JsonObject & { [MEMBERS]: Members };

const handler: ProxyHandler<Target> = {
  get(target, key, receiver) {
    if (typeof key === "string") {
      const entry = target[MEMBERS].entry(key);
      if (entry) return entry.value;
    }
    return Reflect.get(target, key, receiver);
  },
  has(target, key) {
    return (typeof key === "string" && target[MEMBERS].entry(key) !== undefined) || Reflect.has(target, key);
  },
  set(target, key, value, receiver) {
    if (typeof key !== "string") return Reflect.set(target, key, value, receiver);
    target[MEMBERS].set(key, value);
    return true;
  },
  defineProperty(target, key, descriptor) {
    if (typeof key !== "string" || !("value" in descriptor)) return false;
    target[MEMBERS].set(key, descriptor.value);
    return true;
  },
  deleteProperty(target, key) {
    if (typeof key === "string") target[MEMBERS].delete(key);
    return true;
  },
  ownKeys(target) {
    return target[MEMBERS].keys();
  },
  getOwnPropertyDescriptor(target, key) {
    if (typeof key !== "string") return undefined;
    const entry = target[MEMBERS].entry(key);
    return entry && { value: entry.value, writable: true, enumerable: true, configurable: true };
  },
};

function wrap(members: Members): JsonObject {
  return new Proxy({ [MEMBERS]: members } as Target, handler);
}

/** The members of a wide version (`undefined` for any other value). */
function membersOf(value: unknown): Members | undefined {
  return typeof value === "object" && value !== null
    ? (value as { [MEMBERS]?: Members })[MEMBERS]
    : undefined;
}

/** Whether `value` is a wide object's version. */
export function isWide(value: unknown): boolean {
  return membersOf(value) !== undefined;
}

/**
 * The own member `key` of an object, `undefined` when it has none (inherited
 * members are not data). Reads a wide version's table directly: through the
 * proxy, `hasOwnProperty` costs about half a microsecond.
 */
export function ownMember(object: JsonObject, key: string): Json | undefined {
  const members = membersOf(object);
  if (members) return members.entry(key)?.value;
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/**
 * Whether an object has an own member other than `besides` (a comma's worth
 * of JSON). A wide version answers from its count; a plain one stops at its
 * first other key.
 */
export function hasMembers(object: JsonObject, besides?: string): boolean {
  const members = membersOf(object);
  if (members) return members.size > (besides !== undefined && members.entry(besides) ? 1 : 0);
  for (const key in object) if (key !== besides && Object.hasOwn(object, key)) return true;
  return false;
}

/** A copy of an object for a draft to change: a new version of a wide one (O(1) now, O(√members) per change), else `null`. */
export function forkWide(value: JsonObject): JsonObject | null {
  const members = membersOf(value);
  return members ? wrap(members.fork()) : null;
}

/** A wide version of a plain object with the given own `keys` (one copy of its members). */
export function toWide(value: JsonObject, keys: readonly string[] = Object.keys(value)): JsonObject {
  return wrap(Members.of(keys.map((key) => [key, value[key]])));
}

/**
 * `value` with every wide version in it replaced by a plain object (containers
 * on the way copied, the rest shared); `value` itself when it holds none.
 * For hosts that structured-clone documents, which a `Proxy` cannot be.
 */
export function toPlain(value: Json): Json {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: Json[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = toPlain(value[i]);
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  const keys = Object.keys(value);
  let changed = isWide(value);
  const members = keys.map((key) => {
    const plain = toPlain(value[key]);
    changed ||= plain !== value[key];
    return plain;
  });
  if (!changed) return value;
  const out: JsonObject = {};
  keys.forEach((key, i) => setMember(out, key, members[i]));
  return out;
}
