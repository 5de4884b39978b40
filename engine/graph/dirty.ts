/**
 * Dirty propagation: which nodes (and which elements of per-element nodes) a set
 * of changed locations makes stale.
 *
 * @module
 */
import type { Json } from "../json/value.ts";
import { expandPattern } from "../json/document.ts";
import { formatPath, isPrefixOf, pathsOverlap, type Segment } from "../json/path.ts";
import { PathIndex } from "../json/path_index.ts";
import { derivedTarget, type ExprNode, type NodeKind } from "./graph.ts";

/** A changed location. */
export interface DirtyPath {
  path: Segment[];
  /**
   * True for an array insert/remove seen from the elements after it: they moved
   * but their contents did not, so element-scoped reads ignore it.
   */
  shift: boolean;
}

/** Marked paths a new one is compared with directly before they are kept as keys and indexed. */
const DIRECT_COMPARISONS = 8;

function keyOf(path: Segment[], shift: boolean): string {
  return (shift ? "s" : "") + formatPath(path);
}

function samePath(a: Segment[], b: Segment[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The set of changed locations of one cycle. */
export class DirtySet {
  readonly paths: DirtyPath[] = [];
  #everything = false;
  /** Keys of the paths, once there are too many to compare one by one. */
  #seen: Set<string> | null = null;
  /**
   * The paths by first member name, once there are too many to compare one by
   * one: a write of k fields then asks each node about the few paths under its
   * reads' names, not all k (4,000 fields of 4,000 derivations: 16 million
   * comparisons, half a second).
   */
  #index: PathIndex<DirtyPath> | null = null;

  /** Marks a location as changed. */
  add(path: Segment[], shift = false): void {
    if (this.#everything) return;
    if (path.length === 0 && !shift) {
      this.#everything = true;
      this.paths.length = 0;
      this.paths.push({ path: [], shift: false });
      return;
    }
    if (this.#known(path, shift)) return;
    const dirty = { path, shift };
    this.paths.push(dirty);
    if (this.#index) this.#index.add(dirty);
    else if (this.paths.length > DIRECT_COMPARISONS) this.#index = new PathIndex(this.paths, (d) => d.path);
  }

  /**
   * Whether the location is marked already (remembering it when not). A cycle
   * marks a few paths, compared one by one; past {@link DIRECT_COMPARISONS},
   * their formatted keys are kept in a set.
   */
  #known(path: Segment[], shift: boolean): boolean {
    if (!this.#seen) {
      for (const d of this.paths) if (d.shift === shift && samePath(d.path, path)) return true;
      if (this.paths.length < DIRECT_COMPARISONS) return false;
      this.#seen = new Set(this.paths.map((d) => keyOf(d.path, d.shift)));
    }
    const key = keyOf(path, shift);
    if (this.#seen.has(key)) return true;
    this.#seen.add(key);
    return false;
  }

  /** True when the whole document changed (creation, root replaced). */
  get everything(): boolean {
    return this.#everything;
  }

  /** True when nothing changed. */
  get empty(): boolean {
    return this.paths.length === 0;
  }

  /**
   * True when a node without elements must be re-evaluated: a change meets what it reads or, for a
   * derivation, wrote a container enclosing its target (which overwrote or dropped the derived value);
   * any change, for a node checked after every change.
   */
  touches(node: Reader): boolean {
    if (this.#everything || (node.everyChange && this.paths.length > 0)) return true;
    const target = derivedTarget(node);
    const index = this.#index;
    if (index) {
      return node.reads.some((r) => index.overlapsAny(r.path)) ||
        (target !== null && index.find(target, (path) => encloses(path, target)) !== undefined);
    }
    for (const d of this.paths) {
      if (target && encloses(d.path, target)) return true;
      for (const r of node.reads) if (pathsOverlap(r.path, d.path)) return true;
    }
    return false;
  }

  /**
   * True when the elements matching `pattern` may have moved, appeared or vanished:
   * the array (or an ancestor) was replaced, or an element was inserted or removed.
   */
  reshapes(pattern: Segment[]): boolean {
    if (this.#everything) return true;
    return this.paths.some((d) => isPrefixOf(d.path, pattern) && (d.shift || d.path.length < pattern.length));
  }

  /** The concrete elements of a per-element node that must be re-evaluated (none for a global node). */
  elementsToEvaluate(node: Reader, doc: Json): Segment[][] {
    const pattern = node.elementPattern;
    if (!pattern) return [];
    if (this.#everything) return expandPattern(doc, pattern);
    const target = derivedTarget(node);
    const picked = new Map<string, Segment[]>();
    const addAll = (within: Segment[]) => {
      for (const el of expandPattern(doc, pattern, within)) picked.set(indicesOf(el), el);
    };
    for (const d of this.paths) {
      // An element created or replaced as a whole is new to every per-element node,
      // also to one that reads none of its fields (`$.items[*].rank = 1`).
      const wholeElements = !d.shift && d.path.length <= pattern.length && isPrefixOf(d.path, pattern);
      if (wholeElements) addAll(d.path);
      // A container written whole inside an element dropped the derived value there (`$.items[0].sub`).
      else if (target && d.path.length > pattern.length && encloses(d.path, target)) {
        addAll(d.path.slice(0, pattern.length));
      }
      // Elements that merely moved keep their contents; a shift inside an element changes it.
      const movedOnly = d.shift && d.path.length <= pattern.length;
      for (const r of node.reads) {
        if (!pathsOverlap(r.path, d.path)) continue;
        if (!r.elementScoped) {
          addAll([]);
          return [...picked.values()];
        }
        if (wholeElements || movedOnly) continue;
        if (d.path.length >= pattern.length && isPrefixOf(pattern, d.path)) {
          addAll(d.path.slice(0, pattern.length));
        } else {
          addAll([]);
        }
      }
    }
    return [...picked.values()];
  }
}

/** What the dirty set asks of a node: what it reads, its elements and, for a derivation, its target. */
export type Reader = Pick<ExprNode, "elementPattern" | "reads"> & {
  kind?: NodeKind;
  target?: Segment[];
  everyChange?: true;
};

/** True when `container` (a changed location) strictly encloses `target` (a pattern). */
function encloses(container: readonly Segment[], target: readonly Segment[]): boolean {
  return container.length < target.length && isPrefixOf(container, target);
}

/** The indices of an element path, which tell apart the elements of one pattern (they share its names). */
function indicesOf(element: Segment[]): string {
  let key = "";
  for (const seg of element) if (typeof seg === "number") key += `${seg},`;
  return key;
}
