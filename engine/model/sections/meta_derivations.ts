/**
 * The `metaDerivations` section: live metadata of fields, one node per
 * `path#property` (kept under the snake_case property name, `$.total#read_only`).
 *
 * @module
 */
import { expectRegexEngine } from "../../expr/re2.ts";
import { elementPatternOf } from "../../graph/graph.ts";
import { formatPath } from "../../json/path.ts";
import type { NodeDefinition } from "../nodes.ts";
import { META_PROPERTIES, metaKeyName, type ModelSpec } from "../types.ts";
import type { Chunks } from "../../pacing.ts";
import type { SectionContext } from "./context.ts";

/** The META nodes of a spec. */
export function* compileMetaDerivations(spec: ModelSpec, ctx: SectionContext): Chunks<NodeDefinition[]> {
  const definitions: NodeDefinition[] = [];
  const keys = new Set<string>();
  for (const { entry: m, index, location } of ctx.entries(spec, "metaDerivations")) {
    yield;
    const target = ctx.address(m.path, `${location}.path`);
    const compiled = ctx.expression(m.expr, `${location}.expr`);
    if (!META_PROPERTIES.includes(m.property as never) || !target || !compiled) continue;
    const metaKey = metaKeyName(m.property as string);
    const key = `${formatPath(target)}#${metaKey}`;
    if (keys.has(key)) {
      ctx.error(location, `two meta derivations compute ${key}`);
      continue;
    }
    keys.add(key);
    // Its pattern is computed and tested at write time, synchronously: RE2 must be loaded by then.
    if (m.property === "pattern") expectRegexEngine();
    definitions.push({
      node: {
        key,
        kind: "META",
        label: typeof m.description === "string" ? m.description : key,
        expression: m.expr as string,
        target,
        elementPattern: elementPatternOf(target),
        index,
        reads: [],
        level: 0,
        compiled,
        metaKey,
      },
      sources: [compiled],
    });
  }
  return definitions;
}
