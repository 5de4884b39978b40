/**
 * The dependency-graph projection served to callers (DECISIONS.md "Dependency graph").
 *
 * @module
 */
import type { DependencyGraph, Edge, NodeKind } from "./graph.ts";

/** A projected node. */
export interface GraphNodeView {
  key: string;
  kind: NodeKind;
  label: string;
  expression: string | null;
}

/** The projection: a pure function of the compiled spec. */
export interface GraphView {
  modelId: string;
  nodes: GraphNodeView[];
  edges: Edge[];
  levels: string[][];
}

/** Projects a graph for a model. */
export function projectGraph(modelId: string, graph: DependencyGraph): GraphView {
  return {
    modelId,
    nodes: [
      ...graph.baseKeys.map((key) => ({ key, kind: "BASE" as const, label: key, expression: null })),
      ...graph.nodes.map((n) => ({ key: n.key, kind: n.kind, label: n.label, expression: n.expression })),
    ],
    edges: graph.edges.map((e) => ({ ...e })),
    levels: graph.levels.map((l) => [...l]),
  };
}
