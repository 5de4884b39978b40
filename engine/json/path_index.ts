/**
 * Paths indexed by their first member name, to find those that may denote the
 * same data as a given path ({@link pathsOverlap}), or hold it, without
 * comparing it with every one. Linking the nodes of a spec compares every read with every
 * derivation's target; with 4,000 derivations that was 16 million
 * comparisons, seconds of a server's only thread for one model creation.
 *
 * Two paths that start with different member names never overlap, so a path
 * starting with a name is compared only with the paths starting with that
 * name, and with those that are empty or start with an index (which the
 * comparison may skip past a name). A path that is empty or starts with an
 * index is compared with all of them.
 *
 * @module
 */
import { type Path, pathsOverlap } from "./path.ts";

const NONE: readonly number[] = [];

/** Items with a path each, indexed by the path's first member name. */
export class PathIndex<T> {
  readonly #items: T[] = [];
  readonly #paths: Path[] = [];
  readonly #pathOf: (item: T) => Path;
  /** Positions of the paths starting with each member name, ascending. */
  readonly #byName = new Map<string, number[]>();
  /** Positions of the paths that are empty or start with an index, ascending. */
  readonly #anyName: number[] = [];

  constructor(items: readonly T[], pathOf: (item: T) => Path) {
    this.#pathOf = pathOf;
    for (const item of items) this.add(item);
  }

  /** Adds an item after the others. */
  add(item: T): void {
    const path = this.#pathOf(item);
    const position = this.#items.length;
    this.#items.push(item);
    this.#paths.push(path);
    const first = path[0];
    if (typeof first !== "string") {
      this.#anyName.push(position);
      return;
    }
    const named = this.#byName.get(first);
    if (named) named.push(position);
    else this.#byName.set(first, [position]);
  }

  /** The items whose path overlaps `path`, in the order they were added. */
  overlapping(path: Path): T[] {
    const found: T[] = [];
    this.#scan(path, (other, item) => {
      if (pathsOverlap(path, other)) found.push(item);
      return false;
    });
    return found;
  }

  /** Whether any item's path overlaps `path`. */
  overlapsAny(path: Path): boolean {
    return this.#scan(path, (other) => pathsOverlap(path, other)) >= 0;
  }

  /**
   * The first item (in the order they were added) whose path passes `test`,
   * which must hold only for paths that overlap `path` (such as one being a
   * prefix of the other): the others are not asked.
   */
  find(path: Path, test: (other: Path) => boolean): T | undefined {
    const at = this.#scan(path, test);
    return at < 0 ? undefined : this.#items[at];
  }

  /**
   * Asks `visit`, in the order of addition, about every item whose path may
   * overlap `path` (every one that does is among them) until it answers true;
   * returns that item's position, or -1. A loop, not a generator: writes run it.
   */
  #scan(path: Path, visit: (other: Path, item: T) => boolean): number {
    const paths = this.#paths;
    const items = this.#items;
    if (typeof path[0] !== "string") {
      for (let position = 0; position < paths.length; position++) {
        if (visit(paths[position], items[position])) return position;
      }
      return -1;
    }
    const named = this.#byName.get(path[0]) ?? NONE;
    const any = this.#anyName;
    // Both lists ascend: merging them keeps the order of addition.
    let i = 0;
    let j = 0;
    while (i < named.length || j < any.length) {
      const position = j >= any.length || (i < named.length && named[i] < any[j]) ? named[i++] : any[j++];
      if (visit(paths[position], items[position])) return position;
    }
    return -1;
  }
}
