/**
 * viewDelta: the components of a view a committed mutation changed, for the
 * server's `X-View` header (SPEC.md "MutationResponse").
 *
 * A component is in the delta when one of its addresses (`bind`, `bindFrom`,
 * `bindTo`, key-value item binds, effect status paths) or a location its
 * expressions read overlaps a path the mutation wrote, derived or changed the
 * meta of: an ancestor or a descendant counts (a table bound to `$.items`
 * changes when `$.items[0].qty` does; `bind: "$"` changes with anything).
 *
 * @module
 */
import { extractReads } from "../expr/dependencies.ts";
import type { MutationResult } from "../runtime/results.ts";
import type { CompiledModel } from "../model/compile.ts";
import { parsePath, pathsOverlap, type Segment } from "../json/path.ts";
import { setMember } from "../json/value.ts";
import {
  type ComponentAnchors,
  type EvaluatedComponent,
  evaluateViewWithAnchors,
  type ViewState,
} from "./evaluate.ts";

/** Evaluated components of view `viewId` touched by `result`, keyed by (evaluated) component id. */
export async function evaluateViewDelta(
  model: CompiledModel,
  state: ViewState,
  viewId: string,
  result: Pick<MutationResult, "mutatedPaths" | "derivedUpdated" | "metaUpdated">,
): Promise<Record<string, EvaluatedComponent>> {
  const { anchors } = await evaluateViewWithAnchors(model, state, viewId);
  const changed = changedPaths(result);
  const delta: Record<string, EvaluatedComponent> = {};
  if (!changed.length) return delta;
  const isArray = (pattern: readonly Segment[]) => model.schema.isArrayAt(pattern);
  const touched = (entry: ComponentAnchors) =>
    [
      ...entry.paths,
      ...entry.expressions.flatMap((e) =>
        extractReads(e.ast, {
          isArray,
          elementPattern: entry.element ?? undefined,
          opaqueCalls: model.library?.lends,
        }).map((r) => r.path)
      ),
    ].some((path) => changed.some((c) => pathsOverlap(path, c)));
  for (const entry of anchors) if (touched(entry)) setMember(delta, entry.component.id, entry.component);
  return delta;
}

/** Written, derived and meta-updated addresses of a result (meta keys without `#property`). */
function changedPaths(
  result: Pick<MutationResult, "mutatedPaths" | "derivedUpdated" | "metaUpdated">,
): Segment[][] {
  const addresses = [
    ...result.mutatedPaths,
    ...result.derivedUpdated,
    ...result.metaUpdated.map((key) => key.slice(0, key.lastIndexOf("#"))),
  ];
  return addresses.flatMap((address) => {
    const parsed = parsePath(address);
    return parsed.ok ? [parsed.path] : [];
  });
}
