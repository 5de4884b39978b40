/**
 * `svc --help` and `svc --version` as the real CLI process; an unknown command
 * and an option without its value are usage errors (exit 2).
 */
import assert from "node:assert/strict";
import { SERVICE_NAME, SERVICE_VERSION } from "../../engine/version.ts";
import { runCli } from "./helpers.ts";

Deno.test("--help lists every subcommand and option, with or without a subcommand", async () => {
  for (const args of [["--help"], ["-h"], ["console", "--help"], ["--url", "http://h", "--help"]]) {
    const run = await runCli(args);
    assert.equal(run.code, 0, args.join(" "));
    assert.match(run.stdout, /^Usage: svc <command> \[options\]/);
    for (const word of ["console", "mcp", "serve", "--url <base>", "--api-key <key>", "--config <file>"]) {
      assert.ok(run.stdout.includes(word), `${args.join(" ")}: ${word}`);
    }
    assert.ok(run.stdout.includes("SVC_URL") && run.stdout.includes("SVC_API_KEY"));
  }
});

Deno.test("--version prints name and version", async () => {
  for (const args of [["--version"], ["-V"], ["serve", "--version"]]) {
    const run = await runCli(args);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `${SERVICE_NAME} ${SERVICE_VERSION}\n`);
  }
});

Deno.test("usage errors exit 2 and name the problem without echoing values", async () => {
  const unknown = await runCli(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^Unknown command 'frobnicate'/);
  const missing = await runCli(["console", "--api-key"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^Option --api-key needs a value/);
});
