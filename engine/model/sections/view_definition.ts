/**
 * The `viewDefinition` section, validated as a whole by the view definition's
 * own checks (`../view_definition/validate.ts`): ids, references between views,
 * addresses, and the JSONata of the view (warnings).
 *
 * @module
 */
import type { ModelSpec } from "../types.ts";
import { validateViewDefinition } from "../view_definition/validate.ts";
import type { SectionContext } from "./context.ts";

/** Checks a spec's view definition (absent or null: none). */
export function compileViewDefinition(spec: ModelSpec, ctx: SectionContext): void {
  const { errors, warnings } = validateViewDefinition(
    spec.viewDefinition,
    ctx.env.compiler,
    "viewDefinition",
    ctx.scope,
  );
  ctx.errors.push(...errors);
  ctx.warnings.push(...warnings);
}
