/**
 * The library member of an evolution (`newLibrary`): the spec's local layer
 * replaced (a bare string or `{define, signatures?, requiresConstants?,
 * description?, extends?}`), or dropped with `null`; inherited layers stay as
 * they are. An export that goes while an expression of the evolved spec still
 * uses it (`$name`, a textual scan) refuses the evolution, naming where.
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { exportedNames, withLocalLayer } from "../model/library_layers.ts";
import type { ModelSpec } from "../model/types.ts";
import type { SpecEvolution } from "./evolution.ts";
import { escapeRegExp, expressionsMentioning } from "./expression_mentions.ts";

/** Applies `newLibrary` to `spec`, in place; returns the export names it dropped. */
export function editLibrary(spec: ModelSpec, evolution: SpecEvolution): string[] {
  if (evolution.newLibrary === undefined) return [];
  const before = exportedNames(spec.library);
  const library = withLocalLayer(spec.library, evolution.newLibrary);
  if (library === null) delete spec.library;
  else spec.library = library;
  const after = exportedNames(spec.library);
  return [...before].filter((name) => !after.has(name));
}

/** Findings for dropped exports that the evolved spec still uses. */
export function checkDroppedExports(spec: ModelSpec, dropped: readonly string[]): Finding[] {
  return dropped.flatMap((name) => {
    const places = expressionsMentioning(spec, new RegExp(`\\$${escapeRegExp(name)}(?![A-Za-z0-9_])`));
    return places.length
      ? [{
        location: "newLibrary",
        message: `export '${name}' is still used by $${name} in ${places.join(", ")}`,
      }]
      : [];
  });
}
