/**
 * JSON Schemas of operation inputs and outputs, generated from their zod
 * declarations: MCP `inputSchema`/`outputSchema` and the OpenAPI document
 * both come from here, so a shape is described once.
 *
 * Every declared schema is {@link Lazy}: built on its first use, not when its
 * module is evaluated. Building all of them took about 35 ms of every CLI
 * start, while a console's first command needs one operation's input.
 *
 * Two things zod cannot say are handled here: an argument whose published
 * schema is one of the engine's own JSON Schemas (a ModelSpec, a
 * SpecEvolution: {@link publishedAs}), and the noise zod adds for JavaScript's
 * safe-integer range and record keys, which a JSON Schema reader does not need.
 *
 * @module
 */
import { z } from "zod";

/** A JSON Schema object. */
export type JsonSchema = { [keyword: string]: unknown };

/** A schema declared now and built on its first use (then kept: the same instance every time). */
export type Lazy<T extends z.ZodType = z.ZodType> = () => T;

/** Declares a schema that `build` makes on first use. */
export function lazySchema<T extends z.ZodType>(build: () => T): Lazy<T> {
  let built: T | undefined;
  return () => built ??= build();
}

/**
 * Arguments published with a hand-written JSON Schema (checked by the
 * service, not by zod), and the component name it has in the OpenAPI
 * document when it has one. Registry entries carry over to clones
 * (`.describe()`, `.optional()`), so a described argument keeps its schema.
 */
const PUBLISHED = z.registry<{ schema: JsonSchema; component?: string }>();

/** Component names of published schemas, for the OpenAPI document. */
const PUBLISHED_COMPONENTS = new Map<string, JsonSchema>();

/**
 * Declares the schema `build` makes as published with `jsonSchema` (for
 * example the ModelSpec JSON Schema on a `spec` argument), named `component`
 * in the OpenAPI document when given; the zod schema still decides what the
 * door accepts.
 */
export function publishedAs<T extends z.ZodType>(
  build: () => T,
  jsonSchema: JsonSchema,
  component?: string,
): Lazy<T> {
  if (component) PUBLISHED_COMPONENTS.set(component, jsonSchema);
  return lazySchema(() => {
    const schema = build();
    PUBLISHED.add(schema, { schema: jsonSchema, component });
    return schema;
  });
}

/**
 * The component a schema is, if any: a registered component's id or a
 * published schema's component name.
 */
export function componentOf(schema: z.ZodType): string | undefined {
  return COMPONENTS.get(schema)?.id ?? PUBLISHED.get(schema)?.component;
}

/** Schemas with a component name in the OpenAPI document (`#/components/schemas/<id>`), once built. */
export const COMPONENTS = z.registry<{ id: string }>();

/** Every declared component, in declaration order (the document's order, whichever is built first). */
const DECLARED_COMPONENTS: { id: string; schema: Lazy }[] = [];

/** Declares the schema `build` makes as the named component `id`. */
export function component<T extends z.ZodType>(id: string, build: () => T): Lazy<T> {
  const schema = lazySchema(() => {
    const built = build();
    COMPONENTS.add(built, { id });
    return built;
  });
  DECLARED_COMPONENTS.push({ id, schema });
  return schema;
}

const SAFE_LIMIT = Number.MAX_SAFE_INTEGER;

// deno-lint-ignore no-explicit-any
function tidy(ctx: { zodSchema: any; jsonSchema: JsonSchema }): void {
  const published = PUBLISHED.get(ctx.zodSchema);
  if (published) {
    // The argument's own `.describe()` stays when the published schema has no description of its own.
    const { description: _, ...zod } = ctx.jsonSchema;
    for (const key in zod) delete ctx.jsonSchema[key];
    Object.assign(ctx.jsonSchema, structuredClone(published.schema));
    return;
  }
  const schema = ctx.jsonSchema;
  if (schema.maximum === SAFE_LIMIT) delete schema.maximum;
  if (schema.minimum === -SAFE_LIMIT) delete schema.minimum;
  if (isStringKeys(schema.propertyNames)) delete schema.propertyNames;
}

function isStringKeys(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length === 1 &&
    (value as JsonSchema).type === "string";
}

/** A self-contained JSON Schema of `schema` (sub-schemas inlined), without `$schema`. */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output" = "output"): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: tidy,
  }) as JsonSchema;
  return rest;
}

/**
 * Every declared component as OpenAPI `components.schemas` (each built now if
 * it was not yet), in declaration order, references between them written
 * `#/components/schemas/<id>`.
 */
export function componentSchemas(): Record<string, JsonSchema> {
  for (const { schema } of DECLARED_COMPONENTS) schema();
  const { schemas } = z.toJSONSchema(COMPONENTS, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: "any",
    override: tidy,
  }) as { schemas: Record<string, JsonSchema> };
  return {
    ...Object.fromEntries(PUBLISHED_COMPONENTS),
    ...Object.fromEntries(DECLARED_COMPONENTS.map(({ id }) => {
      const { $schema: _s, $id: _i, ...schema } = schemas[id];
      return [id, schema];
    })),
  };
}
