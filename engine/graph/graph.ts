/**
 * The dependency graph of a compiled spec: BASE, DERIVED, META, CONSTRAINT and
 * EFFECT nodes, edges "to reads from", cycle detection and topological levels
 * (depth = 1 + max predecessor depth; BASE nodes are level 0).
 *
 * @module
 */
import type { Read } from "../expr/dependencies.ts";
import { PathIndex } from "../json/path_index.ts";
import { formatPath, isPrefixOf, type Segment } from "../json/path.ts";
import type { Chunks } from "../pacing.ts";

/** Kinds of graph nodes. */
export type NodeKind = "BASE" | "DERIVED" | "META" | "CONSTRAINT" | "EFFECT";

/** What every node computed from expressions (everything but BASE) has. */
interface NodeBase {
  key: string;
  label: string;
  /** The expression text shown in projections and traces. */
  expression: string;
  reads: Read[];
  /** The element `$parent` is bound to for per-element nodes (`$.items[*]`). */
  elementPattern: Segment[] | null;
  /** Position of the node's definition in its spec section. */
  index: number;
  level: number;
}

/** A DERIVED node: computes the value at its target pattern. */
export interface DerivedExprNode extends NodeBase {
  kind: "DERIVED";
  target: Segment[];
  /**
   * Derived targets inside what it reads whole (`$`, `$parent`, a container) that it must not see: its
   * own, and those of its level and above. `root`: patterns from the document root; `parent`: paths
   * relative to its element, reached through `$parent`. Set by {@link buildGraph}, absent when none.
   */
  hides?: { root: Segment[][]; parent: Segment[][] };
}

/** A META node: computes a property of the field at its target pattern. */
export interface MetaExprNode extends NodeBase {
  kind: "META";
  target: Segment[];
}

/** A CONSTRAINT node: a check, stored nowhere. */
export interface ConstraintExprNode extends NodeBase {
  kind: "CONSTRAINT";
  /** Checked after every change, whatever it reads (a global constraint whose answer needs no write to change). */
  everyChange?: true;
}

/** An EFFECT node: a trigger, stored nowhere. */
export interface EffectExprNode extends NodeBase {
  kind: "EFFECT";
}

/** A node computed from expressions, by kind. */
export type ExprNode = DerivedExprNode | MetaExprNode | ConstraintExprNode | EffectExprNode;

/** The nodes of `N` of one kind. */
export type OfKind<N extends ExprNode, K extends ExprNode["kind"]> = Extract<N, { kind: K }>;

/** A dependency edge: `to` reads from `from`. */
export interface Edge {
  from: string;
  to: string;
}

/** The built graph. */
export interface DependencyGraph<N extends ExprNode = ExprNode> {
  nodes: N[];
  baseKeys: string[];
  edges: Edge[];
  /** Node keys per level, level 0 = BASE. */
  levels: string[][];
  /** DERIVED nodes in evaluation order (by level, then spec order). */
  derivedOrder: OfKind<N, "DERIVED">[];
  /** META nodes by level, then spec order. */
  metas: OfKind<N, "META">[];
  constraints: OfKind<N, "CONSTRAINT">[];
  effects: OfKind<N, "EFFECT">[];
  /** Keys of the nodes each node reads from. */
  predecessors: ReadonlyMap<string, ReadonlySet<string>>;
  /** Dependency cycles among DERIVED nodes (each a list of keys); empty when acyclic. */
  cycles: string[][];
}

/** The element pattern of a wildcard target: everything up to its last `[*]`. */
export function elementPatternOf(target: readonly Segment[]): Segment[] | null {
  const last = target.lastIndexOf(-1);
  return last < 0 ? null : target.slice(0, last + 1);
}

/** The target a node writes into the document: a derivation's (metas keep their values beside it), else null. */
export function derivedTarget(node: { kind?: NodeKind; target?: Segment[] }): Segment[] | null {
  return node.kind === "DERIVED" && node.target ? node.target : null;
}

