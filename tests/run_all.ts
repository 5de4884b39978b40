/**
 * Runs every test (`deno test` over the whole project: unit, surface, browser and
 * conformance tests) and prints the summary line CI reads: `N passed, N failed`.
 *
 * Usage: deno task test [-- extra deno test arguments]
 *
 * @module
 */

const args = ["test", "-A", "--no-check=remote", ...Deno.args];
const child = new Deno.Command(Deno.execPath(), {
  args,
  stdout: "piped",
  stderr: "inherit",
  env: { NO_COLOR: "1" },
}).spawn();

let passed = 0;
let failed = 0;
let summarySeen = false;
const decoder = new TextDecoder();
let pending = "";
const writer = Deno.stdout.writable.getWriter();
for await (const chunk of child.stdout) {
  await writer.write(chunk);
  pending += decoder.decode(chunk, { stream: true });
  const lines = pending.split("\n");
  pending = lines.pop()!;
  for (const line of lines) {
    // deno test summary: "ok | 12 passed (3 steps) | 0 failed (1s)" or "FAILED | 3 passed | 1 failed"
    const m = /^(?:ok|FAILED) \| (\d+) passed.*\| (\d+) failed/.exec(line.trim());
    if (m) {
      passed = Number(m[1]);
      failed = Number(m[2]);
      summarySeen = true;
    }
  }
}
writer.releaseLock();
const { code } = await child.status;
if (!summarySeen && code !== 0) failed = Math.max(failed, 1);
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(code === 0 && failed === 0 ? 0 : 1);
