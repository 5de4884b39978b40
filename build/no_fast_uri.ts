/**
 * An esbuild plugin for browser bundles: fast-uri, ajv's default URI
 * resolver (about 15 KB of the engine bundle minified), stays out. Every ajv
 * instance of the engine resolves schema ids and references with
 * engine/json/uri.ts instead (its `uriResolver` option), so `fast-uri`
 * resolves to a stand-in whose functions throw, naming the bundle: an ajv
 * instance without that option fails loudly rather than resolving wrongly.
 *
 * @module
 */
import type * as esbuild from "esbuild";

/** The stand-in: ajv's runtime/uri.js sets `code` on it; every function throws. */
const STAND_IN = `
const absent = () => {
  throw new Error("fast-uri is not in the browser bundles: give ajv engine/json/uri.ts as its uriResolver");
};
module.exports = { parse: absent, serialize: absent, resolve: absent, equal: absent, normalize: absent };
`;

/** The plugin. */
export const noFastUri: esbuild.Plugin = {
  name: "no-fast-uri",
  setup(build) {
    build.onResolve({ filter: /^fast-uri$/ }, () => ({ path: "fast-uri", namespace: "no-fast-uri" }));
    build.onLoad({ filter: /.*/, namespace: "no-fast-uri" }, () => ({ contents: STAND_IN, loader: "js" }));
  },
};
