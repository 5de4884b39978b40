/**
 * Replays the shared conformance examples black-box through the console
 * protocol (`node ../shared/conformance/run.mjs -- deno task -q console`).
 */
import assert from "node:assert/strict";

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

Deno.test({
  name: "conformance: every example test case passes through the console",
  ignore: !present,
  async fn() {
    const output = await new Deno.Command("node", {
      args: [RUNNER.pathname, "--", Deno.execPath(), "task", "-q", "console"],
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
  },
});
