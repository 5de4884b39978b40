/**
 * The `library` section: JSONata shared by every expression of the model
 * (decisions/library.md). Each layer's `define` is plain JSONata ending with
 * the array of the names it exports; layer k sees the exports of layers
 * 0..k-1, and a later layer wins a name clash. Everything is judged from the
 * AST here (the exports are computed once per model, before first use, by
 * `../model_bindings.ts`):
 *
 * - at `library`: more than {@link MAX_LAYERS} layers; neither `define` nor
 *   `layers`; more than {@link MANY_EXPORTS} exports (a warning);
 * - at the layer (`library.define`, `library.layers[i]`, or `library` for the
 *   bare string): a blank `define` or one over {@link MAX_DEFINE_CHARS}
 *   characters; a compile error; a read of the document (a library function
 *   reads only its arguments and `$const`; a built-in called without its first
 *   argument reads the context); a signature with `-` (JSONata's "the context
 *   when missing"), in `define` or `signatures`; `$now`, `$millis` or `$random`;
 *   an inherited layer reading `$const` without listing the constant in
 *   `requiresConstants`; a required constant the model lacks; no exports; an
 *   export name that is not an identifier, is reserved or shadows a built-in,
 *   or that the layer does not define; a signature that does not parse or
 *   names no export; a call of an unknown function (a bare unknown variable, a
 *   warning); a name an earlier layer exports too (a warning);
 * - at `library.extends`: a warning that the library it names is resolved at
 *   create (a created model holds it as pinned layers instead; its shape is
 *   the ModelSpec schema's to check).
 *
 * @module
 */
import { childrenOf } from "../../expr/ast_walk.ts";
import { JSONATA_BUILTINS, lendsBuiltins, VOLATILE_BUILTINS } from "../../expr/builtin_names.ts";
import type { AstNode, CompiledExpression } from "../../expr/compiler.ts";
import { frameBindings, freeVariables } from "../../expr/free_variables.ts";
import { inputReads } from "../../expr/input_reads.ts";
import type { Signature } from "../../expr/shared_function.ts";
import { isObject } from "../../json/value.ts";
import { ExpressionScope } from "../expression_scope.ts";
import {
  declaredExports,
  exportEntries,
  exportListOf,
  layersOf,
  type PlacedLayer,
} from "../library_layers.ts";
import type { LibraryLayer, ModelSpec } from "../types.ts";
import type { SectionContext } from "./context.ts";

/** Most layers a library may have (inherited and local together). */
export const MAX_LAYERS = 8;
/** Longest `define`, in characters. */
export const MAX_DEFINE_CHARS = 20_000;
/** Exports beyond which a library draws a warning. */
export const MANY_EXPORTS = 64;
/** Names no export may take: the model's own variables and words kept for them. */
export const RESERVED_NAMES: readonly string[] = ["const", "parent", "self", "response", "now", "status"];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TAKES_CONTEXT =
  "uses '-', which passes the caller's context for a missing argument: a library function " +
  "reads only its arguments and $const";

/** Every function definition in `node`, itself included. */
function lambdasOf(node: AstNode): AstNode[] {
  return [...(node.type === "lambda" ? [node] : []), ...childrenOf(node).flatMap(lambdasOf)];
}

/** A layer ready to evaluate. */
export interface CompiledLayer {
  layer: LibraryLayer;
  /** `"ref@version"` of an inherited layer, else `"local"`. */
  origin: string;
  location: string;
  compiled: CompiledExpression;
  /** The array of names that ends `define`: the exports are read when it has been evaluated. */
  exportList: AstNode;
  exports: string[];
  /** The `signatures` member, parsed, by export name. */
  signatures: ReadonlyMap<string, Signature>;
}

/** A valid library. */
export interface CompiledLibrary {
  description?: string;
  layers: CompiledLayer[];
  /** Every exported name with the origin of the layer that wins it. */
  exports: ReadonlyMap<string, string>;
  /** A layer names a built-in that takes the context as a value, which it may hand out (see `lendsBuiltins`). */
  lends: boolean;
}

/** The compiled library (null when there is none or it has errors) and every name it exports. */
export interface LibraryOutcome {
  library: CompiledLibrary | null;
  /** The names its layers export, valid or not (so the rest of the spec is not judged twice for them). */
  names: string[];
}

