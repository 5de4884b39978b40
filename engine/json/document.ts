/**
 * Reading and copy-on-write writing of JSON documents by path.
 *
 * A committed document is never modified. A {@link DocumentDraft} copies each
 * container the first time a cycle writes under it, so a cycle costs what it
 * touches (plus a shallow copy of each container on the way), history snapshots
 * share structure, and a rollback is simply dropping the draft. A draft also
 * tracks how much its writes grew the document, in JSON bytes (UTF-8 of
 * `JSON.stringify`), exactly: each write counts what it adds and replaces (a
 * member's name, colon and comma, an element's comma, null padding, the
 * containers made on the way), never the whole document, and a write that
 * would grow it past its budget is refused before anything is allocated.
 *
 * @module
 */
import { isContainer, isObject, type Json, type JsonObject, setMember } from "./value.ts";
import { jsonBytes, jsonStringBytes } from "./measure.ts";
import { type Path, pathOrNull, type Segment, WILDCARD } from "./path.ts";
import { forkWide, hasMembers, ownMember, toWide, WIDE_MEMBERS } from "./wide_object.ts";

/** JSON bytes of one `null` an array write pads with, and its comma. */
const PAD_BYTES = 5;

/** A write that would grow a document past its draft's budget (nothing was applied). */
export class DocumentTooLargeError extends Error {
  /** The growth the draft would have reached, in JSON bytes. */
  readonly growth: number;
  constructor(growth: number, budget: number) {
    super(`the write would grow the document by ${growth} bytes, over the ${budget} bytes left`);
    this.name = "DocumentTooLargeError";
    this.growth = growth;
  }
}

/** The value at a canonical address, null when absent (or when the address does not parse). */
export function valueAt(doc: Json, address: string): Json {
  const path = pathOrNull(address);
  return path && (getAt(doc, path) ?? null);
}

