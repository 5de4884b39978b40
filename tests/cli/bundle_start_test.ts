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
 * - nor does it set up the portable SHA-256's tables (engine/sha256.ts, loaded
 *   with engine/ports.ts at every start): the CLI hashes with node:crypto;
 * - the minified bundle is ASCII: Deno hands V8 an ASCII source as it is and
 *   copies any other into V8's heap first (one ellipsis in a regex made every
 *   start copy the whole bundle, about 3 MB of heap).
 */
import assert from "node:assert/strict";
import { buildCliBundle, firstNonAscii } from "../../cli/build/bundle.ts";
import { startupFunctions } from "../../build/eager_compile.ts";

/** The files (their paths as esbuild names them) whose functions run at `offsets` of an unminified bundle `source`. */
function filesRun(source: string, offsets: Iterable<number>): Map<string, number[]> {
  // esbuild opens each file's code with a `// <path>` line.
  const files = [...source.matchAll(/^\/\/ (\S+)$/gm)].map((match) => ({ at: match.index, path: match[1] }));
  const run = new Map<string, number[]>();
  for (const offset of offsets) {
    const path = files.findLast(({ at }) => at <= offset)?.path;
    if (path) run.set(path, [...run.get(path) ?? [], offset]);
  }
  return run;
}

/** The packages whose functions run at `offsets` of an unminified esbuild bundle `source`. */
function packagesRun(source: string, offsets: Iterable<number>): Set<string> {
  // A package's path ends in node_modules/<name>/….
  const packages = new Set<string>();
  for (const path of filesRun(source, offsets).keys()) {
    const name = path.match(/.*node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1];
    if (name) packages.add(name);
  }
  return packages;
}

Deno.test("the bundle's console answers its first list-models evaluating no bundled package but zod, nor SHA-256's tables", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-bundle-start-" });
  try {
    const { outfile } = await buildCliBundle({ outfile: `${dir}/svc.js`, minify: false, eager: false });
    const ran = await startupFunctions(outfile, [{ args: ["console"], stdin: '{"cmd":"list-models"}\n' }]);
    const source = await Deno.readTextFile(outfile);
    assert.deepEqual([...packagesRun(source, ran)].sort(), ["zod"]);
    // The portable SHA-256 (engine/sha256.ts, loaded with engine/ports.ts) sets up its tables on its first
    // hash: the CLI hashes with node:crypto, and the set-up took about half a millisecond of every start.
    const sha256 = filesRun(source, ran).get("engine/sha256.ts") ?? [];
    assert.deepEqual(sha256.map((at) => source.slice(at, source.indexOf("(", at))), ['"engine/sha256.ts"']);
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
