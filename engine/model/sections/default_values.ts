/**
 * The `defaultValues` section: rules merged into containers a write creates
 * (`$` seeds the document at creation, `$.items[*]` every new element).
 *
 * @module
 */
import type { CompiledDefault } from "../nodes.ts";
import type { ModelSpec } from "../types.ts";
import type { Chunks } from "../../pacing.ts";
import type { SectionContext } from "./context.ts";

/** The compiled default rules of a spec, in spec order. */
export function* compileDefaultValues(spec: ModelSpec, ctx: SectionContext): Chunks<CompiledDefault[]> {
  const defaults: CompiledDefault[] = [];
  for (const { entry: d, location } of ctx.entries(spec, "defaultValues")) {
    yield;
    const path = ctx.address(d.path, `${location}.path`);
    const compiled = ctx.expression(d.expr, `${location}.expr`);
    if (path && compiled) defaults.push({ path, compiled });
  }
  return defaults;
}
