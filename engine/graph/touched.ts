/**
 * The nodes of a list a cycle's changes may touch, found through an index of
 * the first member name each node reads (or iterates), so a cycle costs what it
 * touches and not the size of the model: a write to one of 1,000 independent
 * inputs looks at the one derivation that reads it, not at all 1,000.
 *
 * The index errs towards visiting: every node a change touches is visited (the
 * caller still asks the dirty set, exactly as before), some it does not touch
 * may be. A change whose path starts with a member name can only meet reads
 * and element patterns starting with that name (`pathsOverlap` compares the
 * first names; skipping an array index needs a number on one side); any other
 * change (the root, a root array's element) visits everything.
 *
 * @module
 */
import type { Segment } from "../json/path.ts";
import type { DirtySet, Reader } from "./dirty.ts";
import { derivedTarget } from "./graph.ts";

/** Positions in a node list, by the first member name of what each node reads (or a derivation writes). */
class ReadIndex {
  readonly #byName = new Map<string, number[]>();
  /** Nodes reading the root or starting at an index, or checked after every change: any change may touch them. */
  readonly #always: number[] = [];

  constructor(nodes: readonly Reader[]) {
    nodes.forEach((node, position) => {
      const names = new Set<string>();
      let always = false;
      const paths: Segment[][] = node.reads.map((read) => read.path);
      if (node.elementPattern) paths.push(node.elementPattern);
      // A write of a container enclosing a derivation's target overwrites its value: it runs again.
      const target = derivedTarget(node);
      if (target) paths.push(target);
      for (const path of paths) {
        if (typeof path[0] === "string") names.add(path[0]);
        else always = true;
      }
      if (always || node.everyChange) this.#always.push(position);
      else {
        for (const name of names) {
          let list = this.#byName.get(name);
          if (!list) this.#byName.set(name, list = []);
          list.push(position);
        }
      }
    });
  }

  /** The positions a change at `path` may touch; `null` when any may. */
  candidates(path: readonly Segment[]): { named: readonly number[]; always: readonly number[] } | null {
    const name = path[0];
    if (typeof name !== "string") return null;
    return { named: this.#byName.get(name) ?? [], always: this.#always };
  }
}

const indexes = new WeakMap<readonly Reader[], ReadIndex>();

function indexOf(nodes: readonly Reader[]): ReadIndex {
  let index = indexes.get(nodes);
  if (!index) indexes.set(nodes, index = new ReadIndex(nodes));
  return index;
}

/**
 * The nodes of `nodes` the changes may touch, in list order. The dirty set is
 * read again at every step, so changes made while visiting (a derivation
 * writing its target) bring in the later nodes they touch. `nodes` must be a
 * list that is not changed afterwards (a compiled graph's), its index is kept.
 */
export function* touchedInOrder<N extends Reader>(nodes: readonly N[], dirty: () => DirtySet): Generator<N> {
  if (!nodes.length) return;
  const index = indexOf(nodes);
  // A Set, not a flag array: a cycle queues a few positions of a list that may hold thousands.
  const queued = new Set<number>();
  const heap: number[] = [];
  const push = (position: number) => {
    if (queued.has(position)) return;
    queued.add(position);
    heap.push(position);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent] <= heap[i]) break;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  };
  const pop = (): number => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      for (let i = 0;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < heap.length && heap[left] < heap[least]) least = left;
        if (right < heap.length && heap[right] < heap[least]) least = right;
        if (least === i) break;
        [heap[least], heap[i]] = [heap[i], heap[least]];
        i = least;
      }
    }
    return top;
  };

  let set = dirty();
  let absorbed = 0;
  let position = -1;
  for (;;) {
    const current = dirty();
    if (current !== set) {
      set = current;
      absorbed = 0;
    }
    let all = current.everything;
    for (; !all && absorbed < current.paths.length; absorbed++) {
      const found = index.candidates(current.paths[absorbed].path);
      if (!found) all = true;
      else {
        for (const p of found.named) if (p > position) push(p);
        for (const p of found.always) if (p > position) push(p);
      }
    }
    if (all) {
      for (let p = position + 1; p < nodes.length; p++) yield nodes[p];
      return;
    }
    if (!heap.length) return;
    position = pop();
    yield nodes[position];
  }
}
