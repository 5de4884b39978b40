/**
 * Reads of an expression's input document: a field, `$` (the context), `$$`
 * (the root), `*`, `**` or `%` where the context is the evaluation's input (or,
 * inside a function body, the input the function was defined with). Bodies that
 * run against something else are exempt: predicates, index filters, sort terms
 * and group-by pairs (against the elements they filter, sort or group) and the
 * steps of a path after its first (against the previous step's result). What
 * remains is what an expression cannot compute from its arguments and
 * variables alone.
 *
 * @module
 */
import { childrenOf } from "./ast_walk.ts";
import type { AstNode } from "./compiler.ts";

/** One read of the input. */
export interface InputRead {
  /** What is read, as written: `price`, `$`, `$$`, `*`, `**`, `%`. */
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
  /** Members of a node that run against other data than the node's own context. */
  const relative = (node: AstNode) => {
    for (const stage of [...(node.stages as AstNode[] ?? []), ...(node.predicate as AstNode[] ?? [])]) {
      walk(stage, false);
    }
    if (node.group) {
      for (const pair of (node.group as { lhs: AstNode[][] }).lhs) pair.forEach((n) => walk(n, false));
    }
    if (node.type === "sort") {
      for (const term of node.terms as { expression: AstNode }[]) walk(term.expression, false);
    }
  };
  const walk = (node: AstNode, rooted: boolean) => {
    const step = STEP_READS[node.type];
    if (step) {
      if (rooted) reads.push({ what: step(node), position: node.position });
      relative(node);
      return;
    }
    switch (node.type) {
      case "variable":
        if (rooted && (node.value === "" || node.value === "$")) {
          reads.push({ what: node.value === "" ? "$" : "$$", position: node.position });
        }
        relative(node);
        return;
      case "path": {
        const steps = node.steps as AstNode[];
        steps.forEach((s, i) => walk(s, rooted && i === 0));
        relative(node);
        return;
      }
      case "lambda":
        walk(node.body as AstNode, true);
        return;
      case "sort":
        relative(node);
        return;
    }
    const exempt = new Set<AstNode>([
      ...(node.stages as AstNode[] ?? []),
      ...(node.predicate as AstNode[] ?? []),
      ...((node.group as { lhs: AstNode[][] } | undefined)?.lhs.flat() ?? []),
    ]);
    for (const child of childrenOf(node)) if (!exempt.has(child)) walk(child, rooted);
    relative(node);
  };
  walk(ast, true);
  return reads;
}
