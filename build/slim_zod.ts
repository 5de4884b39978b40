/**
 * An esbuild plugin for the CLI bundle: leaves out the parts of zod the
 * engine never calls but zod's `z` namespace would otherwise drag in, its ~40
 * message translations (`z.locales`; English stays, zod configures it by
 * default), `z.fromJSONSchema` and the ahead-of-time compiler (`z.compile`).
 * Calling a left-out function throws, naming the bundle. The engine's
 * operation schemas, their checks and `z.toJSONSchema` are untouched.
 *
 * @module
 */
import type * as esbuild from "esbuild";

/** Module specifiers inside zod replaced by stubs, and the stub's source. */
const STUBS: readonly { specifier: RegExp; contents: string }[] = [
  { specifier: /^\.\.\/locales\/index\.js$/, contents: "" },
  {
    specifier: /^\.\/from-json-schema\.js$/,
    contents:
      "export function fromJSONSchema() { throw new Error('z.fromJSONSchema is not in this bundle'); }",
  },
  {
    specifier: /^\.\/compile\.js$/,
    contents: [
      'export const INVALID = Symbol.for("zod.compile.invalid");',
      "export class ZodCompileAsyncError extends Error {}",
      "export class ZodCompileUnsupportedError extends Error {}",
      "const absent = () => { throw new Error('z.compile is not in this bundle'); };",
      "export const compile = absent, withParser = absent, compileFn = absent;",
    ].join("\n"),
  },
];

/** The plugin. */
export const slimZod: esbuild.Plugin = {
  name: "slim-zod",
  setup(build) {
    for (const [index, stub] of STUBS.entries()) {
      build.onResolve(
        { filter: stub.specifier },
        (args) =>
          /[\\/]zod[\\/]v4[\\/]/.test(args.importer)
            ? { path: String(index), namespace: "slim-zod" }
            : undefined,
      );
    }
    build.onLoad({ filter: /.*/, namespace: "slim-zod" }, (args) => ({
      contents: STUBS[Number(args.path)].contents,
      loader: "js",
    }));
  },
};
