/**
 * An esbuild plugin for browser bundles: the prose that documents the
 * operations and the spec schemas for the surfaces a page does not have (MCP
 * tool descriptions, OpenAPI summaries, the JSON Schema `description`s an
 * agent reads) is left out, about 7 KB of the engine bundle gzipped. Only the
 * declaration modules are touched, and in them only string values in
 * documenting positions: `summary`, `description`, `title` and
 * `narrowingHint` members, `.describe(…)` arguments, and the description
 * argument of the schema helpers (`ref(name, …)`, `listOf(name, …)`, `address(…)`,
 * `names(…)`, `addresses(…)`, `text(…)`, `nonBlank(…)`, `optionalAddress(…)`,
 * `stateMember(…)`, `objects(…)`). A documenting string becomes `""`; code, messages and
 * patterns stay as written.
 *
 * @module
 */
import type * as esbuild from "esbuild";

/** The modules that declare documentation: the operations and the two spec schemas. */
const DECLARATIONS =
  /[\\/]engine[\\/](operations[\\/][a-z_]+|model[\\/]model_spec_schema|evolve[\\/]schema)\.ts$/;

/** One double-quoted string, or a concatenation of them. */
const TEXT = String.raw`"(?:[^"\\\n]|\\.)*"(?:\s*\+\s*"(?:[^"\\\n]|\\.)*")*`;

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

/** The plugin. */
export const noDocs: esbuild.Plugin = {
  name: "no-docs",
  setup(build) {
    build.onLoad({ filter: DECLARATIONS }, async ({ path }) => ({
      contents: withoutDocs(await Deno.readTextFile(path)),
      loader: "ts",
    }));
  },
};
