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
 * Every built-in of the JSONata version the engine runs, each after the number
 * of arguments below which it takes the context as its first (the required
 * parameters of a signature marked `-`; 0: never). One string keeps the browser
 * bundle small.
 */
const TABLE =
  "0sum 0count 0max 0min 0average 1string 2substring 2substringBefore 2substringAfter 1lowercase 1uppercase " +
  "1length 1trim 2pad 2match 2contains 3replace 2split 0join 2formatNumber 1formatBase 2formatInteger " +
  "2parseInteger 1number 1floor 1ceil 1round 1abs 1sqrt 2power 0random 1boolean 1not 0map 0zip 0filter 0single " +
  "0reduce 1sift 1keys 2lookup 0append 0exists 1spread 0merge 0reverse 2each 0error 0assert 0type 0sort 0shuffle " +
  "0distinct 1base64encode 1base64decode 1encodeUrlComponent 1encodeUrl 1decodeUrlComponent 1decodeUrl 0eval " +
  "1toMillis 1fromMillis 1clone 0now 0millis";
const CONTEXT_ARITY = new Map(TABLE.split(" ").map((entry) => [entry.slice(1), +entry[0]]));

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
