/**
 * Replays the shared conformance examples black-box through the console
 * protocol (`node ../shared/conformance/run.mjs -- deno task -q console`),
 * and the bundled examples (engine/authoring/examples) with the same runner.
 */
import assert from "node:assert/strict";
import { EXAMPLES } from "../engine/authoring/mod.ts";

const ROOT = new URL("..", import.meta.url);
const RUNNER = new URL("../shared/conformance/run.mjs", ROOT);

function runnerPresent(): boolean {
  try {
    return Deno.statSync(RUNNER).isFile;
  } catch {
    return false;
  }
}

const present = runnerPresent();
if (!present) console.log(`conformance skipped: ${RUNNER.pathname} is absent`);

/** Replays the example specs of `examples` (the runner's default folder when absent); returns the cases passed. */
async function replay(examples?: string): Promise<number> {
  const output = await new Deno.Command("node", {
    args: [
      RUNNER.pathname,
      ...(examples ? ["--examples", examples] : []),
      "--",
      Deno.execPath(),
      "task",
      "-q",
      "console",
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  const summary = /conformance: (\d+) passed, (\d+) failed/.exec(stdout);
  assert.ok(summary, `no summary line in the runner's output:\n${stdout}\n${stderr}`);
  assert.equal(summary[2], "0", `failures:\n${stdout}`);
  assert.ok(Number(summary[1]) > 0, "some cases ran");
  assert.equal(output.code, 0, stdout + stderr);
  return Number(summary[1]);
}

Deno.test({
  name: "conformance: every example test case passes through the console",
  ignore: !present,
  async fn() {
    await replay();
  },
});

Deno.test({
  name: "the bundled examples' test cases pass through the console too",
  ignore: !present,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "bundled_examples_" });
    try {
      for (const { name, spec } of EXAMPLES) {
        await Deno.writeTextFile(`${dir}/${name}.json`, JSON.stringify(spec));
      }
      const cases = EXAMPLES.reduce((n, e) => n + (e.spec.tests?.length ?? 0), 0);
      assert.equal(await replay(dir), cases);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
