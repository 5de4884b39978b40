/**
 * Bundles the browser entry (browser/mod.ts) with esbuild into one
 * self-contained ES module, `dist/engine.browser.js` by default. npm packages are
 * resolved from the project's node_modules (deno.json sets `"nodeModulesDir":
 * "auto"`), so the bundle needs no import map and no network at load time.
 *
 *     deno task bundle:browser            # writes dist/engine.browser.js
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type BundleFile, bundleFile } from "../build/bundle_file.ts";

/** Options of {@link buildBrowserBundle}. */
export interface BrowserBundleOptions {
  /** Where to write the bundle; defaults to `dist/engine.browser.js` in the project. */
  outfile?: string;
  /** Minify the output (the default keeps it readable for debugging in the page). */
  minify?: boolean;
  /** The module to bundle; defaults to the engine's browser entry (browser/mod.ts). */
  entryPoint?: string;
}

const ENGINE_ENTRY = fileURLToPath(new URL("./mod.ts", import.meta.url));

/** The default output file of the engine bundle. */
export const DEFAULT_BUNDLE_PATH = fileURLToPath(new URL("../dist/engine.browser.js", import.meta.url));

/** Builds the browser bundle. Throws with esbuild's messages on failure. */
export function buildBrowserBundle(options: BrowserBundleOptions = {}): Promise<BundleFile> {
  return bundleFile(options.entryPoint ?? ENGINE_ENTRY, options.outfile ?? DEFAULT_BUNDLE_PATH, {
    platform: "browser",
    minify: options.minify ?? false,
  });
}

if (import.meta.main) {
  const minify = Deno.args.includes("--minify");
  const { outfile, bytes } = await buildBrowserBundle({ minify });
  console.log(`wrote ${outfile} (${(bytes / 1024).toFixed(0)} KiB)`);
}
