/**
 * Reads of an expression's input document: a field, `$` (the context), `$$`
 * (the root), `*`, `**`, `%` or a built-in called without its first argument
 * (`$string()`: JSONata passes the context) where the context is the evaluation's input (or,
 * inside a function body, the input the function was defined with). Bodies that
 * run against something else are exempt: predicates, index filters, sort terms
 * and group-by pairs (against the elements they filter, sort or group) and the
 * steps of a path after its first (against the previous step's result). What
 * remains is what an expression cannot compute from its arguments and
 * variables alone.
 *
 * @module
 */
import { childrenOf, relativeParts } from "./ast_walk.ts";
import { contextCalls } from "./builtin_names.ts";
import type { AstNode } from "./compiler.ts";

/** One read of the input. */
export interface InputRead {
  /** What is read, as written: `price`, `$`, `$$`, `*`, `**`, `%`; a call: `$trim() without its first argument`. */
  what: string;
  position?: number;
}

const STEP_READS: Record<string, (node: AstNode) => string> = {
  name: (node) => String(node.value),
  wildcard: () => "*",
  descendant: () => "**",
  parent: () => "%",
};

/** Every read of the input in `ast`, in source order. */
export function inputReads(ast: AstNode): InputRead[] {
  const reads: InputRead[] = [];
  const calls = contextCalls(ast);
  const walk = (node: AstNode, rooted: boolean) => {
    const relative = relativeParts(node);
    const step = STEP_READS[node.type];
    if (step && rooted) reads.push({ what: step(node), position: node.position });
    if (node.type === "variable" && rooted && (node.value === "" || node.value === "$")) {
      reads.push({ what: node.value === "" ? "$" : "$$", position: node.position });
    }
    // only a built-in sure to take the context: a library is refused on certainty
    if (calls.get(node) === 2 && rooted) {
      const name = ((node.procedure ?? node) as AstNode).value;
      reads.push({ what: `$${name}() without its first argument`, position: node.position });
    }
    if (node.type === "path") (node.steps as AstNode[]).forEach((s, i) => walk(s, rooted && i === 0));
    else if (node.type === "lambda") walk(node.body as AstNode, true);
    else {
      for (const child of childrenOf(node)) if (!relative.includes(child)) walk(child, rooted);
    }
    for (const part of relative) walk(part, false);
  };
  walk(ast, true);
  return reads;
}
