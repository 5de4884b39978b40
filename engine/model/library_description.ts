/**
 * What `GET /models/{id}/library` answers (decisions/library.md): the layers
 * in evaluation order with their origin and pin, then the exports, functions
 * first (signature, and arity unless the function is variadic), then the
 * values computed once; each export once, from the layer that wins it.
 *
 * @module
 */
import { notFound } from "../errors.ts";
import { SharedFunction } from "../expr/shared_function.ts";
import type { Json } from "../json/value.ts";
import type { CompiledModel } from "./compile.ts";

/** A layer as the library read shows it. */
export interface LayerDescription {
  origin: string;
  ref?: string;
  version?: string;
  digest?: string;
  define: string;
}

/** A function export. */
export interface FunctionExport {
  name: string;
  kind: "function";
  signature?: string;
  /** Omitted for a variadic function. */
  arity?: number;
  origin: string;
}

/** A value export, computed once. */
export interface ConstantExport {
  name: string;
  kind: "constant";
  value: Json;
  origin: string;
}

/** The library of a model. */
export interface LibraryDescription {
  description?: string;
  layers: LayerDescription[];
  exports: (FunctionExport | ConstantExport)[];
}

/** The library of a runtime's model (its exports prepared); 404 when the model has none. */
export function describeLibrary(model: CompiledModel): LibraryDescription {
  const library = model.library;
  if (!library) throw notFound(`Model '${model.id}' has no library`);
  const layers = library.layers.map(({ origin, layer: { ref, version, digest, define } }) => ({
    origin,
    ...(ref === undefined ? {} : { ref }),
    ...(version === undefined ? {} : { version }),
    ...(digest === undefined ? {} : { digest }),
    define,
  }));
  const functions: FunctionExport[] = [];
  const constants: ConstantExport[] = [];
  for (const { name, origin, value } of model.bindings.exports) {
    if (value instanceof SharedFunction) {
      const { signature, arity } = value;
      functions.push({
        name,
        kind: "function",
        ...(signature === undefined ? {} : { signature }),
        ...(arity === undefined ? {} : { arity }),
        origin,
      });
    } else constants.push({ name, kind: "constant", value, origin });
  }
  return {
    ...(library.description === undefined ? {} : { description: library.description }),
    layers,
    exports: [...functions, ...constants],
  };
}
