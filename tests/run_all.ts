/**
 * Runs every test (`deno test --parallel` over the whole project: unit, surface,
 * browser and conformance tests) and prints the summary line CI reads:
 * `N passed, N failed`, the last line of the output. Ignored tests are listed
 * before it, each with its reason where a preflight knows it, and counted in a
 * line of their own: `(N ignored)`.
 *
 * Before the tests start, the preflights of tests/preflight.ts check (bounded, in
 * parallel) what some tests need from outside this machine; their results reach
 * the tests as environment variables, and a test whose need is unavailable is
 * registered as ignored.
 *
 * Usage: deno task test [-- extra deno test arguments]
 *
 * @module
 */
import { PREFLIGHTS, preflightValue } from "./preflight.ts";

const results = await Promise.all(PREFLIGHTS.map(async (p) => ({ ...p, result: await p.check() })));
const preflightEnv: Record<string, string> = {};
const ignoreReasons = new Map<string, string>();
for (const { env, test, result } of results) {
  preflightEnv[env] = preflightValue(result);
  if (!result.available) {
    ignoreReasons.set(test, result.reason);
    console.log(`preflight: "${test}" will be ignored: ${result.reason}`);
  }
}

const args = ["test", "-A", "--no-check=remote", "--parallel", ...Deno.args];
const child = new Deno.Command(Deno.execPath(), {
  args,
  stdout: "piped",
  stderr: "inherit",
  env: { NO_COLOR: "1", ...preflightEnv },
}).spawn();

let passed = 0;
let failed = 0;
let ignored = 0;
let summarySeen = false;
const ignoredNames: { file?: string; name: string }[] = [];
const decoder = new TextDecoder();
let pending = "";
const writer = Deno.stdout.writable.getWriter();
for await (const chunk of child.stdout) {
  await writer.write(chunk);
  pending += decoder.decode(chunk, { stream: true });
  const lines = pending.split("\n");
  pending = lines.pop()!;
  for (const line of lines) {
    // deno test summary: "ok | 12 passed (3 steps) | 0 failed | 1 ignored (1s)" or "FAILED | 3 passed | 1 failed"
    const m = /^(?:ok|FAILED) \| (\d+) passed.*?\| (\d+) failed(?:.*?\| (\d+) ignored)?/.exec(line.trim());
    if (m) {
      passed = Number(m[1]);
      failed = Number(m[2]);
      ignored = Number(m[3] ?? 0);
      summarySeen = true;
    }
    // "name ... ignored (0ms)", prefixed "./file_test.ts => " under --parallel
    const skipped = /^(?:(\S+) => )?(.*) \.\.\. ignored \(/.exec(line);
    if (skipped) ignoredNames.push({ file: skipped[1], name: skipped[2].trim() });
  }
}
writer.releaseLock();
const { code } = await child.status;
if (!summarySeen && code !== 0) failed = Math.max(failed, 1);
for (const { file, name } of ignoredNames) {
  const reason = ignoreReasons.get(name);
  console.log(`ignored: ${file ? `${file} => ` : ""}${name}${reason ? `: ${reason}` : ""}`);
}
if (ignored > 0) console.log(`(${ignored} ignored)`);
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(code === 0 && failed === 0 ? 0 : 1);
