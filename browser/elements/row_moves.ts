/**
 * Rows of arrays that moved: where each row of a list went when it changed
 * (this element removed one, or another writer removed, added or reordered
 * rows), so what the view keeps by address (messages, row keys, values shown)
 * follows its row instead of staying at the old index, on another row.
 *
 * @module
 */
import { formatPath, type Json, pathOrNull } from "../../engine/mod.ts";

/** Where the rows of a list went: the new index of old row `index`, or -1 when it is gone. */
export type RowMove = (index: number) => number;

/** The rows after removing row `removed`: those below move up one. */
export const removal = (removed: number): RowMove => (index) =>
  index < removed ? index : index === removed ? -1 : index - 1;

/** A row's fingerprint for {@link matchRows}: what it shows (`shown`, by address), by address within `row`. */
export function fingerprint(row: string, shown: Iterable<[string, Json | undefined]>): string {
  return JSON.stringify([...shown].map(([address, value]) => [address.replace(row, ""), value ?? null]));
}

/** A {@link fingerprint} without the values at or under `fields` (addresses within the row). */
function without(print: string, fields: string[]): string {
  const under = (at: string) =>
    fields.some((f) => at === f || at.startsWith(`${f}.`) || at.startsWith(`${f}[`));
  return JSON.stringify((JSON.parse(print) as [string, Json][]).filter(([at]) => !under(at)));
}

/** The addresses within the row `row` (canonical) of those of `addresses` (canonical) at or under it. */
export function fieldsIn(addresses: Iterable<string>, row: string): string[] {
  return [...addresses].filter((a) => a === row || a.startsWith(`${row}.`) || a.startsWith(`${row}[`))
    .map((a) => a.slice(row.length));
}

/**
 * Where each of the `before` rows went among the `after` rows, both given as {@link fingerprint}s: a row goes
 * to the first free row showing the same; a row the element is writing (`mine`: the fields of row `index` it
 * writes) goes to the first free row showing the same but those fields, which the write may have changed; a
 * row whose values changed otherwise goes to the first free row between the rows around it that did not
 * change, and is gone when there is none.
 */
export function matchRows(
  before: string[],
  after: string[],
  mine: (index: number) => string[] = () => [],
): number[] {
  // The free rows showing each fingerprint, first first (one pass: long lists stay cheap).
  const free = new Map<string, number[]>();
  for (const [j, print] of after.entries()) free.set(print, [...free.get(print) ?? [], j]);
  const taken = new Set<number>();
  const to = before.map((print) => {
    const at = free.get(print)?.shift() ?? -1;
    if (at >= 0) taken.add(at);
    return at;
  });
  for (const [i, print] of before.entries()) {
    const fields = to[i] < 0 ? mine(i) : [];
    if (!fields.length) continue;
    const seen = without(print, fields);
    to[i] = after.findIndex((now, j) => !taken.has(j) && without(now, fields) === seen);
    if (to[i] >= 0) taken.add(to[i]);
  }
  for (const [i] of before.entries()) {
    if (to[i] >= 0) continue;
    const above = to.slice(0, i).findLast((j) => j >= 0) ?? -1;
    const below = to.slice(i + 1).find((j) => j >= 0) ?? after.length;
    const at = after.findIndex((_, j) => j > above && j < below && !taken.has(j));
    if (at >= 0) taken.add(at);
    to[i] = at;
  }
  return to;
}

/** A {@link RowMove} of a {@link matchRows} answer (rows past its end are gone). */
export const moveOf = (to: number[]): RowMove => (index) => to[index] ?? -1;

/** Whether a {@link matchRows} answer leaves every row where it was (rows may be added below). */
export const unmoved = (to: number[]): boolean => to.every((j, i) => j === i);

/**
 * `address` once the rows of the array at `list` moved: under a row, at that row's new index; `null` when its
 * row is gone; otherwise unchanged.
 */
export function followAddress(address: string, list: string, move: RowMove): string | null {
  const [prefix, path] = [pathOrNull(list), pathOrNull(address)];
  if (!prefix || !path) return address;
  const depth = prefix.length;
  const at = path[depth];
  if (
    path.length <= depth || typeof at !== "number" ||
    formatPath(path.slice(0, depth)) !== formatPath(prefix)
  ) {
    return address;
  }
  const to = move(at);
  return to < 0 ? null : formatPath([...prefix, to, ...path.slice(depth + 1)]);
}

