/**
 * The `constraints` section: boolean invariants with a rollback or flag policy.
 * Ids are unique; a per-element constraint (a `[*]` path) guards exactly one
 * path and runs once per element.
 *
 * @module
 */
import { elementPatternOf } from "../../graph/graph.ts";
import { hasWildcard } from "../../json/path.ts";
import type { NodeDefinition } from "../nodes.ts";
import type { Constraint, ModelSpec } from "../types.ts";
import type { SectionContext } from "./context.ts";

/** The CONSTRAINT nodes of a spec. */
export function compileConstraints(spec: ModelSpec, ctx: SectionContext): NodeDefinition[] {
  const definitions: NodeDefinition[] = [];
  const ids = new Set<string>();
  for (const { entry: c, index, location } of ctx.entries(spec, "constraints")) {
    if (typeof c.id === "string" && c.id.trim() !== "") {
      if (ids.has(c.id)) ctx.error(`${location}.id`, `duplicate constraint id '${c.id}'`);
      else ids.add(c.id);
    }
    const paths = c.path === undefined || c.path === null ? [] : Array.isArray(c.path) ? c.path : [c.path];
    const parsed = paths.map((p, j) =>
      ctx.address(p, Array.isArray(c.path) ? `${location}.path[${j}]` : `${location}.path`)
    );
    const compiled = ctx.expression(c.expr, `${location}.expr`);
    if (!compiled || typeof c.id !== "string" || parsed.includes(null)) continue;
    const wildcard = parsed.find((p) => p && hasWildcard(p));
    if (wildcard && parsed.length > 1) {
      ctx.error(`${location}.path`, "a per-element constraint ([*]) takes exactly one path");
      continue;
    }
    definitions.push({
      node: {
        key: `$constraint:${c.id}`,
        kind: "CONSTRAINT",
        label: typeof c.message === "string" ? c.message : c.id,
        expression: c.expr as string,
        elementPattern: wildcard ? elementPatternOf(wildcard) : null,
        index,
        reads: [],
        level: 0,
        compiled,
        constraint: c as unknown as Constraint,
      },
      sources: [compiled],
    });
  }
  return definitions;
}
