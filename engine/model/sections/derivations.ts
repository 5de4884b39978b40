/**
 * The `derivations` section: computed, read-only fields. A target is a field
 * (not the root, not a bare `[*]`: a per-element derivation names a field of
 * each element) that no other derivation's target equals or encloses.
 *
 * @module
 */
import { elementPatternOf } from "../../graph/graph.ts";
import { formatPath, isPrefixOf, WILDCARD } from "../../json/path.ts";
import { PathIndex } from "../../json/path_index.ts";
import type { DerivedNode, NodeDefinition } from "../nodes.ts";
import type { ModelSpec } from "../types.ts";
import type { Chunks } from "../../pacing.ts";
import type { SectionContext } from "./context.ts";

/** The DERIVED nodes of a spec. */
export function* compileDerivations(spec: ModelSpec, ctx: SectionContext): Chunks<NodeDefinition[]> {
  const definitions: NodeDefinition[] = [];
  const targets = new PathIndex<DerivedNode>([], (t) => t.target);
  for (const { entry: d, index, location } of ctx.entries(spec, "derivations")) {
    yield;
    const target = ctx.address(d.path, `${location}.path`);
    const compiled = ctx.expression(d.expr, `${location}.expr`);
    if (!target || !compiled || target.length === 0) continue;
    const key = formatPath(target);
    const clash = targets.find(target, (other) => isPrefixOf(other, target) || isPrefixOf(target, other));
    if (clash) {
      ctx.error(
        `${location}.path`,
        clash.key === key
          ? `two derivations target the same path ${key}`
          : `derivation target ${key} overlaps the derivation target ${clash.key}`,
      );
      continue;
    }
    if (target[target.length - 1] === WILDCARD) {
      ctx.error(`${location}.path`, `'${key}' must name a field of each element, e.g. '${key}.total'`);
      continue;
    }
    if (typeof target[target.length - 1] === "number") {
      // A snapshot keeps derived values apart from the base document: taking an element out of an array
      // would move the ones after it.
      ctx.error(
        `${location}.path`,
        `'${key}' is an array element: a derivation targets a field of an object`,
      );
      continue;
    }
    const node: DerivedNode = {
      key,
      kind: "DERIVED",
      label: typeof d.description === "string" ? d.description : key,
      expression: d.expr as string,
      target,
      elementPattern: elementPatternOf(target),
      index,
      reads: [],
      level: 0,
      compiled,
      lazy: d.evaluation === "lazy",
    };
    targets.add(node);
    definitions.push({ node, sources: [compiled] });
  }
  return definitions;
}