/** The value at a concrete path, `undefined` when absent. */
export function getAt(doc: Json | undefined, path: Path): Json | undefined {
  let cur: Json | undefined = doc;
  for (const seg of path) {
    cur = memberAt(cur, seg);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * The member or element `seg` of `value`, `undefined` when absent (or when
 * `value` is no such container): an object's own member only, since a member
 * name comes from a caller (`constructor` is no member of `{}`).
 */
export function memberAt(value: Json | undefined, seg: Segment): Json | undefined {
  if (value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) return typeof seg === "number" && seg >= 0 ? value[seg] : undefined;
  return typeof seg === "string" ? ownMember(value, seg) : undefined;
}

const NO_PATH: Path = [];

/**
 * Every concrete path matching a pattern in `doc` (wildcards expand over array
 * indices). `within` narrows the expansion to paths under that concrete prefix.
 */
export function expandPattern(doc: Json | undefined, pattern: Path, within: Path = NO_PATH): Segment[][] {
  const out: Segment[][] = [];
  expandFrom(doc, pattern, within, 0, [], out);
  return out;
}

/** Adds to `out` the matches of `pattern` from its `i`-th segment on, under `node` at `at` (one path, copied per match). */
function expandFrom(
  node: Json | undefined,
  pattern: Path,
  within: Path,
  i: number,
  at: Segment[],
  out: Segment[][],
): void {
  if (i === pattern.length) {
    out.push(at.slice());
    return;
  }
  const seg = pattern[i];
  const fixed = i < within.length ? within[i] : undefined;
  if (seg === WILDCARD) {
    if (!Array.isArray(node)) return;
    if (typeof fixed === "number" && fixed !== WILDCARD) {
      if (fixed < node.length) expandStep(node[fixed], fixed, pattern, within, i, at, out);
      return;
    }
    for (let k = 0; k < node.length; k++) expandStep(node[k], k, pattern, within, i, at, out);
    return;
  }
  if (fixed !== undefined && fixed !== seg && fixed !== WILDCARD) return;
  const next = memberAt(node, seg);
  if (next === undefined && i < pattern.length - 1) return;
  expandStep(next, seg, pattern, within, i, at, out);
}

/** {@link expandFrom} one segment further, `taken` for the `i`-th. */
function expandStep(
  next: Json | undefined,
  taken: Segment,
  pattern: Path,
  within: Path,
  i: number,
  at: Segment[],
  out: Segment[][],
): void {
  at.push(taken);
  expandFrom(next, pattern, within, i + 1, at, out);
  at.pop();
}

/** A container created by a write, for default-value rules. */
export type CreatedContainers = Segment[][];

/** A copy-on-write view of a document inside one cycle. */
export class DocumentDraft {
  #root: Json;
  /**
   * The containers this draft made (not weak: a draft lives for one cycle, weak
   * entries cost more), each with its member count when it is a plain object
   * (else -1): one that writes widen past {@link WIDE_MEMBERS} becomes a wide
   * version, as a copy of it would (a plain object grown by thousands of
   * writes made each write's look at it cost what it holds).
   */
  readonly #owned = new Map<object, number>();
  readonly #budget: number;
  #growth = 0;

  /** `budget`: how many JSON bytes the writes may add in all (default unbounded). */
  constructor(root: Json, budget = Infinity) {
    this.#root = root;
    this.#budget = budget;
  }

  /** JSON bytes the writes added (negative when they removed more). */
  get growth(): number {
    return this.#growth;
  }

  /**
   * Records `bytes` of growth (a write made outside {@link set} and
   * {@link delete}); throws {@link DocumentTooLargeError} when growth passes the budget.
   */
  grow(bytes: number): void {
    const growth = this.#growth + bytes;
    if (bytes > 0 && growth > this.#budget) throw new DocumentTooLargeError(growth, this.#budget);
    this.#growth = growth;
  }

  /**
   * JSON bytes a write at `path` adds besides its value's own: a new member's
   * name, colon and comma, an array element's comma and null padding, the
   * containers {@link set} makes on the way (each `{}` or `[]` in place of what
   * did not fit), less the value it replaces. `insert`: the write inserts an
   * array element before `path`'s (JSON Patch `add`), replacing nothing.
   */
  placeGrowth(path: Path, insert = false): number {
    if (path.length === 0) return -jsonBytes(this.#root);
    let bytes = 0;
    // `undefined` from here on: an empty container made by the write.
    let cur: JsonObject | Json[] | undefined;
    if (fits(this.#root, path[0])) cur = this.#root as JsonObject | Json[];
    else bytes += 2 - jsonBytes(this.#root);
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const old = cur && memberAt(cur, seg);
      const last = i === path.length - 1;
      if (!last && fits(old, path[i + 1])) {
        cur = old as JsonObject | Json[];
        continue;
      }
      if (old === undefined || (last && insert)) bytes += slotBytes(cur, seg);
      else bytes -= jsonBytes(old);
      if (last) break;
      bytes += 2;
      cur = undefined;
    }
    return bytes;
  }

  /**
   * JSON bytes {@link delete} of `path` adds, at most 0: less the value and its
   * member's name, colon and comma or its element's comma (0 when absent); at
   * the root, `{}` in place of the document.
   */
  deleteGrowth(path: Path): number {
    if (path.length === 0) return 2 - jsonBytes(this.#root);
    const parent = getAt(this.#root, path.slice(0, -1));
    const last = path[path.length - 1];
    const old = memberAt(parent, last);
    if (old === undefined) return 0;
    if (Array.isArray(parent)) return -jsonBytes(old) - (parent.length > 1 ? 1 : 0);
    const key = last as string;
    return -jsonBytes(old) - jsonStringBytes(key) - 1 - (hasMembers(parent as JsonObject, key) ? 1 : 0);
  }

  /** The current root (committed when the cycle succeeds). */
  get root(): Json {
    return this.#root;
  }

  /** Reads a value. */
  get(path: Path): Json | undefined {
    return getAt(this.#root, path);
  }

  #own<T extends JsonObject | Json[]>(value: T): T {
    if (this.#owned.has(value)) return value;
    const [copy, members] = Array.isArray(value) ? [value.slice(), -1] : copyObject(value as JsonObject);
    this.#owned.set(copy, members);
    return copy as T;
  }

  /** A new empty container this draft owns: an array for an index, an object for a name. */
  #made(seg: Segment): JsonObject | Json[] {
    const made = typeof seg === "number" ? [] : {};
    this.#owned.set(made, typeof seg === "number" ? -1 : 0);
    return made;
  }

  /**
   * `parent` ready for a write of its member `key`: counted when that adds a
   * plain object's member, and replaced (in `above` at `seg`, or as the root)
   * by its wide version once that takes it past {@link WIDE_MEMBERS}.
   */
  #roomFor(
    parent: JsonObject | Json[],
    key: Segment,
    above: JsonObject | Json[] | undefined,
    seg: Segment,
  ): JsonObject | Json[] {
    const members = this.#owned.get(parent) ?? -1;
    if (members < 0 || memberAt(parent, key) !== undefined) return parent;
    if (members < WIDE_MEMBERS) {
      this.#owned.set(parent, members + 1);
      return parent;
    }
    const wide = toWide(parent as JsonObject);
    this.#owned.set(wide, -1);
    if (above) assign(above, seg, wide);
    else this.#root = wide;
    return wide;
  }

  /**
   * Makes every container along `path` (excluding the last segment) writable and
   * returns the parent container; missing containers are created (an array when
   * the next segment is an index, else an object) and reported in `created`,
   * in place of a scalar or of a container of the other kind (an index does
   * not name an object's member, nor a name an array's element).
   */
  #parentFor(path: Path, created?: CreatedContainers, adds = false): JsonObject | Json[] {
    if (!fits(this.#root, path[0])) {
      this.#root = this.#made(path[0]);
      created?.push([]);
    }
    let parent = this.#own(this.#root as JsonObject | Json[]);
    this.#root = parent;
    let above: JsonObject | Json[] | undefined;
    for (let i = 0; i < path.length - 1; i++) {
      const seg = path[i];
      const existing = memberAt(parent, seg);
      let next: JsonObject | Json[];
      if (fits(existing, path[i + 1])) {
        next = this.#own(existing as JsonObject | Json[]);
      } else {
        next = this.#made(path[i + 1]);
        created?.push(path.slice(0, i + 1) as Segment[]);
      }
      assign(parent, seg, next);
      above = parent;
      parent = next;
    }
    return adds ? this.#roomFor(parent, path[path.length - 1], above, path[path.length - 2]) : parent;
  }

  /**
   * Writes a value at a concrete path, creating containers on the way; those
   * and the containers of the written value are reported in `created`
   * ({@link recordContainers}).
   */
  set(path: Path, value: Json, created?: CreatedContainers): void {
    this.grow(jsonBytes(value) + this.placeGrowth(path));
    if (path.length === 0) this.#root = value;
    else assign(this.#parentFor(path, created, true), path[path.length - 1], value);
    if (created) recordContainers([...path], value, created);
  }

  /** Removes the value at a path; returns false when nothing was there. */
  delete(path: Path): boolean {
    if (path.length === 0) {
      const had = this.#root !== undefined;
      this.grow(this.deleteGrowth(path));
      this.#root = {};
      return had;
    }
    if (this.get(path) === undefined) return false;
    this.grow(this.deleteGrowth(path));
    const last = path[path.length - 1];
    const parent = this.#parentFor(path);
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last as string];
    return true;
  }

  /**
   * Makes every container along `path` writable (including the one at `path`),
   * so a library that edits in place (JSON Patch) only touches this draft's copies.
   */
  prepare(path: Path): void {
    if (!isContainer(this.#root)) return;
    let parent = this.#own(this.#root as JsonObject | Json[]);
    this.#root = parent;
    for (const seg of path) {
      const existing = memberAt(parent, seg);
      if (!isContainer(existing)) return;
      const next = this.#own(existing);
      assign(parent, seg, next);
      parent = next;
    }
  }
}

/** Whether `value` is a container `seg` names a member of: an array for an index, an object for a name. */
function fits(value: Json | undefined, seg: Segment): boolean {
  return typeof seg === "number" ? Array.isArray(value) : isObject(value);
}

/**
 * JSON bytes a new element or member at `seg` of `container` (`undefined`: a
 * new empty one) adds besides its value: an index past the end pads with
 * nulls, each with its comma; a name adds itself, a colon, and a comma unless
 * it is the only member.
 */
function slotBytes(container: JsonObject | Json[] | undefined, seg: Segment): number {
  if (typeof seg === "number") {
    const length = container ? (container as Json[]).length : 0;
    return Math.max(0, seg - length) * PAD_BYTES + (length > 0 ? 1 : 0);
  }
  return jsonStringBytes(seg) + 1 + (container && hasMembers(container as JsonObject) ? 1 : 0);
}

/**
 * A shallow copy with the same own keys in the same order. Spread copies an
 * object V8 keeps in fast mode in well under a microsecond and keeps the copy
 * in fast mode, up to about {@link WIDE_MEMBERS} members; past that its cost
 * grows to about 0.2 µs per member, so a wider object becomes a wide version
 * (wide_object.ts), whose later copies cost what they change. With the
 * copy's member count when it is plain, else -1.
 */
function copyObject(value: JsonObject): [copy: JsonObject, members: number] {
  const fork = forkWide(value);
  if (fork) return [fork, -1];
  const keys = Object.keys(value);
  return keys.length > WIDE_MEMBERS ? [toWide(value, keys), -1] : [{ ...value }, keys.length];
}

/**
 * Reports `value` (written at `path`) and every container within it as
 * created: a written container is new as a whole, whatever it replaced, so
 * its elements are new however many the old array had, and a write phrased
 * as a mutation or as a JSON Patch reports the same containers.
 */
export function recordContainers(path: Segment[], value: Json, created: CreatedContainers): void {
  if (!isContainer(value)) return;
  created.push(path);
  const entries: [Segment, Json][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  for (const [key, child] of entries) recordContainers([...path, key], child, created);
}

function assign(container: JsonObject | Json[], seg: Segment, value: Json): void {
  if (Array.isArray(container)) {
    const index = seg as number;
    while (container.length < index) container.push(null);
    container[index] = value;
  } else {
    setMember(container, seg as string, value);
  }
}
