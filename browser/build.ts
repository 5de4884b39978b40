/**
 * The browser builds, all through the shared esbuild step (build/bundle_file.ts;
 * npm packages come from the project's node_modules, so nothing is fetched at
 * load time):
 *
 *     deno task bundle:browser   # dist/engine.browser.js: the engine as one ES module (+ on-demand files)
 *     deno task build:web        # dist/web/ (playground, svc-embed.js, sw.js, example) + dist/playground.html
 *
 * What the engine loads on demand (RE2, the guidance topics: build/on_demand.ts)
 * is a file of its own beside a bundle (`dist/engine.browser.re2.js`,
 * `playground.re2.js`, …), inlined in a single-file bundle (svc-embed.js,
 * dist/playground.html).
 *
 * `dist/web/` is a self-contained static folder: `index.html` (the playground,
 * no inline script or style, so it runs under a strict CSP), `playground.js`
 * with its on-demand files, `playground.css`, `svc-embed.js` (the embed
 * script), `sw.js` (the service worker caching the app for offline use) and
 * `examples/embed.html`.
 * `dist/playground.html` is the same playground in a single file that works
 * when opened from disk. `--if-stale` skips the web build when `dist/web` is
 * newer than every source it is built from (what `deno task start` runs).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type BundleFile, bundleFile } from "../build/bundle_file.ts";
import { buildOnDemandFiles, onDemand, onDemandFiles } from "../build/on_demand.ts";
import { noDocs } from "../build/no_docs.ts";
import { noCjsMarkers } from "../build/no_cjs_markers.ts";
import { noSchemaBuilders } from "../build/no_schema_builders.ts";
import { noZod } from "../build/no_zod.ts";
import { leanImports } from "../build/lean_imports.ts";
import { noFastUri } from "../build/no_fast_uri.ts";

/** Options of {@link buildBrowserBundle}. */
export interface BrowserBundleOptions {
  /** Where to write the bundle; defaults to `dist/engine.browser.js` in the project. */
  outfile?: string;
  /** Minify the output (the default keeps it readable for debugging in the page). */
  minify?: boolean;
  /** The module to bundle; defaults to the engine's browser entry (browser/mod.ts). */
  entryPoint?: string;
  /** Values substituted for global names (esbuild `define`). */
  define?: Record<string, string>;
  /**
   * Write what the engine loads on demand (RE2, the guidance topics: build/on_demand.ts) to files of
   * their own beside `outfile` (`<name>.re2.js`, …), so a page downloads them only when it needs them;
   * by default they are inlined (one self-contained file).
   */
  onDemandFiles?: boolean;
}

/** What {@link buildBrowserBundle} wrote. */
export interface BrowserBundle extends BundleFile {
  /** The on-demand files (`onDemandFiles`), else none. */
  onDemand: BundleFile[];
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const ENGINE_ENTRY = here("./mod.ts");

/** The default output file of the engine bundle. */
export const DEFAULT_BUNDLE_PATH: string = here("../dist/engine.browser.js");
/** The default output folder of the web build. */
export const DEFAULT_WEB_DIR: string = here("../dist/web");
/** The default single-file playground. */
export const DEFAULT_PLAYGROUND_FILE: string = here("../dist/playground.html");

/** Builds one browser bundle (and its on-demand files). Throws with esbuild's messages on failure. */
export async function buildBrowserBundle(options: BrowserBundleOptions = {}): Promise<BrowserBundle> {
  const outfile = options.outfile ?? DEFAULT_BUNDLE_PATH;
  const minify = options.minify ?? false;
  const bundle = await bundleFile(options.entryPoint ?? ENGINE_ENTRY, outfile, {
    platform: "browser",
    minify,
    plugins: [
      noZod,
      noFastUri,
      leanImports,
      noSchemaBuilders,
      noDocs,
      noCjsMarkers,
      onDemand(options.onDemandFiles ? outfile : undefined),
    ],
    define: options.define,
    legalComments: "none",
    // Lit's reactive properties are accessors on the prototype: class fields must be
    // assigned (through them), not defined over them.
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: false } },
  });
  return { ...bundle, onDemand: options.onDemandFiles ? await buildOnDemandFiles(outfile, minify) : [] };
}

/** What the web build wrote. */
export interface WebBuild {
  dir: string;
  /** The single-file playground. */
  playgroundFile: string;
  /** Every file of `dir` with its size in bytes, by path relative to `dir`. */
  files: Record<string, number>;
}

/** The embedding example's files, under `examples/`. */
const EXAMPLE_FILES = ["embed.html", "embed.css", "embed_events.js", "order.json"];

/** The files the service worker caches, relative to its scope (the embedding example too: it opens offline). */
export const APP_SHELL: readonly string[] = [
  "./",
  "index.html",
  "playground.js",
  ...Object.values(onDemandFiles("playground.js")),
  "playground.css",
  "svc-embed.js",
  ...EXAMPLE_FILES.map((file) => `examples/${file}`),
];

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("").slice(0, 16);
}

