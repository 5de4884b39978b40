/**
 * The layers of a `library` member and the edits made to them: its forms read
 * as an ordered list of layers (inherited `layers`, then the local `define`),
 * the names they export, the stored form (a single local layer serializes back
 * as `define`), the local layer replaced by an evolution (`newLibrary`), and a
 * template's layers merged into a branch's library, each inherited layer
 * pinned to the template it came from.
 *
 * @module
 */
import jsonata from "jsonata";
import type { AstNode } from "../expr/compiler.ts";
import { isObject, type JsonObject } from "../json/value.ts";
import type { LayerPin, Library, LibraryLayer, LibraryObject } from "./types.ts";

/** A layer where it stands in the spec. */
export interface PlacedLayer {
  layer: LibraryLayer;
  /** `library.layers[2]`, `library.define`, or `library` for the bare string form. */
  location: string;
  /** `"ref@version"` for an inherited layer, else `"local"`. */
  origin: string;
  /** True for a layer that carries a `ref` (inherited from a template). */
  inherited: boolean;
}

/** `"ref@version"` of an inherited layer, `"local"` otherwise. */
export function originOf(layer: Partial<LayerPin>): string {
  if (typeof layer.ref !== "string") return "local";
  return typeof layer.version === "string" ? `${layer.ref}@${layer.version}` : layer.ref;
}

/** The local layer of the object form: `define` with the top-level `signatures` and `requiresConstants`. */
function localLayer(library: LibraryObject): LibraryLayer {
  return {
    define: library.define as string,
    ...(library.signatures === undefined ? {} : { signatures: library.signatures }),
    ...(library.requiresConstants === undefined ? {} : { requiresConstants: library.requiresConstants }),
  };
}

/**
 * The layers of a `library` member in evaluation order. Entries that are not
 * objects and a `define` that is not a string are left out (the shape check
 * reports them); absent or null: none.
 */
export function layersOf(library: unknown): PlacedLayer[] {
  if (typeof library === "string") {
    return [{ layer: { define: library }, location: "library", origin: "local", inherited: false }];
  }
  if (!isObject(library)) return [];
  const object = library as LibraryObject;
  const placed: PlacedLayer[] = (Array.isArray(object.layers) ? object.layers : []).flatMap((layer, i) =>
    isObject(layer) && typeof layer.define === "string"
      ? [{
        layer,
        location: `library.layers[${i}]`,
        origin: originOf(layer),
        inherited: typeof layer.ref === "string",
      }]
      : []
  );
  if (typeof object.define === "string") {
    placed.push({ layer: localLayer(object), location: "library.define", origin: "local", inherited: false });
  }
  return placed;
}

/** The array constructor that ends a define's AST, if it ends with one. */
export function exportListOf(ast: AstNode): AstNode | null {
  const last = ast.type === "block" ? (ast.expressions as AstNode[]).at(-1) : ast;
  return last && last.type === "unary" && last.value === "[" ? last : null;
}

/** The entries of an export list: names, and null for an entry that is not a string literal. */
export function exportEntries(list: AstNode): (string | null)[] {
  return (list.expressions as AstNode[]).map((e) => (e.type === "string" ? e.value as string : null));
}

/** The names a define lists as its exports (none when it does not parse). */
export function declaredExports(define: string): string[] {
  try {
    const list = exportListOf(jsonata(define).ast() as unknown as AstNode);
    return list ? exportEntries(list).filter((name): name is string => name !== null) : [];
  } catch {
    return [];
  }
}

/** Every name the layers of `library` list as exports. */
export function exportedNames(library: unknown): Set<string> {
  return new Set(layersOf(library).flatMap(({ layer }) => declaredExports(layer.define)));
}

/**
 * The stored form of a library: a `layers` list holding one local layer and no
 * `define` becomes that layer's `define` (with its signatures and required
 * constants); anything else is kept as written.
 */
export function normalizeLibrary<T>(library: T): T | Library {
  if (!isObject(library)) return library;
  const object = library as LibraryObject;
  const layers = object.layers;
  if (object.define !== undefined || !Array.isArray(layers) || layers.length !== 1) return library;
  const [only] = layers;
  if (!isObject(only) || only.ref !== undefined || typeof only.define !== "string") return library;
  const { layers: _, ...rest } = object;
  return { ...rest, ...only };
}

/**
 * `library` with its local layer replaced by `local` (a bare string or an
 * object of `define`, `signatures`, `requiresConstants`, `description`,
 * `extends`), or dropped when `local` is null; inherited layers stay. A bare
 * string stays one when nothing else is kept; null when nothing is left.
 */
export function withLocalLayer(library: unknown, local: Library | null): Library | null {
  const inherited = isObject(library) && Array.isArray(library.layers) && library.layers.length
    ? { layers: library.layers as unknown as LibraryLayer[] }
    : {};
  const kept = isObject(library) ? pick(library, ["description", "extends"]) : {};
  if (local === null) return inherited.layers ? { ...kept, ...inherited } : null;
  if (typeof local === "string" && !inherited.layers && !Object.keys(kept).length) return local;
  const replacement = typeof local === "string" ? { define: local } : local;
  return normalizeLibrary({ ...kept, ...replacement, ...inherited });
}

function pick(object: JsonObject, keys: readonly string[]): LibraryObject {
  return Object.fromEntries(keys.filter((k) => object[k] !== undefined).map((k) => [k, object[k]]));
}

/**
 * The library of a branch flattened from its template (stored flattened, so
 * its library holds its own ancestors' layers already pinned): the template's
 * layers, each one not yet pinned pinned to the template (`pin`; its origin
 * becomes `"ref@version"`), then the branch's own layers and local `define`.
 * The branch's `description` wins over the template's. With nothing to
 * inherit the branch's library is kept as written. The shape of flattening's
 * library merge, for a chain one template at a time.
 */
export function inheritLibrary(template: unknown, own: unknown, pin: LayerPin): Library | undefined {
  const layers = layersOf(template).map(({ layer, inherited }) =>
    inherited ? layer : { ...layer, ...pinOf(pin) }
  );
  if (!layers.length) return typeof own === "string" || isObject(own) ? own as Library : undefined;
  const branch = (typeof own === "string" ? { define: own } : isObject(own) ? own : {}) as LibraryObject;
  const description = isObject(template) && typeof template.description === "string"
    ? { description: template.description }
    : {};
  return { ...description, ...branch, layers: [...layers, ...(branch.layers ?? [])] };
}

/** The members of a pin that are set. */
function pinOf(pin: LayerPin): Partial<LayerPin> {
  return Object.fromEntries(Object.entries(pin).filter(([, value]) => value !== undefined));
}
