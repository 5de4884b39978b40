/**
 * What every start of the CLI bundle pays before its first answer, pinned
 * without timing:
 *
 * - of the packages bundled in, a console's first `list-models` evaluates zod
 *   alone (its argument check). The spec compiler's packages (Ajv,
 *   ajv-formats, JSONata, RE2, JSON Patch) are evaluated on first use
 *   (cli/build/bundle.ts), so an engine module that imports one of their files
 *   directly must be loaded on first use too: ajv-formats' keyword file
 *   requires the whole of Ajv, about 5 ms of every console start. Found with
 *   V8 coverage of an unminified bundle, whose `// path` comments say which
 *   file each function is in;
 * - the minified bundle is ASCII: Deno hands V8 an ASCII source as it is and
 *   copies any other into V8's heap first (one ellipsis in a regex made every
 *   start copy the whole bundle, about 3 MB of heap).
 */
import assert from "node:assert/strict";
import { buildCliBundle, firstNonAscii } from "../../cli/build/bundle.ts";
import { startupFunctions } from "../../build/eager_compile.ts";

/** The packages whose functions run at `offsets` of an unminified esbuild bundle `source`. */
function packagesRun(source: string, offsets: Iterable<number>): Set<string> {
  // esbuild opens each file's code with a `// <path>` line; a package's path ends in node_modules/<name>/….
  const files = [...source.matchAll(/^\/\/ (\S+)$/gm)].map((match) => ({ at: match.index, path: match[1] }));
  const packages = new Set<string>();
  for (const offset of offsets) {
    const file = files.findLast(({ at }) => at <= offset);
    const name = file?.path.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1];
    if (name) packages.add(name);
  }
  return packages;
}

Deno.test("the bundle's console answers its first list-models evaluating no bundled package but zod", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-bundle-start-" });
  try {
    const { outfile } = await buildCliBundle({ outfile: `${dir}/svc.js`, minify: false, eager: false });
    const ran = await startupFunctions(outfile, [{ args: ["console"], stdin: '{"cmd":"list-models"}\n' }]);
    const source = await Deno.readTextFile(outfile);
    assert.deepEqual([...packagesRun(source, ran)].sort(), ["zod"]);
    // The same coverage sees a package loaded on first use once it is used (the check is not blind).
    const used = await startupFunctions(outfile, [{
      args: ["console"],
      stdin: '{"cmd":"validate-spec","spec":{"id":"m","schema":{"type":"object"}}}\n',
    }]);
    assert.ok(packagesRun(source, used).has("ajv"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the minified bundle is ASCII (a regex written with a non-ASCII character is not escaped by esbuild)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-bundle-ascii-" });
  try {
    // buildCliBundle refuses a bundle that is not, naming the character; the assertion says it again.
    const { outfile } = await buildCliBundle({ outfile: `${dir}/svc.js`, eager: false });
    const at = firstNonAscii(await Deno.readTextFile(outfile));
    assert.equal(at, -1, `a character outside ASCII at ${at}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
