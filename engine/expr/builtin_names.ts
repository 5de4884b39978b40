/**
 * The names of JSONata's built-in functions (`$sum`, `$now`, …): what every
 * expression can call without binding it, what a library may not redefine,
 * which of them answer differently from one evaluation to the next, and which
 * read the context when called without their first argument.
 *
 * @module
 */
import { childrenOf } from "./ast_walk.ts";
import type { AstNode } from "./compiler.ts";
import { freeVariables } from "./free_variables.ts";

/**
 * Every built-in of the JSONata version the engine runs, grouped by the
 * signature of those with a parameter marked `-` (the first: the context when
 * missing), first those without. A group's signature is its members' own, or
 * one that gives them the context in exactly the same calls (`s-` stands for
 * every signature whose later parameters never take a first argument's place).
 * Plain strings keep the browser bundle small.
 */
const BY_SIGNATURE = [
  " sum count max min average join random map zip filter single reduce append exists merge reverse error " +
  "assert type sort shuffle distinct eval now millis",
  "s- string lowercase uppercase length trim base64encode base64decode encodeUrlComponent encodeUrl decodeUrlComponent " +
  "decodeUrl floor ceil abs sqrt boolean not keys spread number clone formatBase round toMillis",
  "s-s substringBefore substringAfter parseInteger lookup formatInteger",
  "o-f? sift",
  "s-nn? substring",
  "s-ns? pad",
  "s-fn? match",
  "s-(sf) contains",
  "s-(sf)n? split",
  "n-so? formatNumber",
  "n-n power",
  "o-f each",
  "n-s?s? fromMillis",
  "s-(sf)(sf)n? replace",
];
const SIGNATURES = new Map(
  BY_SIGNATURE.flatMap((group) => {
    const [signature, ...names] = group.split(" ");
    return names.map((name) => [name, signature]);
  }),
);

/** Every built-in function of the JSONata version the engine runs, without `$`. */
export const JSONATA_BUILTINS: ReadonlySet<string> = new Set(SIGNATURES.keys());

/**
 * Built-ins whose answer changes between evaluations (the clock, chance):
 * what a value computed once, or compared across commits, must not use.
 */
export const VOLATILE_BUILTINS: ReadonlySet<string> = new Set(["now", "millis", "random", "shuffle"]);

/**
 * JSONata's type symbol of an argument when its syntax fixes it, else `?`.
 * `a` (array) also stands for booleans and null: no parameter of a signature
 * marked `-` takes any of them (see {@link BY_SIGNATURE}).
 */
const symbolOf = ({ type, value, predicate, stages }: AstNode): string =>
  predicate || stages
    ? "?"
    : type === "string"
    ? "s"
    : type === "number"
    ? "n"
    : type === "value" || type === "unary" && value === "["
    ? "a"
    : /^(lambda|regex|partial)$/.test(type)
    ? "f"
    : type === "unary" && value === "{"
    ? "o"
    : "?";

/**
 * Whether JSONata passes the context as the first argument of a call with
 * arguments of these type symbols (`?`: unknown): 2 surely (or the call fails),
 * 1 maybe, 0 never. As JSONata's signature matching: the context is taken when
 * the arguments do not match all the parameters but match those after the
 * first (`$substring(1, 2)`, `$sift(function($v) {…})`).
 */
function takesContext(signature: string, symbols: string): number {
  // each parameter as a class of one symbol; `m` (undefined) fits any but `f`
  const [first, rest] = signature.split("-").map((part) =>
    part.replace(/\((\w+)\)|\w/g, (type, choice = type) => type === "f" ? type : `[${choice}m]`)
  );
  const all = RegExp(`^${first}${rest}$`), shifted = RegExp(`^${rest}$`);
  let taken = 0, kept = 0;
  const visit = (s: string): void => {
    // every symbol the signatures tell apart for an unknown argument
    if (s.includes("?")) { for (const symbol of "asnfom") visit(s.replace("?", symbol)); }
    else if (all.test(s)) kept++;
    else if (shifted.test(s)) taken++;
  };
  // no signature has more than four parameters: more arguments fail
  if (symbols.length < 5) visit(symbols);
  return taken && (kept ? 1 : 2);
}

/**
 * The nodes of `ast` where a built-in may take the context as its first
 * argument, each with 2 when it surely does, 1 when it may: calls
 * (`$string()`, `$substringBefore(',')`, `$sift(function($v) {…})`; on the
 * right of `~>` the left side is the first argument: `x ~> $trim`), partial
 * applications, and built-ins used as values (`$g := $trim`, whose calls the
 * analysis cannot follow). Variables bound in scope are not built-ins.
 * With `opaque` (a library lends built-ins: {@link lendsBuiltins}), a call or
 * partial of any function value but a built-in named there or a function
 * written there may take the context too (`$lib()()`, `$f()` with
 * `$f := $lib()`): the value may be such a built-in.
 */
export function contextCalls(ast: AstNode, opaque = false): Map<AstNode, number> {
  const free = new Set(freeVariables(ast).map((v) => v.position));
  const calls = new Map<AstNode, number>();
  const signatureOf = (node: AstNode) =>
    node.type === "variable" && free.has(node.position) ? SIGNATURES.get(node.value as string) : undefined;
  const judge = (node: AstNode, procedure: AstNode, args: AstNode[]) => {
    const signature = signatureOf(procedure);
    if (signature === undefined) {
      if (opaque && procedure.type !== "lambda") calls.set(node, 1);
      return;
    }
    calls.set(procedure, 0); // called, not used as a value
    if (signature) calls.set(node, takesContext(signature, args.map(symbolOf).join("")));
  };
  const argumentsOf = (node: AstNode) => node.arguments as AstNode[] ?? [];
  const visit = (node: AstNode) => {
    const rhs = node.rhs as AstNode;
    if (node.type === "apply") {
      judge(rhs, rhs.procedure as AstNode ?? rhs, [node.lhs as AstNode, ...argumentsOf(rhs)]);
    }
    if (calls.has(node)) {
      // judged as the right side of `~>`, or a procedure
    } else if (node.procedure) judge(node, node.procedure as AstNode, argumentsOf(node)); // a call, a partial
    else if (signatureOf(node)?.includes("-")) calls.set(node, 1);
    childrenOf(node).forEach(visit);
  };
  visit(ast);
  return calls;
}

/**
 * Whether a library's `define` may hand a built-in that takes the context out
 * to its callers: it names one as a value (`function() { $string }`) other than
 * as an argument of a built-in (`$map($xs, $trim)` calls it in the library,
 * on the library's context), and a caller may then call it without its first
 * argument, on the caller's context ({@link contextCalls} with `opaque`).
 */
export function lendsBuiltins(ast: AstNode): boolean {
  const calls = contextCalls(ast);
  const passed = new Set<AstNode>();
  const visit = (node: AstNode) => {
    if (calls.get(node.procedure as AstNode) === 0) {
      (node.arguments as AstNode[]).forEach((a) => passed.add(a));
    }
    childrenOf(node).forEach(visit);
  };
  visit(ast);
  return [...calls].some(([node, taken]) => taken === 1 && node.type === "variable" && !passed.has(node));
}
