/**
 * The variables a JSONata expression reads without binding them itself: what
 * must come from outside (bindings of the evaluation, built-ins). Scopes follow
 * JSONata's frames: a block and a function body each have their own, holding
 * the variables bound by `:=` anywhere in them (not only before the read, so a
 * recursive function finds itself) and a function's parameters; positional and
 * focus variables of a path step (`#$i`, `@$e`) are visible throughout that
 * path. `$` and `$$` (the context and the root) are never free.
 *
 * @module
 */
import { childrenOf } from "./ast_walk.ts";
import type { AstNode } from "./compiler.ts";

/** A read of a variable the expression does not bind. */
export interface FreeVariable {
  /** The name without `$`. */
  name: string;
  /** True when the variable is called (`$f(...)`, `$f(?, 1)`), false for a bare read. */
  call: boolean;
  /** The member a path reads from it (`rate` of `$const.rate`), when it starts a path with a name step. */
  member?: string;
  /** JSONata's position of the reference (the end of its token). */
  position?: number;
}

/**
 * The variables bound by `:=` in `node`'s frame (the whole expression, a block
 * or a function body), not those of the blocks and functions nested in it.
 */
export function frameBindings(node: AstNode): string[] {
  const names: string[] = [];
  const visit = (n: AstNode) => {
    if (n.type === "bind") names.push((n.lhs as AstNode).value as string);
    for (const child of childrenOf(n)) {
      if (child.type !== "block" && child.type !== "lambda") visit(child);
    }
  };
  visit(node);
  return names;
}

/** Positional (`#$i`) and focus (`@$e`) variables of a path's steps. */
function stepBindings(node: AstNode): string[] {
  const steps = (node.steps as AstNode[] | undefined) ?? [];
  return steps.flatMap((step) =>
    [step.focus, step.index].filter((name): name is string => typeof name === "string")
  );
}

/** Every free variable read of `ast`, in source order (one entry per reference). */
export function freeVariables(ast: AstNode): FreeVariable[] {
  const free: FreeVariable[] = [];
  /** The member name step after a variable that starts a path. */
  const members = new Map<AstNode, string>();
  const reference = (node: AstNode, call: boolean, scope: ReadonlySet<string>) => {
    const name = node.value as string;
    if (name === "" || name === "$" || scope.has(name)) return;
    const member = members.get(node);
    free.push({ name, call, position: node.position, ...(member === undefined ? {} : { member }) });
  };
  const walk = (node: AstNode, scope: ReadonlySet<string>) => {
    switch (node.type) {
      case "block":
        scope = new Set([...scope, ...frameBindings(node)]);
        break;
      case "lambda": {
        const params = ((node.arguments as AstNode[] | undefined) ?? []).map((a) => a.value as string);
        walk(node.body as AstNode, new Set([...scope, ...params, ...frameBindings(node.body as AstNode)]));
        return;
      }
      case "path": {
        const [head, next] = node.steps as AstNode[];
        if (head.type === "variable" && next?.type === "name") members.set(head, next.value as string);
        scope = new Set([...scope, ...stepBindings(node)]);
        break;
      }
      case "variable":
        reference(node, false, scope);
        break;
      case "bind":
        walk(node.rhs as AstNode, scope);
        return;
      case "function":
      case "partial": {
        const procedure = node.procedure as AstNode;
        if (procedure.type === "variable" && !procedure.predicate && !procedure.stages) {
          reference(procedure, true, scope);
        } else walk(procedure, scope);
        for (const arg of (node.arguments as AstNode[] | undefined) ?? []) walk(arg, scope);
        return;
      }
    }
    for (const child of childrenOf(node)) walk(child, scope);
  };
  walk(ast, new Set(frameBindings(ast)));
  return free;
}
