/**
 * Values a document holds that a model's schema refuses, completeness aside:
 * `required` and `dependentRequired` are removed from the schema before it
 * judges, because a missing value is not stranded data (mutations never
 * enforce completeness). An evolution's state-compatibility guard and a
 * snapshot's restore judge the state they carry with this one notion.
 *
 * @module
 */
import type { SchemaViolation } from "../errors.ts";
import { isObject, type Json, type JsonObject, setMember } from "../json/value.ts";
import { formatPath, parsePath } from "../json/path.ts";
import type { CompiledModel } from "./compile.ts";
import { SchemaIndex, schemaMember } from "./schema_index.ts";

/** A copy of a schema without `required` and `dependentRequired` anywhere. */
function withoutCompleteness(node: Json, names?: boolean): Json {
  if (Array.isArray(node)) return node.map((n) => withoutCompleteness(n));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    // A property merely named so holds a schema.
    if (!names && (key === "required" || key === "dependentRequired")) continue;
    const [walk, inNames] = schemaMember(key, names);
    setMember(out, key, walk ? withoutCompleteness(value, inNames) : value);
  }
  return out;
}

/** Values of `doc` the schema of `model` would strand, each at the path of the offending value. */
export function strandedValues(model: Pick<CompiledModel, "spec" | "schema">, doc: Json): SchemaViolation[] {
  const lenient = new SchemaIndex(
    withoutCompleteness(model.spec.schema) as JsonObject,
    model.schema.regexLimits,
  );
  return lenient.validateDocument(doc).map((v) => {
    const parsed = parsePath(v.path);
    const extra = /: '(.*)'$/.exec(v.message);
    // ajv reports a forbidden property at its parent; point at the property itself.
    return v.keyword === "additionalProperties" && parsed.ok && extra
      ? { ...v, path: formatPath([...parsed.path, extra[1]]) }
      : v;
  });
}
