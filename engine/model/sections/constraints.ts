/**
 * The `constraints` section: boolean invariants with a rollback or flag policy.
 * Ids are unique; a per-element constraint (a `[*]` path) guards exactly one
 * path and runs once per element. A constraint reads its targets besides what
 * its expression reads, so a write there checks it; a global one whose answer
 * can change without a write (it reads no field, or calls the clock or
 * chance) is checked after every change.
 *
 * @module
 */
import { VOLATILE_BUILTINS } from "../../expr/builtin_names.ts";
import type { CompiledExpression } from "../../expr/compiler.ts";
import { extractReads } from "../../expr/dependencies.ts";
import { freeVariables } from "../../expr/free_variables.ts";
import { elementPatternOf } from "../../graph/graph.ts";
import { hasWildcard, type Segment } from "../../json/path.ts";
import type { NodeDefinition } from "../nodes.ts";
import type { Constraint, ModelSpec } from "../types.ts";
import type { Chunks } from "../../pacing.ts";
import type { SectionContext } from "./context.ts";

/** The CONSTRAINT nodes of a spec. */
export function* compileConstraints(spec: ModelSpec, ctx: SectionContext): Chunks<NodeDefinition[]> {
  const definitions: NodeDefinition[] = [];
  const ids = new Set<string>();
  for (const { entry: c, index, location } of ctx.entries(spec, "constraints")) {
    yield;
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
        ...(parsed.length === 0 && changesUnwritten(compiled) ? { everyChange: true } : {}),
      },
      sources: [compiled],
      alsoReads: parsed as Segment[][],
    });
  }
  return definitions;
}

/** Whether an expression's answer may change with no write: it reads no field, or calls the clock or chance. */
function changesUnwritten(compiled: CompiledExpression): boolean {
  // Calls of lent built-ins (`opaqueCalls`) only add reads, which node_graph.ts links: missing them errs safe.
  return extractReads(compiled.ast, { isArray: () => false }).length === 0 ||
    freeVariables(compiled.ast).some((variable) => VOLATILE_BUILTINS.has(variable.name));
}
