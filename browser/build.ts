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
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";

/** Options of {@link buildBrowserBundle}. */
export interface BrowserBundleOptions {
  /** Where to write the bundle; defaults to `dist/engine.browser.js` in the project. */
  outfile?: string;
  /** Minify the output (the default keeps it readable for debugging in the page). */
  minify?: boolean;
  /** The module to bundle; defaults to the engine's browser entry (browser/mod.ts). */
  entryPoint?: string;
}

/** What a build produced. */
export interface BrowserBundle {
  /** Absolute path of the written file. */
  outfile: string;
  /** Its size in bytes. */
  bytes: number;
}

const projectRoot = fileURLToPath(new URL("..", import.meta.url));
const ENGINE_ENTRY = fileURLToPath(new URL("./mod.ts", import.meta.url));

/** The default output file of the engine bundle. */
export const DEFAULT_BUNDLE_PATH = fileURLToPath(new URL("../dist/engine.browser.js", import.meta.url));

/**
 * Builds the bundle and stops esbuild's service afterwards, so callers (tests)
 * leave no child process behind. Throws with esbuild's messages on failure.
 */
export async function buildBrowserBundle(options: BrowserBundleOptions = {}): Promise<BrowserBundle> {
  const outfile = options.outfile ?? DEFAULT_BUNDLE_PATH;
  try {
    await esbuild.build({
      entryPoints: [options.entryPoint ?? ENGINE_ENTRY],
      absWorkingDir: projectRoot,
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      outfile,
      minify: options.minify ?? false,
      sourcemap: false,
      logLevel: "silent",
    });
  } finally {
    await esbuild.stop();
  }
  return { outfile, bytes: (await Deno.stat(outfile)).size };
}

if (import.meta.main) {
  const minify = Deno.args.includes("--minify");
  const { outfile, bytes } = await buildBrowserBundle({ minify });
  console.log(`wrote ${outfile} (${(bytes / 1024).toFixed(0)} KiB)`);
}
