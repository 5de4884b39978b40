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
 *   `compileAsync` only throws, as it still does;
 * - ajv's code for two options the engine never passes (every ajv instance of
 *   the engine is made with `strict: false`): type coercion (`coerceTypes`;
 *   `coerceData` in compile/validate/dataType.js and the `assignParentData`
 *   only it calls) and the strict type checks (`strictTypes`, which `strict`
 *   sets; `checkStrictTypes` in compile/validate/index.js and its helpers),
 *   ES5 output (`code.es5`), `$comment` handlers (`$comment`) and the code of
 *   keywords defined by a function (`macro`, `compile`, `validate`: none of
 *   the engine's, which all write their code themselves), about 1 KB: the
 *   functions ajv would call throw; and the methods of its
 *   class the engine never calls (`removeSchema`, `removeKeyword`) or calls
 *   only with the `$data` option (`$dataMetaSchema`), which throw.
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

/** ajv's file that writes a schema's validation code. */
const AJV_VALIDATE = /[\\/]node_modules[\\/]ajv[\\/]dist[\\/]compile[\\/]validate[\\/]index\.js$/;

/**
 * ajv's code the engine never runs, by file: the functions (or, with
 * `methods`, the class methods) whose body becomes a throw, keeping the guard
 * given (a function called whatever the options), and those only they call,
 * which go. `unused` names what the engine does not use (an option, a method).
 */
const NEVER_RUN: readonly {
  file: RegExp;
  unused: string;
  methods?: true;
  guard?: string;
  stub: string[];
  drop: string[];
}[] = [
  {
    file: /[\\/]node_modules[\\/]ajv[\\/]dist[\\/]compile[\\/]validate[\\/]dataType\.js$/,
    unused: "coerceTypes",
    stub: ["coerceData"],
    drop: ["assignParentData"],
  },
  {
    file: AJV_VALIDATE,
    unused: "strictTypes",
    guard: "if (!it.opts.strictTypes || it.schemaEnv.meta) return;",
    stub: ["checkStrictTypes"],
    drop: [
      "checkContextTypes",
      "checkMultipleTypes",
      "checkKeywordTypes",
      "hasApplicableType",
      "includesType",
      "narrowSchemaTypes",
      "strictTypesError",
    ],
  },
  { file: AJV_VALIDATE, unused: "code.es5", stub: ["destructureValCxtES5"], drop: [] },
  { file: AJV_VALIDATE, unused: "$comment", stub: ["commentKeyword"], drop: [] },
  {
    // Every keyword of ajv's 2020-12 vocabularies and of ajv-formats writes its code itself (`code`).
    file: /[\\/]node_modules[\\/]ajv[\\/]dist[\\/]compile[\\/]validate[\\/]keyword\.js$/,
    unused: "keyword code from a function (macro, compile, validate)",
    stub: ["macroKeywordCode", "funcKeywordCode"],
    drop: ["modifyData", "addErrs", "checkAsyncKeyword", "useKeyword"],
  },
  {
    file: AJV_CORE,
    unused: "removeSchema, removeKeyword and $data",
    methods: true,
    stub: ["removeSchema", "removeKeyword", "$dataMetaSchema"],
    drop: ["_removeAllSchemas"],
  },
];

/** A function of the file (top-level, or a class's method), from its first line to its closing line. */
function declaration(name: string, indent: string): RegExp {
  const head = `${indent}${indent ? "" : "function "}${name.replace("$", "\\$")}`;
  return new RegExp(`^${head}\\(([^)]*)\\) \\{\n[^]*?\n${indent}\\}\n`, "m");
}

/** `source` without the code of {@link NEVER_RUN} for its file; a file written otherwise stops the build. */
function withoutNeverRun(source: string, path: string): string {
  let lean = source;
  for (
    const { unused, methods, guard, stub, drop } of NEVER_RUN.filter(({ file }) => file.test(path))
  ) {
    const indent = methods ? "    " : "";
    for (const name of [...stub, ...drop]) {
      const whole = declaration(name, indent);
      if (!whole.test(lean)) throw new Error(`ajv's ${path.split(/[\\/]/).pop()} no longer holds ${name}`);
      const body = [
        guard,
        `throw new Error("ajv's ${methods ? name : unused} is not in the browser bundles");`,
      ]
        .filter(Boolean).map((line) => `${indent}    ${line}\n`).join("");
      const head = methods ? `${indent}${name}() {` : `function ${name}(it) {`;
      lean = lean.replace(whole, () => stub.includes(name) ? `${head}\n${body}${indent}}\n` : "");
    }
  }
  return lean;
}

/** `source` (of the file at `path`) without the boilerplate. */
export function withoutMarkers(source: string, path: string): string {
  const strict = source.replace(DIRECTIVE, "$1");
  if (!TYPESCRIPT_OUTPUT.test(path)) return strict;
  const lean = strict.replace(MARKER, "").replace(PLACEHOLDERS, "");
  if (!AJV_CORE.test(path)) return withoutNeverRun(lean, path);
  let tables = 0;
  const noteless = lean.replace(OPTION_NOTES, (_, name) => (tables++, `const ${name} = {};`));
  // Another ajv release writes them otherwise: say so rather than ship them unnoticed.
  if (tables !== 2) throw new Error(`ajv's core.js no longer holds the two option tables the build empties`);
  if (!ASYNC_LOADER.test(noteless)) throw new Error(`ajv's core.js no longer holds compileAsync's loader`);
  return withoutNeverRun(
    noteless.replace(
      ASYNC_LOADER,
      `        throw new Error("ajv's loadSchema is not in the browser bundles");\n`,
    ),
    path,
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
