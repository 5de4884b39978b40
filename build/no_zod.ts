/**
 * An esbuild plugin for browser bundles: zod (about 40 KB of the engine bundle
 * gzipped) stays out. In a page nothing reads the operations' zod schemas: the
 * invokers hand inputs to the service as they are, and the argument check
 * (`checkInput`) and the JSON Schemas generated from the schemas serve the
 * surfaces that receive arguments from outside (console, MCP, REST), all in
 * Deno. So `zod` resolves to a stand-in on which every declaration builds (any
 * builder, any chain, as inert values), while reading a schema (`safeParse`,
 * `shape`, `toJSONSchema`, a registry's `get`, …) throws, naming the bundle,
 * so nothing can silently pass a check it did not run.
 *
 * @module
 */
import type * as esbuild from "esbuild";

/** The stand-in: builders return it, reading members throw. */
const STAND_IN = `
const READS = new Set(["parse", "safeParse", "parseAsync", "safeParseAsync", "spa", "shape", "_zod", "def", "_def",
  "toJSONSchema", "get", "description", "isOptional", "isNullable", "encode", "decode"]);
const inert = new Proxy(function zod() {}, {
  get(_, key) {
    if (typeof key === "symbol" || key === "then") return undefined;
    if (READS.has(key)) {
      throw new Error("zod." + key + " is not in the browser bundles: operation inputs are checked where they " +
        "arrive from outside (console, MCP, REST)");
    }
    return inert;
  },
  apply: () => inert,
});
export const z = inert;
export default inert;
`;

/** The plugin. */
export const noZod: esbuild.Plugin = {
  name: "no-zod",
  setup(build) {
    build.onResolve({ filter: /^zod(\/|$)/ }, () => ({ path: "zod", namespace: "no-zod" }));
    build.onLoad({ filter: /.*/, namespace: "no-zod" }, () => ({ contents: STAND_IN, loader: "js" }));
  },
};
