/**
 * An esbuild plugin for browser bundles: packages whose entry points bring
 * more than the engine uses resolve, there, to stand-ins that import just
 * that part (about 3.5 KB of the engine bundle gzipped, whose budget is
 * 150 KB):
 *
 * - bare `ajv` (ajv's default draft-07 class, its meta-schema and
 *   vocabularies): the engine compiles with `ajv/dist/2020.js`; the one import
 *   of bare `ajv` is ajv-formats' `limit.js`, for `KeywordCxt` alone;
 * - ajv's `discriminator` vocabulary: `ajv/dist/2020.js` adds it only with the
 *   `discriminator` option, which the engine never sets (the stand-in throws
 *   if it ever does);
 * - `fast-json-patch`: its default export joins the core operations and the
 *   observe/compare half (duplex), of which the engine calls `validate` and
 *   `applyOperation` only (engine/runtime/patch.ts), which the stand-in
 *   imports by name, so the rest of the core (`applyPatch`'s reducer,
 *   `getValueByPointer`) is left out too;
 * - ajv's default assignment (`compile/validate/defaults.js`): ajv calls it
 *   only with the `useDefaults` option, which the engine never sets (the
 *   engine fills defaults itself, engine/runtime/defaults.ts; the stand-in
 *   throws if it ever does);
 * - `jsonata`: its package's own minified build of the same code
 *   (`jsonata.min.js`, uglify's compression), 0.8 KB smaller gzipped than
 *   esbuild's minification of `jsonata.js`;
 * - ajv's `$data` meta-schema (`refs/data.json`): ajv adds it only with the
 *   `$data` option, which the engine never sets (the stand-in throws if it
 *   ever does).
 *
 * @module
 */
import type * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";

/** Where the stand-ins' own imports resolve from: the project root (its node_modules). */
const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Each narrowed import (as written by its importer) and the stand-in it resolves to. */
const STAND_INS: Record<string, string> = {
  "ajv": `module.exports = { KeywordCxt: require("ajv/dist/compile/validate/index.js").KeywordCxt };`,
  "./vocabularies/discriminator": `module.exports = { get default() {
    throw new Error("ajv's discriminator vocabulary is not in the browser bundles");
  } };`,
  "./refs/data.json": `module.exports = { get $id() {
    throw new Error("ajv's $data meta-schema is not in the browser bundles");
  } };`,
  "fast-json-patch": `import { applyOperation, validate } from "fast-json-patch/module/core.mjs";
    export default { applyOperation, validate };`,
  "./defaults": `module.exports = { assignDefaults() {
    throw new Error("ajv's useDefaults is not in the browser bundles");
  } };`,
  "jsonata": `module.exports = require("jsonata/jsonata.min.js");`,
};

/** The plugin. */
export const leanImports: esbuild.Plugin = {
  name: "lean-imports",
  setup(build) {
    build.onResolve(
      {
        filter:
          /^(ajv|fast-json-patch|jsonata|\.\/defaults|\.\/vocabularies\/discriminator|\.\/refs\/data\.json)$/,
      },
      (args) => ({ path: args.path, namespace: "lean-imports" }),
    );
    build.onLoad(
      { filter: /.*/, namespace: "lean-imports" },
      (args) => ({ contents: STAND_INS[args.path], loader: "js", resolveDir: PROJECT_ROOT }),
    );
  },
};
