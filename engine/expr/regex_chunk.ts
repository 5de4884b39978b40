/**
 * The part of the engine the browser bundles load on demand, only for specs
 * that need it: RE2 (re2js), for `pattern`s, pattern metas and JSONata regex
 * literals, and ajv-formats' format table, for schemas with a `format` or a
 * keyword the JSON Schema meta-schema checks with one (`$id`, `$ref`,
 * `pattern`, …). Pure libraries: the chunk shares nothing with the engine
 * (build/on_demand.ts). Everywhere else it is imported as any module is.
 *
 * @module
 */
export { RE2JS } from "re2js";
export { fullFormats } from "ajv-formats/dist/formats.js";
