/**
 * The one esbuild step behind every single-file bundle of the project (the
 * browser engine, the CLI): an ES module with npm packages resolved from the
 * project's node_modules (deno.json sets `"nodeModulesDir": "auto"`).
 *
 * @module
 */
import * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";

/** What a build produced. */
export interface BundleFile {
  /** Absolute path of the written file. */
  outfile: string;
  /** Its size in bytes. */
  bytes: number;
}

/** The project root, where esbuild resolves node_modules from. */
const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Bundles `entry` into `outfile` (ESM, es2022, no source map) with the given
 * extra esbuild options, and stops esbuild's service afterwards so callers
 * (tests) leave no child process behind. Throws with esbuild's messages on failure.
 */
export async function bundleFile(
  entry: string,
  outfile: string,
  options: esbuild.BuildOptions = {},
): Promise<BundleFile> {
  try {
    await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: PROJECT_ROOT,
      bundle: true,
      format: "esm",
      target: "es2022",
      outfile,
      sourcemap: false,
      logLevel: "silent",
      ...options,
    });
  } finally {
    await esbuild.stop();
  }
  return { outfile, bytes: (await Deno.stat(outfile)).size };
}