/** An inline `<script type="module">` body: `</script` cannot end it early. */
function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, "<\\/$1");
}

/** Builds `dist/web/` and `dist/playground.html` (minified). */
export async function buildWeb(
  dir: string = DEFAULT_WEB_DIR,
  playgroundFile: string = DEFAULT_PLAYGROUND_FILE,
): Promise<WebBuild> {
  await Deno.mkdir(`${dir}/examples`, { recursive: true });
  const playground = { entryPoint: here("./playground/main.ts"), minify: true };
  await buildBrowserBundle({ ...playground, outfile: `${dir}/playground.js`, onDemandFiles: true });
  await buildBrowserBundle({ entryPoint: here("./embed.ts"), outfile: `${dir}/svc-embed.js`, minify: true });
  const css = await Deno.readTextFile(here("./playground/playground.css"));
  await Deno.writeTextFile(`${dir}/playground.css`, css);
  const template = await Deno.readTextFile(here("./playground/index.html"));
  await Deno.writeTextFile(
    `${dir}/index.html`,
    template.replace("<!--STYLE-->", '<link rel="stylesheet" href="playground.css">')
      .replace("<!--SCRIPT-->", '<script type="module" src="playground.js"></script>'),
  );
  for (const file of EXAMPLE_FILES) {
    await Deno.copyFile(here(`./examples/${file}`), `${dir}/examples/${file}`);
  }
  // Every cached file but the page itself ("./", index.html: from the template): a change names a new cache.
  const cached = APP_SHELL.filter((file) => file !== "./" && file !== "index.html");
  const code = await Promise.all(cached.map((file) => Deno.readTextFile(`${dir}/${file}`)));
  const version = await sha256(code.join("") + template);
  await buildBrowserBundle({
    entryPoint: here("./sw.ts"),
    outfile: `${dir}/sw.js`,
    minify: true,
    define: { ASSETS: JSON.stringify(APP_SHELL), VERSION: JSON.stringify(version) },
  });
  // The single file: no service worker (file:// has none), everything inline, the on-demand modules too.
  const scratch = await Deno.makeTempDir({ prefix: "playground_" });
  let inline: string;
  try {
    inline = await Deno.readTextFile(
      (await buildBrowserBundle({ ...playground, outfile: `${scratch}/p.js` })).outfile,
    );
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
  await Deno.writeTextFile(
    playgroundFile,
    template.replace(' data-sw="on"', "").replace("<!--STYLE-->", () => `<style>${css}</style>`)
      .replace("<!--SCRIPT-->", () => `<script type="module">${inlineScript(inline)}</script>`),
  );
  const files: Record<string, number> = {};
  for (const name of [...APP_SHELL.filter((name) => name !== "./"), "sw.js"]) {
    files[name] = (await Deno.stat(`${dir}/${name}`)).size;
  }
  await Deno.writeTextFile(`${dir}/.built`, `${version}\n`);
  return { dir, playgroundFile, files };
}

/** The newest modification time under the given folders (sources of the web build). */
async function newestSource(folders: string[]): Promise<number> {
  let newest = 0;
  const walk = async (folder: string): Promise<void> => {
    for await (const entry of Deno.readDir(folder)) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else newest = Math.max(newest, (await Deno.stat(path)).mtime?.getTime() ?? 0);
    }
  };
  for (const folder of folders) await walk(folder);
  return newest;
}

/** Whether `dist/web` is missing or older than a source file (browser/, engine/, build/, deno.json). */
export async function webBuildIsStale(dir: string = DEFAULT_WEB_DIR): Promise<boolean> {
  let built: number;
  try {
    built = (await Deno.stat(`${dir}/.built`)).mtime?.getTime() ?? 0;
  } catch {
    return true;
  }
  const sources = await newestSource([here("."), here("../engine"), here("../build")]);
  const config = (await Deno.stat(here("../deno.json"))).mtime?.getTime() ?? 0;
  return Math.max(sources, config) > built;
}

if (import.meta.main) {
  if (Deno.args.includes("--web")) {
    if (Deno.args.includes("--if-stale") && !(await webBuildIsStale())) {
      console.log(`${DEFAULT_WEB_DIR} is up to date`);
    } else {
      const { dir, playgroundFile, files } = await buildWeb();
      const sizes = Object.entries(files).map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KiB`);
      console.log(`wrote ${dir} (${sizes.join(", ")}) and ${playgroundFile}`);
    }
  } else {
    const bundle = await buildBrowserBundle({ minify: Deno.args.includes("--minify"), onDemandFiles: true });
    const sizes = [bundle, ...bundle.onDemand].map(({ outfile, bytes }) =>
      `${outfile} (${(bytes / 1024).toFixed(0)} KiB)`
    );
    console.log(`wrote ${sizes.join(", ")}`);
  }
}
