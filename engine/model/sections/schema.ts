/**
 * The `schema` section: the JSON Schema of the base document. Only local
 * `#/$defs/<Name>` references resolve (the others are errors, an unused
 * definition a warning); a `$schema` other than 2020-12 is a warning; ajv must
 * compile it.
 *
 * @module
 */
import { isObject } from "../../json/value.ts";
import { checkSchemaReferences, SchemaIndex } from "../schema_index.ts";
import type { ModelSpec } from "../types.ts";
import type { Chunks } from "../../pacing.ts";
import type { SectionContext } from "./context.ts";

/** Compiles the base-document schema, pausing between its fields; undefined when it cannot be used. */
export function* compileSchema(spec: ModelSpec, ctx: SectionContext): Chunks<SchemaIndex | undefined> {
  if (!isObject(spec.schema)) return undefined;
  const refs = checkSchemaReferences(spec.schema);
  ctx.errors.push(...refs.errors);
  ctx.warnings.push(...refs.warnings);
  const declared = spec.schema.$schema;
  if (typeof declared === "string" && !declared.includes("2020-12")) {
    ctx.warn("schema.$schema", `'${declared}' is ignored: schemas are interpreted as JSON Schema 2020-12`);
  }
  if (refs.errors.length) return undefined;
  yield;
  const { config, now } = ctx.env;
  try {
    const index = new SchemaIndex(spec.schema, {
      maxInput: config.regexMaxInput,
      timeoutMs: config.regexTimeoutMs,
      now,
    });
    yield* index.prepare();
    return index;
  } catch (err) {
    ctx.error("schema", `invalid JSON Schema: ${(err as Error).message}`);
    return undefined;
  }
}
