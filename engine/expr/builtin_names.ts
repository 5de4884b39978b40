/**
 * The names of JSONata's built-in functions (`$sum`, `$now`, …): what every
 * expression can call without binding it, what a library may not redefine,
 * and which of them answer differently from one evaluation to the next.
 *
 * @module
 */

/** Every built-in function of the JSONata version the engine runs, without `$`. */
export const JSONATA_BUILTINS: ReadonlySet<string> = new Set([
  "sum",
  "count",
  "max",
  "min",
  "average",
  "string",
  "substring",
  "substringBefore",
  "substringAfter",
  "lowercase",
  "uppercase",
  "length",
  "trim",
  "pad",
  "match",
  "contains",
  "replace",
  "split",
  "join",
  "formatNumber",
  "formatBase",
  "formatInteger",
  "parseInteger",
  "number",
  "floor",
  "ceil",
  "round",
  "abs",
  "sqrt",
  "power",
  "random",
  "boolean",
  "not",
  "map",
  "zip",
  "filter",
  "single",
  "reduce",
  "sift",
  "keys",
  "lookup",
  "append",
  "exists",
  "spread",
  "merge",
  "reverse",
  "each",
  "error",
  "assert",
  "type",
  "sort",
  "shuffle",
  "distinct",
  "base64encode",
  "base64decode",
  "encodeUrlComponent",
  "encodeUrl",
  "decodeUrlComponent",
  "decodeUrl",
  "eval",
  "toMillis",
  "fromMillis",
  "clone",
  "now",
  "millis",
]);

/**
 * Built-ins whose answer changes between evaluations (the clock, chance):
 * what a value computed once, or compared across commits, must not use.
 */
export const VOLATILE_BUILTINS: ReadonlySet<string> = new Set(["now", "millis", "random", "shuffle"]);
