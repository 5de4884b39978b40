/**
 * The size budgets of the browser side (README "Performance", issue 12) as a
 * test, so a change that grows a bundle past its budget (a dependency back in
 * the engine bundle, a static import of an on-demand module) fails here
 * rather than in the next `deno task bench:web`: the engine bundle
 * (browser/mod.ts, minified, its on-demand files beside it) under 150 KB
 * gzipped, the playground's first load (index.html, playground.js,
 * playground.css) under 500 KB gzipped. And the engine bundle wraps none of
 * its modules in esbuild's lazy initialisers (`__esm`), which a dynamic import of a
 * module the bundle holds anyway brings for it and everything it imports (1.3 KB
 * gzipped when engine/operations/remote_error.ts imported the evolution modules
 * so).
 *
 * @module
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { buildBrowserBundle, buildWeb } from "../../browser/build.ts";

const KB = 1024;
const gzipped = async (path: string) => gzipSync(await Deno.readFile(path), { level: 9 }).byteLength;

Deno.test("the engine bundle and the playground's first load stay inside their gzip budgets", async () => {
  const dir = await Deno.makeTempDir({ prefix: "budget_" });
  try {
    const engine = await buildBrowserBundle({
      outfile: `${dir}/engine.js`,
      minify: true,
      onDemandFiles: true,
    });
    const bundle = await gzipped(engine.outfile);
    assert.ok(
      bundle < 150 * KB,
      `engine bundle: ${(bundle / KB).toFixed(1)} KB gzipped, over its 150 KB budget (deno task bench:web)`,
    );
    const web = await buildWeb(`${dir}/web`, `${dir}/playground.html`);
    let firstLoad = 0;
    for (const file of ["index.html", "playground.js", "playground.css"]) {
      firstLoad += await gzipped(`${web.dir}/${file}`);
    }
    assert.ok(
      firstLoad < 500 * KB,
      `playground first load: ${(firstLoad / KB).toFixed(1)} KB gzipped, over its 500 KB budget`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the engine bundle initialises no module lazily", async () => {
  const dir = await Deno.makeTempDir({ prefix: "budget_" });
  try {
    // Readable, so esbuild's helper keeps its name.
    const engine = await buildBrowserBundle({ outfile: `${dir}/engine.js`, onDemandFiles: true });
    const lazy = [...(await Deno.readTextFile(engine.outfile)).matchAll(/^var init_(\w+) = __esm\(/gm)];
    assert.deepEqual(lazy.map((m) => m[1]), [], "modules a dynamic import wrapped in lazy initialisers");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