/** Builds the graph, detecting cycles and assigning levels, pausing between nodes (pacing.ts). */
export function* buildGraph<N extends ExprNode>(nodes: N[]): Chunks<DependencyGraph<N>> {
  const derived = nodes.filter((n): n is OfKind<N, "DERIVED"> => n.kind === "DERIVED");
  const edges: Edge[] = [];
  const preds = new Map<string, Set<string>>();
  const baseKeys = new Set<string>();
  const addEdge = (from: string, to: string) => {
    let set = preds.get(to);
    if (!set) preds.set(to, set = new Set());
    if (!set.has(from)) {
      set.add(from);
      edges.push({ from, to });
    }
  };

  // A read of a container enclosing a derived target (`$`, `$string(items)`) orders the
  // reader after that derivation only where this closes no cycle: the reader never
  // depends on its own value, and two such readers may enclose each other without being
  // reported as a cycle. A derivation reading such a container does not see the targets
  // it is not ordered after (`hides`), so its value never depends on its own or a later one.
  const enclosing: Edge[] = [];
  const enclosed = new Map<OfKind<N, "DERIVED">, Map<OfKind<N, "DERIVED">, boolean>>();
  const targets = new PathIndex(derived, (d) => d.target);
  for (const node of nodes) {
    yield;
    for (const read of node.reads) {
      let insideDerived = false;
      for (const d of targets.overlapping(read.path)) {
        if (read.path.length < d.target.length && isPrefixOf(read.path, d.target)) {
          if (d.key !== node.key) enclosing.push({ from: d.key, to: node.key });
          if (node.kind === "DERIVED") {
            const reader = node as OfKind<N, "DERIVED">;
            const found = enclosed.get(reader) ?? enclosed.set(reader, new Map()).get(reader)!;
            // Through `$parent` only while no read from the root encloses it too.
            found.set(d, (found.get(d) ?? true) && read.elementScoped);
          }
          continue;
        }
        addEdge(d.key, node.key);
        if (isPrefixOf(d.target, read.path)) insideDerived = true;
      }
      if (!insideDerived) {
        const key = formatPath(read.path);
        baseKeys.add(key);
        addEdge(key, node.key);
      }
    }
  }

  const cycles = yield* findCycles(derived, preds);
  for (const { from, to } of enclosing) if (!reads(preds, from, to)) addEdge(from, to);
  const level = new Map<string, number>();
  for (const key of baseKeys) level.set(key, 0);
  const depthOf = (node: N, visiting: Set<string>): number => {
    const known = level.get(node.key);
    if (known !== undefined) return known;
    if (visiting.has(node.key)) return 1; // only reachable inside a reported cycle
    visiting.add(node.key);
    let depth = 0;
    for (const p of preds.get(node.key) ?? []) {
      const pred = byKey.get(p);
      depth = Math.max(depth, pred ? depthOf(pred, visiting) : 0);
    }
    visiting.delete(node.key);
    level.set(node.key, depth + 1);
    return depth + 1;
  };
  const byKey = new Map(nodes.map((n) => [n.key, n]));
  for (const node of nodes) {
    yield;
    node.level = depthOf(node, new Set());
  }

  const levels: string[][] = [[...baseKeys].sort()];
  for (const node of nodes) (levels[node.level] ??= []).push(node.key);
  for (let i = 0; i < levels.length; i++) levels[i] ??= [];

  for (const node of derived) hideUnordered(node, enclosed.get(node));

  const byLevel = (a: ExprNode, b: ExprNode) => a.level - b.level || a.index - b.index;
  return {
    nodes,
    baseKeys: [...baseKeys].sort(),
    edges,
    levels,
    derivedOrder: [...derived].sort(byLevel),
    metas: nodes.filter((n): n is OfKind<N, "META"> => n.kind === "META").sort(byLevel),
    constraints: nodes.filter((n): n is OfKind<N, "CONSTRAINT"> => n.kind === "CONSTRAINT"),
    effects: nodes.filter((n): n is OfKind<N, "EFFECT"> => n.kind === "EFFECT"),
    predecessors: preds,
    cycles,
  };
}

/**
 * Sets `reader.hides`: of the derived targets its reads enclose (each with whether only `$parent`
 * reaches it), its own and those of its level and above, which are not yet computed when it runs.
 */
function hideUnordered(
  reader: DerivedExprNode,
  found: ReadonlyMap<DerivedExprNode, boolean> = new Map(),
): void {
  delete reader.hides;
  const root: Segment[][] = [];
  const parent: Segment[][] = [];
  const element = reader.elementPattern;
  for (const [d, throughParent] of found) {
    if (d !== reader && d.level < reader.level) continue;
    const inElement = element !== null && throughParent &&
      element.every((seg, i) => d.target[i] === seg);
    if (inElement) parent.push(d.target.slice(element.length));
    else root.push(d.target);
  }
  if (root.length || parent.length) reader.hides = { root, parent };
}

/** True when `reader` reads `source` directly or through other nodes. */
function reads(preds: ReadonlyMap<string, ReadonlySet<string>>, reader: string, source: string): boolean {
  const seen = new Set<string>();
  const pending = [reader];
  while (pending.length) {
    const key = pending.pop()!;
    if (key === source) return true;
    if (seen.has(key)) continue;
    seen.add(key);
    pending.push(...(preds.get(key) ?? []));
  }
  return false;
}

/** Strongly connected components of size > 1, or self-loops (Tarjan). */
function* findCycles(nodes: ExprNode[], preds: Map<string, Set<string>>): Chunks<string[][]> {
  const keys = new Set(nodes.map((n) => n.key));
  const succ = new Map<string, string[]>();
  for (const [to, froms] of preds) {
    if (!keys.has(to)) continue;
    for (const from of froms) if (keys.has(from)) (succ.get(from) ?? succ.set(from, []).get(from)!).push(to);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of succ.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (succ.get(v) ?? []).includes(v)) cycles.push(component.reverse());
    }
  };
  for (const n of nodes) {
    yield;
    if (!index.has(n.key)) connect(n.key);
  }
  return cycles;
}