/** Compiles a spec's `library` (absent or null: none). */
export function compileLibrary(spec: ModelSpec, ctx: SectionContext): LibraryOutcome {
  const library = spec.library;
  if (library === undefined || library === null) return { library: null, names: [] };
  const errorsBefore = ctx.errors.length;
  const placed = layersOf(library);
  if (isObject(library) && library.define === undefined && !Array.isArray(library.layers)) {
    ctx.error("library", "a library needs `define`: JSONata ending with the array of the names it exports");
  }
  if (placed.length > MAX_LAYERS) {
    ctx.error("library", `a library has at most ${MAX_LAYERS} layers; this one has ${placed.length}`);
  }
  if (isObject(library) && typeof library.extends === "string") {
    ctx.warn(
      "library.extends",
      `extends '${library.extends}' is resolved when the model is created; it cannot be resolved here`,
    );
  }
  const exports = new Map<string, string>();
  const layers: CompiledLayer[] = [];
  for (const entry of placed) {
    const layer = compileLayer(entry, exports, spec, ctx);
    for (const name of layer?.exports ?? declaredExports(entry.layer.define)) {
      const earlier = exports.get(name);
      if (earlier !== undefined && layer) {
        ctx.warn(
          entry.location,
          `exports '${name}', which shadows '${name}' of an earlier layer (${earlier})`,
        );
      }
      exports.set(name, entry.origin);
    }
    if (layer) layers.push(layer);
  }
  if (exports.size > MANY_EXPORTS) {
    ctx.warn("library", `${exports.size} exports: more than ${MANY_EXPORTS} is hard to keep track of`);
  }
  const names = [...exports.keys()];
  if (ctx.errors.length > errorsBefore) return { library: null, names };
  const description = isObject(library) && typeof library.description === "string"
    ? { description: library.description }
    : {};
  const lends = layers.some((layer) => lendsBuiltins(layer.compiled.ast));
  return { library: { ...description, layers, exports, lends }, names };
}

/** Compiles one layer against the exports of the layers before it; null when it has errors. */
function compileLayer(
  { layer, location, origin, inherited }: PlacedLayer,
  earlier: ReadonlyMap<string, string>,
  spec: ModelSpec,
  ctx: SectionContext,
): CompiledLayer | null {
  const errorsBefore = ctx.errors.length;
  const error = (message: string) => ctx.error(location, message);
  const source = layer.define;
  if (source.trim() === "") {
    error("define is blank: write JSONata ending with the array of the names it exports");
    return null;
  }
  if (source.length > MAX_DEFINE_CHARS) {
    error(`define has ${source.length} characters, more than ${MAX_DEFINE_CHARS}`);
    return null;
  }
  let compiled: CompiledExpression;
  try {
    compiled = ctx.env.compiler.compile(source);
  } catch (err) {
    error(`JSONata compile error: ${(err as Error).message}`);
    return null;
  }
  const ast = compiled.ast;
  for (const { signature, position } of lambdasOf(ast)) {
    const text = (signature as Signature | undefined)?.definition ?? "";
    if (text.includes("-")) {
      error(`the function at position ${position} has the signature ${text}, which ${TAKES_CONTEXT}`);
    }
  }
  for (const read of inputReads(ast)) {
    error(
      `reads the document ('${read.what}' at position ${read.position}): a library function reads only ` +
        "its arguments and $const",
    );
  }
  const constants = isObject(spec.constants) ? spec.constants : {};
  const required = Array.isArray(layer.requiresConstants) ? layer.requiresConstants : [];
  for (const name of required) {
    if (!Object.hasOwn(constants, name)) {
      error(`requires the constant '${name}', which the model does not declare`);
    }
  }
  new ExpressionScope(earlier.keys(), ["const"]).check(ast, location, ctx);
  for (const variable of freeVariables(ast)) {
    if (VOLATILE_BUILTINS.has(variable.name)) {
      error(`uses $${variable.name}: library values are computed once and library functions must be pure`);
    } else if (variable.name === "const" && inherited) {
      if (variable.member === undefined ? required.length === 0 : !required.includes(variable.member)) {
        error(
          `reads $const${variable.member === undefined ? "" : `.${variable.member}`} without listing it in ` +
            "requiresConstants: an inherited layer names the constants it needs",
        );
      }
    }
  }
  const list = exportListOf(ast);
  const names = list ? exportEntries(list) : [];
  if (!names.length) {
    error(
      "no exports: define must end with the array of the names it exports, e.g. " +
        '( $net := function($gross) { $gross / 1.2 }; ["net"] )',
    );
  }
  const defined = new Set([...frameBindings(ast), ...earlier.keys()]);
  for (const name of names) {
    if (name === null) error('an export is named by a string: write ["f"], not [$f]');
    else if (!IDENTIFIER.test(name)) {
      error(`'${name}' is not an identifier: export names are letters, digits, _`);
    } else if (RESERVED_NAMES.includes(name)) error(`'${name}' is a reserved name`);
    else if (JSONATA_BUILTINS.has(name)) error(`'${name}' shadows the built-in $${name}`);
    else if (!defined.has(name)) error(`exports '${name}', which the layer does not define ($${name} := …)`);
  }
  const exports = [...new Set(names.filter((n): n is string => n !== null))];
  const signatures = new Map<string, Signature>();
  for (const [name, text] of Object.entries(isObject(layer.signatures) ? layer.signatures : {})) {
    if (!exports.includes(name)) {
      error(`signatures names '${name}', which the layer does not export`);
      continue;
    }
    try {
      const lambda = ctx.env.compiler.compile(`function()${text}{0}`).ast;
      signatures.set(name, lambda.signature as Signature);
    } catch (err) {
      error(`the signature of '${name}' (${text}) does not parse: ${(err as Error).message}`);
    }
    if (text.includes("-")) error(`the signature of '${name}' (${text}) ${TAKES_CONTEXT}`);
  }
  if (ctx.errors.length > errorsBefore || !list) return null;
  return { layer, origin, location, compiled, exportList: list, exports, signatures };
}
