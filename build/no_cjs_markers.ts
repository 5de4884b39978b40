/**
 * An esbuild plugin for browser bundles: the CommonJS boilerplate the bundle
 * would keep in every module wrapper is left out (about 0.9 KB of the engine
 * bundle gzipped):
 *
 * - `"use strict"` directives (packages' script files): a bundle is an ES
 *   module, strict throughout, so they say nothing there;
 * - TypeScript's `__esModule` markers in ajv's and ajv-formats' files: only
 *   esbuild's interop reads one, to pick a module's `default` when an ES
 *   module default-imports it, and the engine imports those files' named
 *   exports only (`Ajv2020`, `formatLimitDefinition`, `fullFormats`);
 * - TypeScript's export placeholders in the same files (`exports.a = exports.b =
 *   void 0;`, 0.4 KB): they declare every export as `undefined` before the
 *   file assigns it, which only a reader of the exports' keys before then could
 *   tell (esbuild's interop copies them once the file has run; ajv reads its
 *   modules' exports as members, `codegen_1.CodeGen`);
 * - ajv's notes on options it removed or deprecated (its core.js, about 0.4 KB
 *   gzipped): they only explain an option the engine never passes, and the
 *   engine's options are checked against them in Deno, where ajv is whole;
 * - the loader of ajv's `compileAsync` (core.js, 0.3 KB), which fetches schemas
 *   through the `loadSchema` option, which the engine never passes: without it
 *   `compileAsync` only throws, as it still does.
 *
 * @module
 */
import type * as esbuild from "esbuild";

/** The packages' script files. */
const PACKAGE_SCRIPTS = /[\\/]node_modules[\\/].*\.c?js$/;

/** The files whose `__esModule` markers go (ajv's and ajv-formats' compiled TypeScript). */
const TYPESCRIPT_OUTPUT = /[\\/]node_modules[\\/]ajv(-formats)?[\\/]dist[\\/]/;

/** A `"use strict"` directive opening a file or a function body. */
const DIRECTIVE = /(^|\{)\s*(["'])use strict\2(?:;|(?=\r?\n))/g;

/** TypeScript's marker statement. */
const MARKER = /^Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);$/gm;

/** TypeScript's statement declaring a file's exports before it assigns them. */
const PLACEHOLDERS = /^exports\.[\w$]+ = (?:exports\.[\w$]+ = )*void 0;$/gm;

/** ajv's file that holds the option notes. */
const AJV_CORE = /[\\/]node_modules[\\/]ajv[\\/]dist[\\/]core\.js$/;

/** The two tables of option notes, each a `const` object literal of its own lines. */
const OPTION_NOTES = /^const (removedOptions|deprecatedOptions) = \{\n[^]*?\n\};$/gm;

/** `compileAsync`'s body after its check of the `loadSchema` option, up to the method's end. */
const ASYNC_LOADER =
  /^ {8}const \{ loadSchema \} = this\.opts;\n[^]*?\n(?= {4}\}\n {4}\/\/ Adds schema to the instance$)/m;

/** `source` (of the file at `path`) without the boilerplate. */
export function withoutMarkers(source: string, path: string): string {
  const strict = source.replace(DIRECTIVE, "$1");
  if (!TYPESCRIPT_OUTPUT.test(path)) return strict;
  const lean = strict.replace(MARKER, "").replace(PLACEHOLDERS, "");
  if (!AJV_CORE.test(path)) return lean;
  let tables = 0;
  const noteless = lean.replace(OPTION_NOTES, (_, name) => (tables++, `const ${name} = {};`));
  // Another ajv release writes them otherwise: say so rather than ship them unnoticed.
  if (tables !== 2) throw new Error(`ajv's core.js no longer holds the two option tables the build empties`);
  if (!ASYNC_LOADER.test(noteless)) throw new Error(`ajv's core.js no longer holds compileAsync's loader`);
  return noteless.replace(
    ASYNC_LOADER,
    `        throw new Error("ajv's loadSchema is not in the browser bundles");\n`,
  );
}

/** The plugin. */
export const noCjsMarkers: esbuild.Plugin = {
  name: "no-cjs-markers",
  setup(build) {
    build.onLoad({ filter: PACKAGE_SCRIPTS }, async ({ path }) => ({
      contents: withoutMarkers(await Deno.readTextFile(path), path),
      loader: "js",
    }));
  },
};
