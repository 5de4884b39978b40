/**
 * Which fields of a model hold values that change from one run to the next:
 * those an expression calling the clock or chance (`$now`, `$millis`,
 * `$random`, `$shuffle`) computes, directly or through what it reads. The
 * verification report does not auto-check expectations on them, since they
 * would pass or fail by the time of the run.
 *
 * @module
 */
import { VOLATILE_BUILTINS } from "../expr/builtin_names.ts";
import type { AstNode } from "../expr/compiler.ts";
import { freeVariables } from "../expr/free_variables.ts";
import { pathsOverlap, type Segment } from "../json/path.ts";
import type { CompiledModel } from "../model/compile.ts";

/** True when an expression calls the clock or chance itself (a library function cannot). */
function volatile(ast: AstNode): boolean {
  return freeVariables(ast).some((variable) => VOLATILE_BUILTINS.has(variable.name));
}

/**
 * The patterns of the fields whose values depend on the clock or chance: what a
 * default rule calling them may fill (the members of its object constructor
 * that call them, else its whole container) and the targets of derivations
 * calling them or reading such a field, in evaluation order so the dependence
 * flows downstream.
 */
export function clockBoundPatterns(model: CompiledModel): Segment[][] {
  const bound: Segment[][] = [];
  for (const rule of model.defaults) {
    const ast = rule.compiled.ast;
    if (!volatile(ast)) continue;
    const members = ast.type === "unary" && ast.value === "{" ? ast.lhs as unknown as AstNode[][] : null;
    if (!members?.every(([key]) => key.type === "string")) bound.push(rule.path);
    else {for (const [key, value] of members) {
        if (volatile(value)) bound.push([...rule.path, key.value as string]);
      }}
  }
  for (const node of model.graph.derivedOrder) {
    if (volatile(node.compiled.ast) || node.reads.some((r) => bound.some((p) => pathsOverlap(r.path, p)))) {
      bound.push(node.target);
    }
  }
  return bound;
}
