/**
 * Dependency extraction from a JSONata AST.
 *
 * Field references become `$`-rooted path patterns: a name step after an array
 * becomes `[*]` (`items.lineTotal` -> `$.items[*].lineTotal`), a numeric filter an
 * index (`board[0]` -> `$.board[0]`), and references inside a filter predicate
 * are scoped to the filtered element (`items[type='a'].qty` reads
 * `$.items[*].type` and `$.items[*].qty`). `$parent` resolves to the element of a
 * wildcard node (an *element-scoped* read); `$const` is bound, not a dependency.
 *
 * A built-in that may take the context as its first argument (`$string()`,
 * `$sift(function($v) {…})`, `x ~> $substringBefore`, a built-in used as a value:
 * see {@link contextCalls}) reads its context whole.
 *
 * A read means "this location and everything below it". Where the walk loses
 * track of the context (a function result, a variable), the data must have come
 * from an earlier read that covers it, so nothing is lost by ignoring it.
 *
 * @module
 */
import { childrenOf, relativeParts } from "./ast_walk.ts";
import { contextCalls } from "./builtin_names.ts";
import type { AstNode } from "./compiler.ts";
import { formatPath, type Segment, WILDCARD } from "../json/path.ts";

/** One location an expression reads. */
export interface Read {
  /** The location, as a pattern (may hold wildcards). */
  path: Segment[];
  /** True when the read is relative to the current element (`$parent...`). */
  elementScoped: boolean;
}

/** Tells whether a location pattern holds an array (from the schema and derivation targets). */
export type ArrayOracle = (pattern: readonly Segment[]) => boolean;

interface Context {
  path: Segment[];
  elementScoped: boolean;
}

/** Options of {@link extractReads}. */
export interface ExtractOptions {
  /** The element `$parent` is bound to, for wildcard nodes. */
  elementPattern?: readonly Segment[];
  isArray: ArrayOracle;
  /** The model's library lends built-ins: calls of function values it may hand out read their context. */
  opaqueCalls?: boolean;
}

