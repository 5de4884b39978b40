/**
 * An esbuild plugin for browser bundles: the prose that documents the
 * operations and the spec schemas for the surfaces a page does not have (MCP
 * tool descriptions and the guidance menu's titles they list, OpenAPI summaries,
 * the JSON Schema `description`s an agent reads) is left out, about 7.5 KB of the
 * engine bundle gzipped. Only the
 * declaration modules are touched, and in them only string values in
 * documenting positions: `summary`, `description`, `title` and
 * `narrowingHint` members, `.describe(…)` arguments, and the description
 * argument of the schema helpers (`ref(name, …)`, `listOf(name, …)`, `address(…)`,
 * `names(…)`, `addresses(…)`, `text(…)`, `nonBlank(…)`, `optionalAddress(…)`,
 * `stateMember(…)`, `objects(…)`). A documenting string (a literal of any quotes, or a
 * concatenation of them) becomes `""`; code, messages and
 * patterns stay as written. ajv's JSON Schema 2020-12 meta-schemas (which
 * check the models' schemas) lose their `title` and `$comment` strings, which
 * no check reads (0.25 KB).
 *
 * @module
 */
import type * as esbuild from "esbuild";

/**
 * The modules that declare documentation: the operations, the two spec schemas and the guidance menu (its
 * topics' titles describe the MCP tool; a page gets the topics, titles included, from the on-demand file).
 */
export const DECLARATIONS =
  /[\\/]engine[\\/](operations[\\/][a-z_]+|model[\\/]model_spec_schema|evolve[\\/]schema|authoring[\\/]guidance[\\/]menu)\.ts$/;

/** One string literal: double- or single-quoted, or a template (whose placeholders hold no template). */
const STRING = String.raw`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\`(?:[^\`\\]|\\.)*\``;

/** One string literal, or a concatenation of them. */
const TEXT = String.raw`(?:${STRING})(?:\s*\+\s*(?:${STRING}))*`;

const DOC_PLACES: readonly RegExp[] = [
  new RegExp(String.raw`(\b(?:summary|description|title|narrowingHint)\s*:\s*)${TEXT}`, "g"),
  new RegExp(String.raw`(\.describe\(\s*)${TEXT}`, "g"),
  new RegExp(String.raw`(\b(?:ref|listOf)\(\s*"[A-Za-z]+",\s*)${TEXT}`, "g"),
  new RegExp(
    String.raw`(\b(?:address|names|addresses|text|nonBlank|optionalAddress|stateMember|objects)\(\s*)${TEXT}`,
    "g",
  ),
];

/** `source` with the documenting strings emptied. */
export function withoutDocs(source: string): string {
  return DOC_PLACES.reduce((text, place) => text.replace(place, '$1""'), source);
}

/** ajv's JSON Schema 2020-12 meta-schemas, whose `title`s and `$comment`s only document them. */
const META_SCHEMAS = /[\\/]ajv[\\/]dist[\\/]refs[\\/]json-schema-2020-12[\\/].*\.json$/;

/** `schema` without its annotation strings (a `title` or `$comment` member that is a string, not a schema). */
export function withoutAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key, value]) => !((key === "title" || key === "$comment") && typeof value === "string"))
      .map(([key, value]) => [key, withoutAnnotations(value)]),
  );
}

/** The plugin. */
export const noDocs: esbuild.Plugin = {
  name: "no-docs",
  setup(build) {
    build.onLoad({ filter: DECLARATIONS }, async ({ path }) => ({
      contents: withoutDocs(await Deno.readTextFile(path)),
      loader: "ts",
    }));
    build.onLoad({ filter: META_SCHEMAS }, async ({ path }) => ({
      contents: JSON.stringify(withoutAnnotations(JSON.parse(await Deno.readTextFile(path)))),
      loader: "json",
    }));
  },
};
