/**
 * An esbuild plugin for browser bundles: RE2 (re2js, about a quarter of the
 * engine bundle gzipped) is loaded on first use instead of with the engine
 * (engine/expr/re2.ts). The static `import { RE2JS } from "re2js"` of
 * engine/expr/re2.ts resolves to a module without RE2, and its
 * `import("re2js")` either loads a file of its own beside the bundle (built
 * by {@link buildRe2File}) or, in a single-file bundle, stays inlined and is
 * initialised on first use. Every other build (Deno, the compiled binary, the
 * CLI bundle) keeps the static import.
 *
 * @module
 */
import type * as esbuild from "esbuild";
import { type BundleFile, bundleFile } from "./bundle_file.ts";

const RE2_IMPORTER = /[\\/]engine[\\/]expr[\\/]re2\.ts$/;

/**
 * The plugin; `file` is the RE2 file's URL relative to the bundle (`./engine.browser.re2.js`), or
 * absent to inline RE2.
 */
export function lazyRe2(file?: string): esbuild.Plugin {
  return {
    name: "lazy-re2",
    setup(build) {
      build.onResolve({ filter: /^re2js$/ }, (args) => {
        if (!RE2_IMPORTER.test(args.importer)) return undefined;
        if (args.kind === "import-statement") return { path: "re2js", namespace: "lazy-re2" };
        return file ? { path: file, external: true } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: "lazy-re2" }, () => ({
        contents: "export const RE2JS = undefined;",
        loader: "js",
      }));
    },
  };
}

/** Writes RE2 as an ES module of its own, what `import("re2js")` loads with {@link lazyRe2}(`file`). */
export function buildRe2File(outfile: string, minify: boolean): Promise<BundleFile> {
  return bundleFile("re2js", outfile, { platform: "browser", minify, legalComments: "none" });
}
