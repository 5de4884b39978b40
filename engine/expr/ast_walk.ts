/**
 * The sub-expressions of a JSONata AST node, whatever its kind: the analyses
 * that look at every node (free variables, reads of the input) share this one
 * notion of "child", so a node kind they do not single out is still walked.
 *
 * @module
 */
import type { AstNode } from "./compiler.ts";

/** Members of AST nodes that hold annotations (names, positions, parent slots), not sub-expressions. */
const ANNOTATIONS = new Set([
  "type",
  "value",
  "position",
  "slot",
  "ancestor",
  "seekingParent",
  "signature",
  "focus",
  "index",
  "tuple",
  "keepArray",
  "consarray",
  "thunk",
  "token",
]);

/** Whether `value` is an AST node. */
export function isAstNode(value: unknown): value is AstNode {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    typeof (value as AstNode).type === "string";
}

/**
 * The nodes directly below `node`: members that are nodes, and the nodes inside
 * member arrays and plain containers (object constructor pairs, `group`, sort
 * terms).
 */
export function childrenOf(node: AstNode): AstNode[] {
  const children: AstNode[] = [];
  const collect = (value: unknown) => {
    if (isAstNode(value)) children.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (typeof value === "object" && value !== null && !(value instanceof RegExp)) {
      Object.values(value).forEach(collect);
    }
  };
  for (const [key, value] of Object.entries(node)) {
    if (!ANNOTATIONS.has(key)) collect(value);
  }
  return children;
}

/**
 * The parts of a node evaluated against other data than its context: filters
 * (against the elements), group-by pairs, sort terms.
 */
export function relativeParts(node: AstNode): AstNode[] {
  return [
    ...(node.stages as AstNode[] ?? []),
    ...(node.predicate as AstNode[] ?? []),
    ...((node.group as { lhs: AstNode[][] } | undefined)?.lhs.flat() ?? []),
    ...(node.type === "sort" ? (node.terms as { expression: AstNode }[]).map((t) => t.expression) : []),
  ];
}
