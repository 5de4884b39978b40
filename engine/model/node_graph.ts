/**
 * The dependency graph of a compiled spec: every node's reads (of all the
 * expressions it depends on), the graph built over them, and its cycles as
 * findings. A read of a field that holds an array — by the schema, or because a
 * derivation targets its elements — reads its elements.
 *
 * @module
 */
import { extractReads, type Read } from "../expr/dependencies.ts";
import { freeVariables } from "../expr/free_variables.ts";
import { buildGraph, type DependencyGraph } from "../graph/graph.ts";
import { formatPath, isPrefixOf, type Segment, WILDCARD } from "../json/path.ts";
import type { CompiledNode, NodeDefinition } from "./nodes.ts";
import type { Chunks } from "../pacing.ts";
import type { SchemaIndex } from "./schema_index.ts";
import type { SectionContext } from "./sections/context.ts";
import { locationOf } from "./undeclared_reads.ts";

/**
 * Links the nodes by what they read; a dependency cycle is an error at its
 * first entry's `derivations[i].expr`, naming each entry's. `opaqueCalls`: the library lends built-ins (see `extractReads`).
 */
export function* linkNodes(
  definitions: NodeDefinition[],
  schema: SchemaIndex,
  ctx: SectionContext,
  opaqueCalls?: boolean,
): Chunks<DependencyGraph<CompiledNode>> {
  const arrayPrefixes = new Set<string>();
  for (const { node } of definitions) {
    if (node.kind !== "DERIVED") continue;
    node.target.forEach((seg, i) => {
      if (seg === WILDCARD) arrayPrefixes.add(formatPath(node.target.slice(0, i)));
    });
  }
  const isArray = (pattern: readonly Segment[]) =>
    arrayPrefixes.has(formatPath(pattern)) || schema.isArrayAt(pattern);
  for (const { node, sources, alsoReads } of definitions) {
    yield;
    const reads = new Map<string, Read>();
    for (const path of alsoReads ?? []) {
      // A location inside the node's element (a `$.items[*]` constraint's target) is read per element.
      const elementScoped = node.elementPattern !== null && isPrefixOf(node.elementPattern, path);
      reads.set((elementScoped ? "e" : "r") + formatPath(path), { path, elementScoped });
    }
    for (const compiled of sources) {
      // `$parent` is the element of a per-element ([*]) entry; anywhere else it is bound to nothing.
      const parent = node.elementPattern
        ? undefined
        : freeVariables(compiled.ast).find((v) => v.name === "parent");
      if (parent) {
        ctx.warn(
          locationOf(node),
          `reads $parent at position ${parent.position}, which only a per-element ([*]) path binds: ` +
            "it is always undefined",
        );
      }
      for (
        const r of extractReads(compiled.ast, {
          isArray,
          elementPattern: node.elementPattern ?? undefined,
          opaqueCalls,
        })
      ) {
        reads.set((r.elementScoped ? "e" : "r") + formatPath(r.path), r);
      }
    }
    node.reads = [...reads.values()];
  }
  const graph = yield* buildGraph(definitions.map(({ node }) => node));
  yield;
  const indexOf = new Map(definitions.map(({ node }) => [node.key, node.index]));
  for (const cycle of graph.cycles) {
    // Each entry of the cycle, with where it is written: the author fixes one of those expressions.
    const at = (key: string) => `derivations[${indexOf.get(key)}].expr`;
    ctx.error(
      at(cycle[0]),
      `dependency cycle among ${cycle.map((key) => `${key} (${at(key)})`).join(" -> ")}${
        cycle.length > 1 ? ` -> ${cycle[0]}` : " (reads its own value)"
      }`,
    );
  }
  return graph;
}
