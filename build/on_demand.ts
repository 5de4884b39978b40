/**
 * What the browser bundles load on demand: modules the engine imports
 * dynamically because few pages need them, large enough to keep out of the
 * bundle. Each is written beside the bundle as `<name>.<suffix>.js` and
 * fetched the first time a page needs it ({@link onDemand} with files); a
 * single-file bundle inlines them, initialised on first use (esbuild does that
 * with a dynamic import). Each file is a bundle of its own, so a module here
 * must share nothing with the engine (a library, pure data): a class or a
 * cache in it would exist twice.
 *
 * RE2 and the format table also have a static import (engine/expr/re2.ts: in
 * Deno, the compiled binary and the CLI bundle they come with the engine); in
 * the browser bundles it resolves to a module without them.
 *
 * @module
 */
import type * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import { type BundleFile, bundleFile } from "./bundle_file.ts";

/** A module loaded on demand. */
interface OnDemandModule {
  /** The file's suffix: `<name>.<suffix>.js`. */
  suffix: string;
  /** The module that imports it, and the specifier it imports. */
  importer: RegExp;
  specifier: string;
  /** What the file is built from: a package or a path. */
  entry: string;
  /** What a static import of it resolves to in the browser bundles, when it has one. */
  staticStub?: string;
}

const ON_DEMAND: readonly OnDemandModule[] = [
  // The regex engine and the format table: about a quarter of the engine bundle gzipped; only specs with a
  // regex, a `format` or a keyword the meta-schema checks with a format need them.
  {
    suffix: "re2",
    importer: /[\\/]engine[\\/]expr[\\/]re2\.ts$/,
    specifier: "./regex_chunk.ts",
    entry: fileURLToPath(new URL("../engine/expr/regex_chunk.ts", import.meta.url)),
    staticStub: "export const RE2JS = undefined, fullFormats = undefined;",
  },
  // The compiled closures of expressions: an optimisation (the interpreter answers without them),
  // loaded when a service opens.
  {
    suffix: "compiled",
    importer: /[\\/]engine[\\/]expr[\\/]closures\.ts$/,
    specifier: "./compiled/compile.ts",
    entry: fileURLToPath(new URL("../engine/expr/compiled/compile.ts", import.meta.url)),
    staticStub: "export const compileClosure = undefined, compiledLimits = undefined, INTERPRET = undefined;",
  },
  // The domain guidance topics (pure data): only `get_domain_guidance` reads them.
  {
    suffix: "guidance",
    importer: /[\\/]engine[\\/]authoring[\\/]guidance[\\/]menu\.ts$/,
    specifier: "./topics.ts",
    entry: fileURLToPath(new URL("../engine/authoring/guidance/topics.ts", import.meta.url)),
  },
];

/** The file of each on-demand module beside `outfile` (`dist/x.js` → `dist/x.re2.js`, …), by suffix. */
export function onDemandFiles(outfile: string): Record<string, string> {
  return Object.fromEntries(
    ON_DEMAND.map(({ suffix }) => [suffix, outfile.replace(/(\.js)?$/, `.${suffix}.js`)]),
  );
}

/** The plugin: the on-demand modules load files beside the bundle (`outfile` given), or stay inlined. */
export function onDemand(outfile?: string): esbuild.Plugin {
  const files = outfile ? onDemandFiles(outfile) : {};
  return {
    name: "on-demand",
    setup(build) {
      for (const module of ON_DEMAND) {
        const specifier = new RegExp(`^${module.specifier.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
        build.onResolve({ filter: specifier }, (args) => {
          if (!module.importer.test(args.importer)) return undefined;
          if (args.kind === "import-statement") {
            return module.staticStub === undefined
              ? undefined
              : { path: module.suffix, namespace: "on-demand" };
          }
          const file = files[module.suffix];
          return file ? { path: `./${file.split(/[\\/]/).pop()}`, external: true } : undefined;
        });
      }
      build.onLoad({ filter: /.*/, namespace: "on-demand" }, (args) => ({
        contents: ON_DEMAND.find((module) => module.suffix === args.path)!.staticStub,
        loader: "js",
      }));
    },
  };
}

/** Writes the on-demand files of a bundle at `outfile` (see {@link onDemandFiles}). */
export async function buildOnDemandFiles(outfile: string, minify: boolean): Promise<BundleFile[]> {
  const files = onDemandFiles(outfile);
  const built: BundleFile[] = [];
  for (const { suffix, entry } of ON_DEMAND) {
    built.push(
      await bundleFile(entry, files[suffix], { platform: "browser", minify, legalComments: "none" }),
    );
  }
  return built;
}