/** Moves the entries of a map to the keys `to` gives (`null`: the entry goes). */
function moveEntries<T>(map: Map<string, T>, to: (key: string) => string | null): void {
  const moved: [string, T][] = [];
  for (const [key, value] of map) {
    const next = to(key);
    if (next === key) continue;
    map.delete(key);
    if (next !== null) moved.push([next, value]);
  }
  for (const [key, value] of moved) map.set(key, value);
}

/**
 * Moves the entries of a map by address (messages, row keys of nested lists, values) with the rows of the
 * array at `list`: those of a gone row go.
 */
export function followRows<T>(map: Map<string, T>, list: string, move: RowMove): void {
  moveEntries(map, (address) => followAddress(address, list, move));
}

/**
 * Moves the entries of a map by component id (UI state: a tab, a table's page) with the rows of the section
 * list whose id is `listId` (its rows' components are `listId[index].…`): those of a gone row go.
 */
export function followIds<T>(map: Map<string, T>, listId: string, move: RowMove): void {
  const row = `${listId}[`;
  moveEntries(map, (key) => {
    const index = key.startsWith(row) ? /^(\d+)\]/.exec(key.slice(row.length)) : null;
    if (!index) return key;
    const to = move(Number(index[1]));
    return to < 0 ? null : `${row}${to}]${key.slice(row.length + index[0].length)}`;
  });
}

/** The depth of an address (how many steps from the root). */
function depthOf(address: string): number {
  return pathOrNull(address)?.length ?? 0;
}

/**
 * Calls `follow` for each list whose rows moved between `before` and `after` (the fingerprints of each list's
 * rows, by list address): outer lists first, so that a nested list is found again under its row's new index.
 * A list `after` does not show is left alone. `writing`: the addresses the element is writing (canonical, as
 * of the rows followed so far), which its rows may show changed ({@link matchRows}).
 */
export function followLists(
  before: Map<string, string[]>,
  after: Map<string, string[]>,
  follow: (list: string, move: RowMove) => void,
  writing: () => string[] = () => [],
): void {
  const old = new Map(before);
  for (const depth of [...new Set([...old.keys()].map(depthOf))].sort((a, b) => a - b)) {
    for (const [list, rows] of [...old].filter(([list]) => depthOf(list) === depth)) {
      const now = after.get(list);
      const to = now ? matchRows(rows, now, (i) => fieldsIn(writing(), `${list}[${i}]`)) : [];
      if (unmoved(to)) continue;
      followRows(old, list, moveOf(to));
      follow(list, moveOf(to));
    }
  }
}

/**
 * The keys of rows after the rows of `keys` moved: each row keeps its key, a row added above the last one kept
 * gets a `fresh` one (rows added below get theirs when they render).
 */
export function followKeys(keys: number[], move: RowMove, fresh: () => number): number[] {
  const next: number[] = [];
  for (const [i, key] of keys.entries()) {
    const to = move(i);
    if (to >= 0) next[to] = key;
  }
  return Array.from(next, (key) => key ?? fresh());
}

/**
 * The row moves an element has followed, so an address a control got from an earlier render (a render held
 * while a button is pressed, a control taken out of the page) is brought up to date before it is written.
 * Only the latest {@link LIMIT} are kept: an address older than those is not followed.
 */
export class RowMoveLog {
  static readonly LIMIT = 64;
  #moves: { list: string; move: RowMove }[] = [];
  #count = 0;

  /** How many moves were followed so far (a render notes it, to follow later ones). */
  get count(): number {
    return this.#count;
  }

  /** Notes that the rows of the array at `list` moved. */
  record(list: string, move: RowMove): void {
    this.#moves.push({ list, move });
    this.#count++;
    if (this.#moves.length > RowMoveLog.LIMIT) this.#moves.shift();
  }

  /** `address` as of a render that saw `seen` moves, now: `null` when its row is gone (or is too old to tell). */
  follow(address: string, seen: number): string | null {
    const missed = this.#count - seen;
    if (missed > this.#moves.length) return null;
    let now: string | null = address;
    for (const { list, move } of this.#moves.slice(this.#moves.length - missed)) {
      now = followAddress(now, list, move);
      if (now === null) return null;
    }
    return now;
  }

  /** Row `index` of the array at `list` as of a render that saw `seen` moves, now (`null`: it is gone). */
  followRow(list: string, index: number, seen: number): { list: string; index: number } | null {
    const now = this.follow(`${list}[${index}]`, seen);
    const path = now === null ? null : pathOrNull(now);
    const at = path?.at(-1);
    return path && typeof at === "number" ? { list: formatPath(path.slice(0, -1)), index: at } : null;
  }
}
