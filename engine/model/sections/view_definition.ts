/**
 * The `viewDefinition` section, validated as a whole by the view definition's
 * own checks (`../view_definition/validate.ts`): ids, references between views,
 * addresses, and the JSONata of the view (warnings).
 *
 * @module
 */
import type { ModelSpec } from "../types.ts";
import type { NamedAddress } from "../undeclared_addresses.ts";
import { validateViewDefinition } from "../view_definition/validate.ts";
import type { SectionContext } from "./context.ts";

/** Checks a spec's view definition (absent or null: none); adds each address it binds to `addresses`. */
export function compileViewDefinition(spec: ModelSpec, ctx: SectionContext, addresses: NamedAddress[]): void {
  const { errors, warnings } = validateViewDefinition(
    spec.viewDefinition,
    ctx.env.compiler,
    "viewDefinition",
    ctx.scope,
    addresses,
  );
  ctx.errors.push(...errors);
  ctx.warnings.push(...warnings);
}
