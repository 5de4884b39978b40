/**
 * The names of JSONata's built-in functions (`$sum`, `$now`, …): what every
 * expression can call without binding it, what a library may not redefine,
 * which of them answer differently from one evaluation to the next, and which
 * read the context when called without their first argument.
 *
 * @module
 */
import type { AstNode } from "./compiler.ts";

/**
 * Every built-in of the JSONata version the engine runs, by the number of
 * arguments below which it takes the context as its first (the required
 * parameters of a signature marked `-`). Plain strings keep the browser bundle
 * small.
 */
const BY_CONTEXT_ARITY = [
  // 0: never (no parameter marked `-`)
  "sum count max min average join random map zip filter single reduce append exists merge reverse error " +
  "assert type sort shuffle distinct eval now millis",
  // 1: `$string()`
  "string lowercase uppercase length trim formatBase number floor ceil round abs sqrt boolean not sift " +
  "keys spread base64encode base64decode encodeUrlComponent encodeUrl decodeUrlComponent decodeUrl " +
  "toMillis fromMillis clone",
  // 2: `$substringBefore(',')`
  "substring substringBefore substringAfter pad match contains split formatNumber formatInteger " +
  "parseInteger power lookup each",
  // 3: `$replace('a', 'b')`
  "replace",
];
const CONTEXT_ARITY = new Map(
  BY_CONTEXT_ARITY.flatMap((names, arity) => names.split(" ").map((name) => [name, arity])),
);

/** Every built-in function of the JSONata version the engine runs, without `$`. */
export const JSONATA_BUILTINS: ReadonlySet<string> = new Set(CONTEXT_ARITY.keys());

/**
 * Built-ins whose answer changes between evaluations (the clock, chance):
 * what a value computed once, or compared across commits, must not use.
 */
export const VOLATILE_BUILTINS: ReadonlySet<string> = new Set(["now", "millis", "random", "shuffle"]);

/**
 * The built-in `node` calls with fewer arguments than it requires, so that
 * JSONata passes the context as the first (`$string()`, `$substringBefore(',')`);
 * undefined for any other node. `applied`: `node` is the right side of `~>`,
 * whose left side is one more argument (`x ~> $string()`, `x ~> $trim`).
 * Judged by count alone: a local variable named like a built-in counts too.
 */
export function contextCall(node: AstNode, applied = false): string | undefined {
  const procedure = node.type === "function" ? node.procedure as AstNode : applied ? node : undefined;
  if (procedure?.type !== "variable") return undefined;
  const name = procedure.value as string;
  const count = ((node.arguments as AstNode[] | undefined)?.length ?? 0) + (applied ? 1 : 0);
  return count < (CONTEXT_ARITY.get(name) ?? 0) ? name : undefined;
}
