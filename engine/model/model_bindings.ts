/**
 * The variables every expression of a model is evaluated with, kept in one
 * place: `$const` and the exports of the model's library. Every evaluation
 * site (the write cycle, lazy reads, views, fold-backs, embedded tests, dry
 * runs) spreads {@link ModelBindings.base} into its bindings and adds only
 * what is its own (`$parent`, the cycle's clock, `$response`).
 *
 * JSONata evaluates asynchronously and compilation is synchronous, so a
 * library is judged from its AST at compile time and evaluated here, once per
 * compiled model, before first use: {@link ModelBindings.prepare} (which a
 * runtime awaits when it is created) runs the layers in order, each seeing the
 * exports of the layers before it, and keeps every export: a function as a
 * {@link SharedFunction}, any other value as plain JSON.
 *
 * @module
 */
import { unprocessable } from "../errors.ts";
import { isFunctionValue, SharedFunction } from "../expr/shared_function.ts";
import { type Json, setMember, toPlainJson } from "../json/value.ts";
import type { CompiledLibrary } from "./sections/library.ts";

/** One export of a prepared library. */
export interface LibraryExport {
  name: string;
  /** The origin of the layer that wins the name (`"local"` or `"ref@version"`). */
  origin: string;
  /** A function, or the value computed once (null when it computed nothing). */
  value: SharedFunction | Json;
}

/** `$const` and the library exports of one compiled model. */
export class ModelBindings {
  readonly #constants: Record<string, Json>;
  readonly #library: CompiledLibrary | null;
  readonly #maxDepth: number;
  #exports: Map<string, LibraryExport> | null = null;
  #base: Readonly<Record<string, unknown>> | null = null;
  #preparing: Promise<void> | null = null;

  /** `maxDepth`: the deepest nesting a value export may have (`svc.limits.max-depth`). */
  constructor(constants: Record<string, Json>, library: CompiledLibrary | null, maxDepth: number) {
    this.#constants = constants;
    this.#library = library;
    this.#maxDepth = maxDepth;
    if (!library) this.#settle(new Map());
  }

  /** False until a library's exports are computed; a model without a library is always ready. */
  get ready(): boolean {
    return this.#base !== null;
  }

  /**
   * Computes the library's exports (once; later calls wait for the first). A
   * layer that fails to evaluate, or a value export holding a function, is a
   * 422 naming the layer.
   */
  prepare(): Promise<void> {
    if (this.ready) return Promise.resolve();
    this.#preparing ??= this.#evaluate().catch((err) => {
      this.#preparing = null;
      throw err;
    });
    return this.#preparing;
  }

  /** `{const, ...exports}`: what every expression of the model is evaluated with. */
  get base(): Readonly<Record<string, unknown>> {
    return this.#prepared().base;
  }

  /** The exports in layer order, each once (the last layer exporting a name wins it). */
  get exports(): readonly LibraryExport[] {
    return [...this.#prepared().exports.values()];
  }

  #prepared(): { base: Readonly<Record<string, unknown>>; exports: Map<string, LibraryExport> } {
    if (!this.#base || !this.#exports) {
      throw new Error("the library's exports are computed by prepare() before first use");
    }
    return { base: this.#base, exports: this.#exports };
  }

  async #evaluate(): Promise<void> {
    const exports = new Map<string, LibraryExport>();
    const bound: Record<string, unknown> = { const: this.#constants };
    for (const layer of this.#library!.layers) {
      const raw = new Map<string, unknown>();
      const observe = (step: unknown, lookup: (name: string) => unknown) => {
        if (step === layer.exportList) { for (const name of layer.exports) raw.set(name, lookup(name)); }
      };
      const failed = (reason: string) =>
        unprocessable(`library: the layer at ${layer.location} (${layer.origin}) ${reason}`);
      try {
        await layer.compiled.evaluate(undefined, bound, { observe });
      } catch (err) {
        throw failed(`failed to evaluate: ${(err as Error).message}`);
      }
      for (const name of layer.exports) {
        const value = raw.get(name);
        let exported: SharedFunction | Json;
        if (isFunctionValue(value)) exported = new SharedFunction(value, layer.signatures.get(name));
        else if (holdsFunction(value)) throw failed(`exports '${name}', a value holding a function`);
        else {
          try {
            exported = toPlainJson(value, this.#maxDepth) ?? null;
          } catch (err) {
            throw failed(`exports '${name}': ${(err as Error).message}`);
          }
        }
        setMember(bound, name, exported);
        exports.delete(name);
        exports.set(name, { name, origin: layer.origin, value: exported });
      }
    }
    this.#settle(exports);
  }

  #settle(exports: Map<string, LibraryExport>): void {
    this.#exports = exports;
    const values = [...exports.values()].map(({ name, value }) => [name, value]);
    this.#base = Object.freeze({ const: this.#constants, ...Object.fromEntries(values) });
  }
}

/** Whether a value has a function somewhere inside it. */
function holdsFunction(value: unknown): boolean {
  if (isFunctionValue(value)) return true;
  if (typeof value !== "object" || value === null) return false;
  return Object.values(value).some(holdsFunction);
}
