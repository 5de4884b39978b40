/// <reference lib="dom" />
/**
 * The dependency graph drawn as an SVG picture: base fields in the first
 * column, then one column per topological level, left to right; edges as
 * curves from a node to the nodes that read it. Every node names its
 * expression in a tooltip and the picture carries a text alternative.
 *
 * @module
 */
import { html, svg, type TemplateResult } from "lit";
import { type GraphView, operations } from "../../engine/mod.ts";
import { ModelPanel } from "./model_panel.ts";

const NODE_W = 170;
const NODE_H = 26;
const GAP_X = 60;
const GAP_Y = 10;

/** Node positions: column by level (base fields first), row by order within it. */
export function layoutGraph(graph: GraphView): Map<string, { x: number; y: number; column: number }> {
  const columns: string[][] = [];
  const base = graph.nodes.filter((n) => n.kind === "BASE").map((n) => n.key);
  if (base.length) columns.push(base);
  const placed = new Set(base);
  for (const level of graph.levels) {
    const keys = level.filter((k) => !placed.has(k));
    keys.forEach((k) => placed.add(k));
    if (keys.length) columns.push(keys);
  }
  const rest = graph.nodes.map((n) => n.key).filter((k) => !placed.has(k));
  if (rest.length) columns.push(rest);
  const out = new Map<string, { x: number; y: number; column: number }>();
  columns.forEach((keys, column) =>
    keys.forEach((key, row) =>
      out.set(key, { x: column * (NODE_W + GAP_X), y: row * (NODE_H + GAP_Y), column })
    )
  );
  return out;
}

/** `<svc-graph-panel>`. */
export class GraphPanel extends ModelPanel {
  static override properties = { ...ModelPanel.properties, graph: { state: true } };
  graph: GraphView | null = null;

  protected override async load(): Promise<void> {
    this.graph = await this.connection!.invoker.invoke(operations.getGraph, { id: this.modelId });
  }

  protected override render(): TemplateResult {
    const graph = this.graph;
    if (!graph) return html`<h2>Dependency graph</h2>${this.problemLine()}`;
    const at = layoutGraph(graph);
    const width = Math.max(...[...at.values()].map((p) => p.x), 0) + NODE_W + 4;
    const height = Math.max(...[...at.values()].map((p) => p.y), 0) + NODE_H + 4;
    const kinds = new Map(graph.nodes.map((n) => [n.key, n]));
    const summary =
      `${graph.nodes.length} nodes in ${new Set([...at.values()].map((p) => p.column)).size} levels, ` +
      `${graph.edges.length} dependencies: ${graph.edges.map((e) => `${e.to} reads ${e.from}`).join("; ")}`;
    // The picture scrolls in its box, which takes focus so that the keyboard can scroll it too.
    return html`
      <h2>Dependency graph</h2>
            <p class="muted">Base fields on the left; each column depends only on columns to its left.</p>
            ${this.problemLine()}
            <div class="graph-wrap" tabindex="0" role="region" aria-label="Dependency graph picture">
        <svg class="graph" width=${width} height=${height} viewBox=${`-2 -2 ${width} ${height}`} role="img"
          aria-label=${summary}>
                ${graph.edges.map((e) => {
                  const a = at.get(e.from);
                  const b = at.get(e.to);
                  if (!a || !b) return svg``;
                  const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x, y2 = b.y + NODE_H / 2;
                  return svg`<path class="edge" d=${`M${x1} ${y1} C${x1 + GAP_X / 2} ${y1} ${
                    x2 - GAP_X / 2
                  } ${y2} ${x2} ${y2}`}/>`;
                })}
                ${[...at].map(([key, p]) => {
                  const node = kinds.get(key);
                  return svg`
                    <g class=${`node ${node?.kind ?? ""}`} transform=${`translate(${p.x} ${p.y})`}>
                      <title>${node?.kind ?? ""} ${key}${node?.label && node.label !== key
                        ? `: ${node.label}`
                        : ""}${node?.expression ? ` = ${node.expression}` : ""}</title>
                      <rect width=${NODE_W} height=${NODE_H} rx="5" />
                      <text x="8" y="17">${key.length > 25 ? `${key.slice(0, 24)}…` : key}</text>
                    </g>
                  `;
                })}
              </svg>
      </div>
            <p class="legend"><span class="key BASE">base</span> <span class="key DERIVED">derived</span>
              <span class="key META">meta</span> <span class="key CONSTRAINT">constraint</span> <span class="key EFFECT">effect</span></p>
    `;
  }
}
customElements.define("svc-graph-panel", GraphPanel);