/** Extracts the locations an expression reads. Duplicate reads are merged. */
export function extractReads(ast: AstNode, options: ExtractOptions): Read[] {
  const reads = new Map<string, Read>();
  const root: Context = { path: [], elementScoped: false };
  const calls = contextCalls(ast, options.opaqueCalls);

  const addRead = (ctx: Context | null) => {
    if (!ctx) return;
    const key = (ctx.elementScoped ? "e:" : "r:") + formatPath(ctx.path);
    if (!reads.has(key)) reads.set(key, { path: ctx.path, elementScoped: ctx.elementScoped });
  };

  /** The context of the elements when `ctx` holds an array, else `ctx` itself. */
  const elementsOf = (ctx: Context): Context => {
    const last = ctx.path[ctx.path.length - 1];
    if (typeof last === "number" || !options.isArray(ctx.path)) return ctx;
    return { path: [...ctx.path, WILDCARD], elementScoped: ctx.elementScoped };
  };

  const child = (ctx: Context, name: string): Context => {
    const base = elementsOf(ctx);
    return { path: [...base.path, name], elementScoped: base.elementScoped };
  };

  const applyFilters = (filters: AstNode[], ctx: Context | null): Context | null => {
    let cur = ctx;
    for (const stage of filters) {
      if (stage.type !== "filter") {
        // index binds (#$i) keep the context; group-by pairs and sort terms are walked apart
        continue;
      }
      const expr = stage.expr as AstNode;
      if (cur && expr.type === "number" && Number.isInteger(expr.value) && options.isArray(cur.path)) {
        const value = expr.value as number;
        cur = value >= 0 ? { path: [...cur.path, value], elementScoped: cur.elementScoped } : elementsOf(cur);
        continue;
      }
      const items = cur ? elementsOf(cur) : null;
      walkTerminal(expr, items);
      cur = items;
    }
    return cur;
  };

  const walkGroup = (group: unknown, ctx: Context | null) => {
    const pairs = (group as { lhs?: AstNode[][] } | undefined)?.lhs ?? [];
    const items = ctx ? elementsOf(ctx) : null;
    for (const [k, v] of pairs) {
      walkTerminal(k, items);
      walkTerminal(v, items);
    }
  };

  /** Walks a path expression; returns the location of its result (null when unknown). */
  const walkPath = (node: AstNode, ctx: Context | null): Context | null => {
    let cur: Context | null = ctx;
    const steps = node.steps as AstNode[];
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      if (step.tuple || step.focus || step.index) {
        // positional/focus binds: fall back to reading the whole prefix
        if (cur && step.type === "name") addRead(child(cur, step.value as string));
        else addRead(cur);
        for (const rest of steps.slice(i + 1)) walkTerminal(rest, null);
        return null;
      }
      switch (step.type) {
        case "name":
          cur = cur ? child(cur, step.value as string) : null;
          break;
        case "variable":
          cur = i === 0 ? variableContext(step.value as string, cur) : null;
          break;
        case "wildcard":
        case "descendant":
          addRead(cur);
          cur = null;
          break;
        case "parent":
          cur = cur ? parentOf(cur) : null;
          break;
        case "sort":
          for (const term of (step.terms as { expression: AstNode }[]) ?? []) {
            walkTerminal(term.expression, cur ? elementsOf(cur) : null);
          }
          break;
        default:
          cur = walk(step, cur ? elementsOf(cur) : null);
      }
      if (step.type !== "sort") cur = applyFilters(relativeParts(step), cur);
      if (step.group) walkGroup(step.group, cur);
    }
    return cur;
  };

  const variableContext = (name: string, ctx: Context | null): Context | null => {
    if (name === "") return ctx; // `$`: the context item (null when unknown)
    if (name === "$") return root; // `$$`: the root
    if (name === "parent" && options.elementPattern) {
      return { path: [...options.elementPattern], elementScoped: true };
    }
    return null; // $const and local variables: bound values, not document reads
  };

  const parentOf = (ctx: Context): Context | null => {
    const path = [...ctx.path];
    while (path.length && typeof path[path.length - 1] === "number") path.pop();
    if (!path.length) return null;
    path.pop();
    return { path, elementScoped: ctx.elementScoped };
  };

  /**
   * Walks any node in context `ctx` (null: unknown data). Returns the location of
   * the node's result when it is a located piece of the document. Terminal reads
   * are recorded by the caller of the outermost expression.
   */
  const walk = (node: AstNode | undefined, ctx: Context | null): Context | null => {
    if (!node || typeof node !== "object") return null;
    let result: Context | null = null;
    if (calls.get(node)) addRead(ctx);
    switch (node.type) {
      case "path":
        result = walkPath(node, ctx);
        if (node.group) walkGroup(node.group, result);
        addRead(result);
        return null;
      case "name":
        result = ctx ? child(ctx, node.value as string) : null;
        break;
      case "variable":
        result = variableContext(node.value as string, ctx);
        break;
      case "block": {
        const exprs = (node.expressions as AstNode[]) ?? [];
        exprs.forEach((e, i) => {
          if (i < exprs.length - 1) walkTerminal(e, ctx);
        });
        result = exprs.length ? walk(exprs[exprs.length - 1], ctx) : null;
        break;
      }
      case "wildcard":
      case "descendant":
        addRead(ctx);
        break;
      case "parent":
        result = ctx ? parentOf(ctx) : null;
        break;
      default: {
        // operators, calls, constructors, functions: every part against the context
        const relative = relativeParts(node);
        for (const part of childrenOf(node)) if (!relative.includes(part)) walkTerminal(part, ctx);
      }
    }
    return finish(node, result);
  };

  /** Applies a non-path node's predicates and group-by to its result location. */
  const finish = (node: AstNode, result: Context | null): Context | null => {
    let cur = result;
    if (node.predicate) cur = applyFilters(relativeParts(node), cur);
    if (node.group) walkGroup(node.group, cur);
    return cur;
  };

  /** Walks a node whose result is consumed as a value: its location is read whole. */
  const walkTerminal = (node: AstNode | undefined, ctx: Context | null) => {
    addRead(walk(node, ctx));
  };

  walkTerminal(ast, root);
  return [...reads.values()];
}
